import { GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';
import { textProblem } from '../../core/text.js';

/**
 * Refuses string literals (plain or block, anywhere in the document) that PostgreSQL cannot
 * store: NUL and unpaired surrogates. Variables get the same check in requests.ts.
 */
export function unstorableTextRule(context: ValidationContext): ASTVisitor {
  return {
    StringValue(node) {
      const problem = textProblem(node.value);
      if (problem) {
        context.reportError(
          new GraphQLError(`A string literal ${problem}.`, {
            nodes: node,
            extensions: { code: 'invalid_input_provided' },
          }),
        );
      }
    },
  };
}
