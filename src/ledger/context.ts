import type { Sql } from '../db/sql.js';
import type { Caller } from '../http/context.js';
import type { Logger } from '../http/log.js';

/** What every resolver receives. A type alias, not an interface: graphql-http requires an index signature. */
export type GqlContext = {
  sql: Sql;
  caller: Caller;
  requestId: string;
  log: Logger;
};
