/** Control characters (CR and LF among them) and Unicode line breaks, which must not split a line. */
const LINE_BREAKING = /[\p{Cc}\p{Zl}\p{Zp}]+/gu;

/** Text that a tenant or an agent wrote, on one line: it cannot start a header or fake a line of a message. */
export const oneLine = (value: string) => value.replace(LINE_BREAKING, ' ').trim();

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]!);
