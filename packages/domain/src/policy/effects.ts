/** What a rule can decide, least restrictive first. */
export const POLICY_EFFECTS = ['allow', 'approval_required', 'deny'] as const;
export type PolicyEffect = (typeof POLICY_EFFECTS)[number];
