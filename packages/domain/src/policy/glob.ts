/**
 * Whether `value` matches a resource-scope `pattern` in which `*` stands for any run of
 * characters (including none and including `/`) and every other character is literal.
 *
 * Patterns come from tenants, so no RegExp is built from them: a greedy left-to-right scan
 * with `indexOf` is enough, because placing each middle segment as early as possible never
 * rules out a match a later placement would allow. That keeps the work near-linear in the
 * value's length for any number of stars.
 */
export function globMatches(pattern: string, value: string): boolean {
  const segments = pattern.split('*');
  if (segments.length === 1) return pattern === value;

  const prefix = segments[0]!;
  const suffix = segments[segments.length - 1]!;
  // The prefix and suffix must not share characters of the value: "ab*ba" needs four.
  if (prefix.length + suffix.length > value.length) return false;
  if (!value.startsWith(prefix) || !value.endsWith(suffix)) return false;

  const middleEnd = value.length - suffix.length;
  let position = prefix.length;
  for (const segment of segments.slice(1, -1)) {
    if (segment === '') continue;
    const found = value.indexOf(segment, position);
    if (found === -1 || found + segment.length > middleEnd) return false;
    position = found + segment.length;
  }
  return true;
}
