import { Button } from './Button';

interface PaginationProps {
  total: number;
  limit: number;
  offset: number;
  onChange: (offset: number) => void;
}

/** "21–40 of 95" with previous and next, for the API's limit/offset lists. */
export function Pagination({ total, limit, offset, onChange }: PaginationProps) {
  if (total <= limit && offset === 0) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="pagination" aria-label="Pages">
      <Button isDisabled={offset === 0} onPress={() => onChange(Math.max(0, offset - limit))}>
        Previous
      </Button>
      <span>
        {total === 0 ? 0 : offset + 1}–{last} of {total}
      </span>
      <Button isDisabled={last >= total} onPress={() => onChange(offset + limit)}>
        Next
      </Button>
    </nav>
  );
}
