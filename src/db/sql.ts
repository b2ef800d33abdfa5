import postgres from 'postgres';

export type Sql = postgres.Sql;
/** A connection or a transaction: every query function takes one of these first. */
export type Db = postgres.Sql | postgres.TransactionSql;

export function connect(url: string, options: { max?: number } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    // numeric and int8 arrive as strings; money stays exact until core/ turns it into bigint.
    connection: { application_name: 'tally' },
  });
}

/** The PostgreSQL error code and constraint name, when `error` came from the server. */
export function constraintOf(error: unknown): { code: string; constraint?: string } | undefined {
  if (error instanceof postgres.PostgresError) {
    return { code: error.code, constraint: error.constraint_name };
  }
  return undefined;
}
