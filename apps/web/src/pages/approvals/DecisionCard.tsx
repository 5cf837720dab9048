import { StatusBadge } from '../../ui/Badge';
import { Time } from '../../ui/Time';
import type { Approval } from './queries';
import { quorumOf } from './votes';
import { VoteList } from './VoteList';

/** Why the request needs approval, where its quorum stands, the decision once made, and every vote cast. */
export function DecisionCard({ approval }: { approval: Approval }) {
  const quorum = quorumOf(approval);
  return (
    <div className="card">
      <h2>Why it needs approval</h2>
      <p>{approval.flag_reason}</p>
      <h2>Decision</h2>
      {quorum && (
        <p>
          <strong>
            Approvals: {quorum.approvals} of {quorum.required}
          </strong>
        </p>
      )}
      {approval.status === 'pending' ? (
        <p className="muted">{quorum ? waitingFor(quorum.required - quorum.approvals) : 'Waiting for a reviewer.'}</p>
      ) : approval.status === 'expired' ? (
        <p>Expired without a decision.</p>
      ) : (
        <dl className="facts">
          <dt>Decision</dt>
          <dd>
            <StatusBadge value={approval.status} />
          </dd>
          <dt>By</dt>
          <dd>{approval.approver_name}</dd>
          <dt>At</dt>
          <dd>
            <Time value={approval.decided_at} />
          </dd>
          <dt>Note</dt>
          <dd>{approval.decision_note ?? <span className="muted">none</span>}</dd>
        </dl>
      )}
      {approval.votes.length > 0 && (
        <>
          <h3>Votes</h3>
          <VoteList votes={approval.votes} />
        </>
      )}
    </div>
  );
}

const waitingFor = (missing: number) => `Waiting for ${missing} more ${missing === 1 ? 'approval' : 'approvals'}.`;
