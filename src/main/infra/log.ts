/**
 * The services' logger. Every line passes through redaction: registered secrets (tokens) and
 * anything shaped like a bearer credential are replaced before a sink sees the line, so no log
 * line can carry a token whichever sink is plugged in (console, a file, electron-log).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogRecord {
  time: string;
  level: LogLevel;
  message: string;
  data?: unknown;
}

export type LogSink = (record: LogRecord) => void;

export interface Logger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
  /** Registers a value that must never appear in any log line. */
  addSecret(secret: string): void;
  /**
   * Redacts text written elsewhere (a log file handed out in a diagnostics export): registered
   * secrets, bearer credentials, and in JSON lines every value under a key naming a credential.
   */
  redact(text: string): string;
}

const bearerPattern = /(bearer\s+)[A-Za-z0-9._~+/=-]+/gi;

function plain(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[…]';
  if (value instanceof Error) {
    return {
      name: value.name,
      message: value.message,
      ...(value.cause ? { cause: plain(value.cause, depth + 1) } : {}),
    };
  }
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => plain(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = /authorization|token|password|secret/i.test(k) ? '[redacted]' : plain(v, depth + 1);
    }
    return out;
  }
  return value;
}

export function createLogger(sink: LogSink, minLevel: LogLevel = 'info'): Logger {
  const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
  const secrets = new Set<string>();

  const redact = (text: string): string => {
    let out = text.replace(bearerPattern, '$1[redacted]');
    for (const s of secrets) out = out.split(s).join('[redacted]');
    return out;
  };

  const write = (level: LogLevel, message: string, data?: unknown): void => {
    if (order[level] < order[minLevel]) return;
    const record: LogRecord = { time: new Date().toISOString(), level, message: redact(message) };
    if (data !== undefined)
      record.data = JSON.parse(redact(JSON.stringify(plain(data)) ?? 'null')) as unknown;
    try {
      sink(record);
    } catch {
      // Logging must never break the caller.
    }
  };

  return {
    debug: (m, d) => write('debug', m, d),
    info: (m, d) => write('info', m, d),
    warn: (m, d) => write('warn', m, d),
    error: (m, d) => write('error', m, d),
    addSecret: (s) => {
      if (s.length >= 6) secrets.add(s);
    },
    redact: (text) =>
      text
        .split('\n')
        .map((line) => {
          try {
            return redact(JSON.stringify(plain(JSON.parse(line))));
          } catch {
            return redact(line);
          }
        })
        .join('\n'),
  };
}

/** A sink writing one JSON line per record to stderr. */
export const consoleSink: LogSink = (record) => {
  process.stderr.write(`${JSON.stringify(record)}\n`);
};

/** A sink that keeps records in memory (tests read them). */
export function memorySink(): LogSink & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const sink = ((r: LogRecord) => {
    records.push(r);
  }) as LogSink & { records: LogRecord[] };
  sink.records = records;
  return sink;
}
