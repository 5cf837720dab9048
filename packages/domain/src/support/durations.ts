/**
 * How long an escalated request had waited, as its messages say it: "undecided after 15
 * minutes" (seconds below a minute). Measured from the request to its `escalate_at`, which
 * evaluate set from the rule, so a later rule change does not alter what was promised.
 */
export function undecidedFor(approval: { requestedAt: Date; escalateAt: Date | null }): string {
  const seconds = Math.round(((approval.escalateAt ?? approval.requestedAt).getTime() - approval.requestedAt.getTime()) / 1000);
  if (seconds < 60) return `undecided after ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.round(seconds / 60);
  return `undecided after ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}
