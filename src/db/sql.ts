import postgres from 'postgres';

export type Sql = postgres.Sql;
/** A connection or a transaction: every query function takes one of these first. */
export type Db = postgres.Sql | postgres.TransactionSql;

export type ConnectOptions = {
  max?: number;
  /** PostgreSQL cancels any statement running longer (statement_timeout); 0 or absent: no limit. */
  statementTimeoutMs?: number;
  /** How long a query waits for a connection to open before failing (postgres.js defaults to 30 s). */
  connectTimeoutSeconds?: number;
};

export function connect(url: string, options: ConnectOptions = {}): Sql {
  const budget = options.statementTimeoutMs ?? 0;
  return postgres(url, {
    max: options.max ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 5,
    onnotice: () => {},
    // numeric and int8 arrive as strings; money stays exact until core/ turns it into bigint.
    connection: {
      application_name: 'tally',
      // Set at connection start, so a slow statement is cancelled by the server itself and a
      // transaction left open by a vanished client does not hold its locks for long.
      statement_timeout: budget,
      idle_in_transaction_session_timeout: budget > 0 ? budget * 2 : 0,
    },
  });
}
