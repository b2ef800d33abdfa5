import postgres from 'postgres';

// Which database errors mean the database is away rather than the request wrong: the API answers
// them with a retryable 503, and group commit does not write a group's items again one by one
// when no connection can be opened at all.

// The database is away: either no connection can be opened now (refused, timed out, starting
// up, full), or one connection was lost (a terminated backend, a reset socket) that another may
// not share. Both are retryable, never a 500.
const CANNOT_CONNECT_CODES = [
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
];
const CANNOT_CONNECT_SQLSTATES = ['57P03', '53300'];
const LOST_CONNECTION_CODES = ['ECONNRESET', 'EPIPE', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED'];
const LOST_CONNECTION_SQLSTATES = ['57P01', '57P02']; // plus class 08, connection exceptions

/** The error's code, and whether it is a SQLSTATE from PostgreSQL rather than the driver's or the socket's. */
function databaseCode(error: unknown): { code: string; sqlState: boolean } | undefined {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? { code, sqlState: error instanceof postgres.PostgresError } : undefined;
}

/** Whether the error says no connection can be opened now, unlike the loss of one connection. */
export function cannotConnect(error: unknown): boolean {
  const found = databaseCode(error);
  if (!found) return false;
  return (found.sqlState ? CANNOT_CONNECT_SQLSTATES : CANNOT_CONNECT_CODES).includes(found.code);
}

/** Whether the error says the database is away (down, restarting, unreachable, out of connections, a connection lost). */
export function databaseUnavailable(error: unknown): boolean {
  if (cannotConnect(error)) return true;
  const found = databaseCode(error);
  if (!found) return false;
  if (found.sqlState) return LOST_CONNECTION_SQLSTATES.includes(found.code) || found.code.startsWith('08');
  return LOST_CONNECTION_CODES.includes(found.code);
}
