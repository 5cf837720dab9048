import { ApiError } from '../api/client';
import { useMe } from '../session/session';

/** Explains a failed call: a 403 in terms of the user's role, anything else in the service's words. */
export function ErrorNotice({ error }: { error: unknown }) {
  const me = useMe();
  if (!error) return null;
  if (error instanceof ApiError && error.status === 403) {
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
