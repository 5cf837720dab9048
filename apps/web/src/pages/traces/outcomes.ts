/** A trace's `final_outcome` values, in the order a reader follows a trace's life. */
export const OUTCOMES = ['in_progress', 'executed', 'blocked', 'denied', 'completed_with_approval', 'expired'] as const;
