import canonicalizeModule from 'canonicalize';

/**
 * RFC 8785 (JCS) text of a JSON value; undefined for a value JSON cannot hold.
 * canonicalize is CommonJS (`module.exports = serialize`) but its typings declare an ES
 * default export, so under NodeNext TypeScript sees a namespace where Node hands us the
 * function. The cast states what Node actually provides.
 */
export const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;
