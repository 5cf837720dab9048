import { useMutation } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { ApiError, api, unwrap } from '../../api/client';
import { Button } from '../../ui/Button';
import { AuthFrame } from '../auth/AuthFrame';

const NOT_VALID = 'This link is not valid or was already used.';

/**
 * Where the link in a reviewer's confirmation mail leads; no sign-in. Opening it confirms
 * nothing (mail scanners open links): only the button does.
 */
export function ConfirmEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const confirm = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/email-confirmations', { body: { token } })),
  });

  if (confirm.isSuccess) {
    return (
      <AuthFrame title="Address confirmed">
        <p role="status">This address now receives the approval requests of the organization that asked. You can close this page.</p>
      </AuthFrame>
    );
  }
  // A malformed token is as unknown as a used one; anything else (a 429, the network) speaks for itself.
  const invalid = confirm.error instanceof ApiError && (confirm.error.status === 404 || confirm.error.status === 400);
  const problem = !token || invalid ? NOT_VALID : confirm.error?.message;
  return (
    <AuthFrame title="Confirm your e-mail address">
      <p>An organization asked to send its approval requests to this address. Confirm only if you expect them.</p>
      {problem && (
        <div role="alert" className="notice notice-error">
          {problem}
        </div>
      )}
      <Button tone="primary" isDisabled={!token || confirm.isPending} onPress={() => confirm.mutate()}>
        Confirm this address
      </Button>
    </AuthFrame>
  );
}
