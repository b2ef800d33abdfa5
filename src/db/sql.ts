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
