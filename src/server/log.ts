/**
 * A small namespaced logger. Writes one line per entry to stderr (stdout is the
 * stdio MCP channel). Callers pass identifiers and codes only: broker text,
 * credentials and argument values are never logged.
 */

/** Log levels, most verbose first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Safe structured fields: identifiers, codes, counts, durations. */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** A namespaced logger. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger for a sub-namespace, e.g. `relay` → `tradescript:relay`. */
  child(namespace: string): Logger;
}

/** Where lines go; tests pass an array sink to read what was logged. */
export type LogSink = (line: string) => void;

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

/** Creates a logger writing to stderr (or `sink`) at `level` and above. */
export function createLogger(
  level: LogLevel = 'info',
  sink: LogSink = (line) => process.stderr.write(`${line}\n`),
  namespace = 'tradescript',
): Logger {
  const write = (at: Exclude<LogLevel, 'silent'>, message: string, fields?: LogFields) => {
    if (RANK[at] < RANK[level]) return;
    const extra = fields
      ? Object.entries(fields)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : String(v)}`)
          .join(' ')
      : '';
    sink(`${new Date().toISOString()} ${at.toUpperCase()} ${namespace} ${message}${extra ? ` ${extra}` : ''}`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (ns) => createLogger(level, sink, `${namespace}:${ns}`),
  };
}
