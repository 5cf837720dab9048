import type { Config } from '@agov/config';
import { pino, type DestinationStream, type Logger } from 'pino';

/** Anything that could carry a credential, wherever it appears in a log line. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-chat-signature"]',
  'req.headers["x-slack-signature"]',
  'req.headers["stripe-signature"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.key',
  '*.secret',
  '*.token',
  '*.app_secret',
  '*.bot_token',
  '*.databaseUrl',
  '*.redisUrl',
];

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  return pino({ level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}
