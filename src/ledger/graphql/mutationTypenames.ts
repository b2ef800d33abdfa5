import {
  Kind,
  OperationTypeNode,
  visit,
  type DocumentNode,
  type FieldNode,
  type OperationDefinitionNode,
} from 'graphql';

// Every mutation answers a union (result or error), and the official SDKs read `__typename` on
// it to tell which. Node SDK 1.4.0's createCustomCurrency document does not select it, and
// the SDK then fails on every answer; so Tally selects `__typename` on each root field of a
// mutation that lacks it. The answer gains one field that clients which asked already receive.

const TYPENAME: FieldNode = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: '__typename' } };

export function withMutationTypenames(document: DocumentNode): DocumentNode {
  if (
    !document.definitions.some(
      (definition) =>
        definition.kind === Kind.OPERATION_DEFINITION && definition.operation === OperationTypeNode.MUTATION,
    )
  ) {
    return document;
  }
  return visit(document, {
    OperationDefinition(operation: OperationDefinitionNode) {
      if (operation.operation !== OperationTypeNode.MUTATION) return false;
      return {
        ...operation,
        selectionSet: {
          ...operation.selectionSet,
          selections: operation.selectionSet.selections.map((selection) => {
            if (selection.kind !== Kind.FIELD || !selection.selectionSet) return selection;
            const asked = selection.selectionSet.selections.some(
              (inner) => inner.kind === Kind.FIELD && inner.name.value === '__typename' && !inner.alias,
            );
            return asked
              ? selection
              : {
                  ...selection,
                  selectionSet: {
                    ...selection.selectionSet,
                    selections: [TYPENAME, ...selection.selectionSet.selections],
                  },
                };
          }),
        },
      };
    },
  });
}
