import { useSearchParams } from 'react-router';

/** The value of a select that filters nothing. */
export const ANY = 'any';

/**
 * A list page's filters and page offset, kept in the URL so that links and reloads keep them.
 * Changing a filter goes back to the first page.
 */
export function useUrlFilters() {
  const [params, setParams] = useSearchParams();
  return {
    params,
    offset: Number(params.get('offset') ?? 0) || 0,
    /** The filters among `names` that are set, for the list's query. */
    picked: (names: readonly string[]) =>
      Object.fromEntries(names.flatMap((name) => (params.get(name) ? [[name, params.get(name)!]] : []))),
    set: (name: string) => (value: string) => {
      const next = new URLSearchParams(params);
      if (value && value !== ANY) next.set(name, value);
      else next.delete(name);
      next.delete('offset');
      setParams(next);
    },
    goTo: (offset: number) => {
      const next = new URLSearchParams(params);
      next.set('offset', String(offset));
      setParams(next);
    },
  };
}
