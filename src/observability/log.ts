// One JSON object per line on stdout: what log shippers and `jq` both read without configuration.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Logger = {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
};

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(line),
): Logger {
  const emit =
    (at: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (RANK[at] < RANK[level]) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level: at, msg: message, ...fields })}\n`);
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
