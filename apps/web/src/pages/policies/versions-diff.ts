/** The fields a policy version records, which are also the ones an update may change. */
export const COMPARED_FIELDS = [
  'policy_name',
  'target_integration',
  'operation',
  'resource_scope',
  'data_classification',
  'policy_effect',
  'rationale',
  'priority',
  'conditions',
  'max_session_ttl',
  'approvals_required',
  'escalate_after_seconds',
  'mode',
] as const;

export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

const shown = (value: unknown) =>
  value === null || value === undefined ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** The fields that differ between two versions of a rule, in the order a reader expects them. */
export function diffVersions(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
  return COMPARED_FIELDS.flatMap((field) => {
    const [was, is] = [shown(before[field]), shown(after[field])];
    return was === is ? [] : [{ field, before: was, after: is }];
  });
}
