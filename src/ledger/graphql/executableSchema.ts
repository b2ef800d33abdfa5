import fs from 'node:fs';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { GraphQLScalarType, Kind, type GraphQLSchema } from 'graphql';
import { SDL_PATH } from '../../http/contracts.js';
import { resolvers } from '../resolvers/index.js';
import { scalarResolvers } from './scalars.js';

/** spec/ledger.graphql with Tally's resolvers; building it checks every resolver names a real field. */
export function buildLedgerSchema(): GraphQLSchema {
  const schema = makeExecutableSchema({
    typeDefs: fs.readFileSync(SDL_PATH, 'utf8'),
    resolvers: [scalarResolvers, resolvers],
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
  // A scalar's implementation replaces its SDL definition; its @specifiedBy URL comes back from the SDL.
  for (const type of Object.values(schema.getTypeMap())) {
    const url =
      type.astNode?.kind === Kind.SCALAR_TYPE_DEFINITION
        ? type.astNode.directives?.find((directive) => directive.name.value === 'specifiedBy')?.arguments?.[0]?.value
        : undefined;
    if (type instanceof GraphQLScalarType && url?.kind === Kind.STRING) type.specifiedByURL = url.value;
  }
  return schema;
}
