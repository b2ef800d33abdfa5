import { GraphQLError, type GraphQLErrorOptions } from 'graphql';

/**
 * A GraphQLError standing in for another at the same place of the document: its nodes, source
 * positions and path. graphql-jit's errors carry their locations without the AST nodes graphql-js
 * derives them from, so those locations are copied as they are.
 */
export function replacedError(
  original: GraphQLError,
  message: string,
  options: Pick<GraphQLErrorOptions, 'extensions' | 'originalError'>,
): GraphQLError {
  const replacement = new GraphQLError(message, {
    nodes: original.nodes,
    source: original.source,
    positions: original.positions,
    path: original.path,
    ...options,
  });
  // `locations` is a plain own property of every GraphQLError; its type only marks it read-only.
  if (replacement.locations === undefined && original.locations !== undefined) {
    Object.assign(replacement, { locations: original.locations });
  }
  return replacement;
}
