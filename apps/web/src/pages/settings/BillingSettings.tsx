import { useMutation, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Time } from '../../ui/Time';

/** The plan, and the payment provider's pages for changing it; the provider sends us back here. */
export function BillingSettings() {
  const status = useQuery({ queryKey: ['billing'], queryFn: () => unwrap(api.GET('/api/v1/billing/status')) });
  const go = useMutation({
    mutationFn: (target: 'starter' | 'business' | 'portal') =>
      unwrap(target === 'portal' ? api.POST('/api/v1/billing/portal') : api.POST('/api/v1/billing/checkout', { body: { plan: target } })),
    onSuccess: ({ url }) => window.location.assign(url),
  });
  const s = status.data?.data;
  return (
    <div className="card">
      <h2>Billing</h2>
      <ErrorNotice error={status.error} />
      {s && (
        <dl className="facts">
          <dt>Plan</dt>
          <dd className="plan">{s.plan}</dd>
          <dt>Status</dt>
          <dd>{s.status}</dd>
          <dt>{s.cancel_at_period_end ? 'Ends' : 'Renews'}</dt>
          <dd>
            <Time value={s.current_period_end} />
          </dd>
        </dl>
      )}
      <div className="actions">
        <Button onPress={() => go.mutate('starter')} isDisabled={go.isPending}>
          Upgrade to Starter
        </Button>
        <Button onPress={() => go.mutate('business')} isDisabled={go.isPending}>
          Upgrade to Business
        </Button>
        <Button onPress={() => go.mutate('portal')} isDisabled={go.isPending}>
          Manage billing
        </Button>
      </div>
      <ErrorNotice error={go.error} />
    </div>
  );
}
