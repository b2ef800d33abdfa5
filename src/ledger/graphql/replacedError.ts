import { GraphQLError, type GraphQLErrorOptions } from 'graphql';

/** A GraphQLError standing in for another at the same place of the document: its nodes, source positions and path. */
export function replacedError(
  original: GraphQLError,
  message: string,
  options: Pick<GraphQLErrorOptions, 'extensions' | 'originalError'>,
): GraphQLError {
  return new GraphQLError(message, {
    nodes: original.nodes,
    source: original.source,
    positions: original.positions,
    path: original.path,
    ...options,
  });
}
