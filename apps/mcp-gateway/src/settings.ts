/** A command line or environment the gateway cannot run with. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface Settings {
  readonly configFile: string;
  /** Streamable HTTP on this port; null: stdio. */
  readonly httpPort: number | null;
  readonly host: string;
  readonly publicUrl: string | null;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  readonly metricsPort: number | null;
}

/** The command line's options and the environment, checked. */
export function settingsOf(options: { config?: string; http?: string }, env: NodeJS.ProcessEnv): Settings {
  if (!options.config) throw new UsageError('--config FILE is required');
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new UsageError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const publicUrl = env.PUBLIC_URL?.trim() || null;
  if (publicUrl !== null && !/^https?:\/\/[^/]/.test(publicUrl)) throw new UsageError('PUBLIC_URL must be an http(s) URL');
  return {
    configFile: options.config,
    httpPort: options.http === undefined ? null : port('--http', options.http),
    host: env.HOST?.trim() || '127.0.0.1',
    publicUrl: publicUrl?.replace(/\/+$/, '') ?? null,
    logLevel: logLevel as Settings['logLevel'],
    metricsPort: env.METRICS_PORT?.trim() ? port('METRICS_PORT', env.METRICS_PORT.trim()) : null,
  };
}

function port(name: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 65_535) throw new UsageError(`${name} must be a port number (0 to 65535), not '${text}'`);
  return value;
}
