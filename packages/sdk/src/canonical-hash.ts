import canonicalizeModule from 'canonicalize';

/**
 * RFC 8785 (JCS) text of a JSON value; undefined for a value JSON cannot hold. canonicalize is
 * CommonJS (`module.exports = serialize`) while its typings declare an ES default export;
 * every runtime hands an ES import the function itself.
 */
export const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** `"sha256:" + hex(SHA-256(text))` over the text's UTF-8 bytes, by WebCrypto. */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return `sha256:${Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
