/** Where sign-in and sign-up go when `next` is missing or refused. */
const HOME = '/';

/**
 * Browsers read a backslash as a slash and drop tabs and newlines inside a URL, so `/\evil.com`
 * or `/<tab>/evil.com` would leave the app as `//evil.com` does.
 */
function unsafe(character: string): boolean {
  const code = character.charCodeAt(0);
  return character === '\\' || code < 0x20 || code === 0x7f;
}

function isLocalPath(path: string): boolean {
  return path.startsWith('/') && path[1] !== '/' && ![...path].some(unsafe);
}

/**
 * Where to send a user after signing in: `next` when it is a path of this app, else the home
 * page, so that sign-in never redirects elsewhere (an open redirect). The path part is checked
 * percent-decoded too: `/%5Cevil.com` names no page of ours, and whatever decodes it later would
 * read `/\evil.com`.
 */
export function safeNext(next: string | null, origin = window.location.origin): string {
  if (!next || !isLocalPath(next)) return HOME;
  const path = next.split(/[?#]/, 1)[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return HOME;
  }
  if (!isLocalPath(decoded)) return HOME;
  return new URL(next, origin).origin === origin ? next : HOME;
}
