import fs from 'node:fs';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { SDL_PATH } from '../http/contracts.js';
import { pendingResolvers } from './pending.js';
import { resolvers } from './resolvers/index.js';
import { scalarResolvers } from './scalars.js';

/** spec/ledger.graphql with Tally's resolvers; building it checks every resolver names a real field. */
export function buildLedgerSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: fs.readFileSync(SDL_PATH, 'utf8'),
    resolvers: [scalarResolvers, pendingResolvers(), resolvers as never],
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
}
