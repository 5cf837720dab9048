import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

/** One message as the server got it: its envelope, headers and both bodies, decoded. */
export interface ReceivedMail {
  /** MAIL FROM and RCPT TO, as sent over SMTP. */
  envelope: { from: string; to: string[] };
  /** The user name the sender logged in with, if it did. */
  user: string | null;
  /** Header names in lower case; values unfolded, encoded words decoded. */
  headers: Record<string, string>;
  subject: string;
  text: string;
  html: string;
  /** What the server answered: accepted, refused with this reply code, or nothing yet. */
  answer: 'accepted' | number | 'held';
}

/**
 * How the server answers one message to a recipient: take it, refuse it with a reply code
 * (451: try again later), or hold it unanswered until `release` (a server that hangs).
 */
export type MailAnswer = 'accept' | number | 'hold';

export interface SmtpReceiver {
  url: string;
  /** Every message, answered or held, in the order it arrived. */
  received: ReceivedMail[];
  /** Scripts the answers to messages for `address`: the next of `answers` each time, the last one repeating. */
  answer(address: string, answers: MailAnswer[]): void;
  /** The messages addressed to `address`. */
  to(address: string): ReceivedMail[];
  /** Resolves once `count` messages to `address` have arrived, or rejects after `timeoutMs`. */
  waitFor(address: string, count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** Answers every held message with `answer`. */
  release(answer: 'accept' | number): void;
  close(): Promise<void>;
}

/**
 * A real local SMTP server (plain, no STARTTLS, any login or none) that keeps every message.
 * Messages are accepted unless `answer` scripted otherwise for their first recipient, so tests
 * sharing one server each script the addresses of their own tenant.
 */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const scripts = new Map<string, { answers: MailAnswer[]; used: number }>();
  const held: ((answer: 'accept' | number) => void)[] = [];

  const answerFor = (address: string): MailAnswer => {
    const script = scripts.get(address.toLowerCase());
    if (!script) return 'accept';
    const answer = script.answers[Math.min(script.used, script.answers.length - 1)]!;
    script.used += 1;
    return answer;
  };

  const server = new SMTPServer({
    authOptional: true,
    // Logins over plain SMTP, so a test can give the sender a password it must never log.
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 100,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail: ReceivedMail = {
          ...parseMessage(Buffer.concat(chunks).toString('utf8')),
          envelope: envelopeOf(session),
          user: typeof session.user === 'string' ? session.user : null,
          answer: 'held',
        };
        received.push(mail);
        const reply = (answer: 'accept' | number) => {
          mail.answer = answer === 'accept' ? 'accepted' : answer;
          if (answer === 'accept') callback();
          else callback(Object.assign(new Error('Try again later'), { responseCode: answer }));
        };
        const answer = answerFor(mail.envelope.to[0] ?? '');
        if (answer === 'hold') held.push(reply);
        else reply(answer);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;

  const to = (address: string) => received.filter((mail) => mail.envelope.to.includes(address));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    answer: (address, answers) => scripts.set(address.toLowerCase(), { answers, used: 0 }),
    to,
    async waitFor(address, count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (to(address).length < count) {
        if (Date.now() > deadline) throw new Error(`${address} got ${to(address).length} of ${count} messages in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return to(address).slice(0, count);
    },
    release(answer) {
      for (const answerHeld of held.splice(0)) answerHeld(answer);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function envelopeOf(session: SMTPServerSession) {
  const from = session.envelope.mailFrom;
  return { from: from ? from.address : '', to: session.envelope.rcptTo.map((recipient) => recipient.address) };
}

/**
 * Just enough MIME for what Nodemailer sends: headers (with RFC 2047 encoded words), and a
 * text/plain and a text/html part, either alone or inside multipart/alternative, each 7bit,
 * quoted-printable or base64, in UTF-8.
 */
function parseMessage(raw: string): Pick<ReceivedMail, 'headers' | 'subject' | 'text' | 'html'> {
  const { headers, body } = splitEntity(raw);
  const parts: { headers: Record<string, string>; body: string }[] = [];
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (boundary) {
    const sections = body.split(`--${boundary}`).slice(1, -1);
    for (const section of sections) parts.push(splitEntity(section.replace(/^\r\n/, '').replace(/\r\n$/, '')));
  } else {
    parts.push({ headers, body });
  }
  const bodyOf = (type: string) => {
    const part = parts.find((candidate) => (candidate.headers['content-type'] ?? '').startsWith(type));
    return part ? decodeBody(part.body, part.headers['content-transfer-encoding'] ?? '7bit') : '';
  };
  return { headers, subject: headers.subject ?? '', text: bodyOf('text/plain'), html: bodyOf('text/html') };
}

function splitEntity(entity: string): { headers: Record<string, string>; body: string } {
  const end = entity.indexOf('\r\n\r\n');
  const head = end === -1 ? entity : entity.slice(0, end);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n(?=[ \t])/g, '').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  return { headers, body: end === -1 ? '' : entity.slice(end + 4) };
}

/** RFC 2047: `=?UTF-8?B?…?=` and `=?UTF-8?Q?…?=`; the space between two encoded words is dropped. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_word, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replaceAll('_', ' ')),
    );
}

function decodeBody(body: string, encoding: string): string {
  const decoded =
    encoding.toLowerCase() === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
      : encoding.toLowerCase() === 'quoted-printable'
        ? decodeQuotedPrintable(body.replace(/=\r\n/g, ''))
        : body;
  return decoded.replace(/\r\n/g, '\n');
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
