import { StatusBadge } from '../../ui/Badge';
import { Time } from '../../ui/Time';
import { type Vote, voterOf } from './votes';

/** Every vote cast on a request, in order: the decision, who cast it (and for whom), the name and note they gave, when. */
export function VoteList({ votes }: { votes: readonly Vote[] }) {
  return (
    <ol className="votes" aria-label="Votes">
      {votes.map((vote) => (
        <li key={`${vote.principal} ${vote.at}`}>
          <div className="vote-head">
            <StatusBadge value={vote.decision} />
            <strong>{voterOf(vote)}</strong>
            <Time value={vote.at} />
          </div>
          <div className="muted">signed {vote.approver_name}</div>
          {vote.decision_note && <div>{vote.decision_note}</div>}
        </li>
      ))}
    </ol>
  );
}
