import { ApiError } from '../api/client';
import { useMe } from '../session/session';

/**
 * A 403 for want of a role, which names the role it needs; other refusals (a vote for a reviewer
 * whose delegation has ended, say) are explained by the service's own message.
 */
const isRoleRefusal = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.status === 403 && error.body?.details?.required_role !== undefined;

/** Explains a failed call: a missing role in terms of the user's role, anything else in the service's words. */
export function ErrorNotice({ error }: { error: unknown }) {
  const me = useMe();
  if (!error) return null;
  if (isRoleRefusal(error)) {
    const role = me.data?.user.role;
    return (
      <div role="alert" className="notice notice-error">
        <strong>Not allowed.</strong> {role ? `Your role (${role}) cannot do this. ` : ''}
        Ask an admin of your organisation if you need it. <span className="muted">({error.message})</span>
      </div>
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  const requestId = error instanceof ApiError ? error.body?.request_id : undefined;
  return (
    <div role="alert" className="notice notice-error">
      {message}
      {requestId && <span className="muted"> Request {requestId}.</span>}
    </div>
  );
}
