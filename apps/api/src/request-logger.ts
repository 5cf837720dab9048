import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogArguments = Parameters<Logger['info']>;

/**
 * Each request's logger (bound to its id), made the first time the request logs something at a
 * level the logger writes. At `warn` and above a request that succeeds writes nothing, and a
 * pino child runs its bindings through the redaction paths as it is made: about 2 % of the
 * API's CPU in a dry run. A request with a level of its own gets its child at once. (Fastify's
 * `childLoggerFactory`; the app's logger is pino's.)
 */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  const parent = logger as unknown as Logger;
  return options.level === undefined ? new LazyChild(parent, bindings, options) : parent.child(bindings, options);
}

class LazyChild implements FastifyBaseLogger {
  private made: Logger | null = null;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private logger(): Logger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  private write(level: Level, args: LogArguments): void {
    if ((this.made ?? this.parent).isLevelEnabled(level)) (this.logger()[level] as (...args: LogArguments) => void)(...args);
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: LogArguments) {
    this.write('fatal', args);
  }

  error(...args: LogArguments) {
    this.write('error', args);
  }

  warn(...args: LogArguments) {
    this.write('warn', args);
  }

  info(...args: LogArguments) {
    this.write('info', args);
  }

  debug(...args: LogArguments) {
    this.write('debug', args);
  }

  trace(...args: LogArguments) {
    this.write('trace', args);
  }

  silent() {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}
