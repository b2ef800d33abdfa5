import {
  getNamedType,
  isAbstractType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

// Checks a GraphQL response's `data` against the document and the SDL: every selected field is
// present (aliases honoured), nulls only where the type allows them, lists are lists, enum values
// exist, scalars parse with the schema's own scalar, and `__typename` names a possible type.
// It catches a hand-written example that no server could have produced.

export function responseShapeProblems(schema: GraphQLSchema, document: DocumentNode, data: unknown): string[] {
  const problems: string[] = [];
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) return ['no operation in the document'];
  const root = operation.operation === OperationTypeNode.MUTATION ? schema.getMutationType() : schema.getQueryType();
  if (data === null || data === undefined) return [];
  checkSelection(schema, root!, operation.selectionSet, data, 'data', problems);
  return problems;
}

function checkSelection(
  schema: GraphQLSchema,
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  value: unknown,
  path: string,
  problems: string[],
): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(`${path}: expected an object of type ${type.name}`);
    return;
  }
  const object = value as Record<string, unknown>;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition?.name.value;
      const applies =
        !condition ||
        condition === type.name ||
        (schema.getType(condition) &&
          isAbstractType(schema.getType(condition)!) &&
          schema.isSubType(schema.getType(condition) as never, type));
      if (applies) checkSelection(schema, type, selection.selectionSet, value, path, problems);
      continue;
    }
    if (selection.kind !== Kind.FIELD) continue;
    checkField(schema, type, selection, object, path, problems);
  }
}

function checkField(
  schema: GraphQLSchema,
  parent: GraphQLObjectType,
  field: FieldNode,
  object: Record<string, unknown>,
  path: string,
  problems: string[],
): void {
  const key = field.alias?.value ?? field.name.value;
  const here = `${path}.${key}`;
  if (!(key in object)) {
    problems.push(`${here}: missing`);
    return;
  }
  if (field.name.value === '__typename') {
    if (object[key] !== parent.name) problems.push(`${here}: ${String(object[key])} is not ${parent.name}`);
    return;
  }
  const definition = parent.getFields()[field.name.value];
  if (!definition) {
    problems.push(`${here}: ${parent.name} has no field ${field.name.value}`);
    return;
  }
  checkValue(schema, definition.type, field, object[key], here, problems);
}

function checkValue(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  field: FieldNode,
  value: unknown,
  path: string,
  problems: string[],
): void {
  if (value === null) {
    if (isNonNullType(type)) problems.push(`${path}: null for non-null ${String(type)}`);
    return;
  }
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (!Array.isArray(value)) problems.push(`${path}: expected a list`);
    else value.forEach((item, index) => checkValue(schema, inner.ofType, field, item, `${path}[${index}]`, problems));
    return;
  }
  const named = getNamedType(inner);
  if (isScalarType(named)) {
    try {
      named.parseValue(value);
    } catch {
      problems.push(`${path}: ${JSON.stringify(value)} is not a valid ${named.name}`);
    }
    return;
  }
  if (isEnumType(named)) {
    if (!named.getValues().some((candidate) => candidate.name === value))
      problems.push(`${path}: ${JSON.stringify(value)} is not a ${named.name}`);
    return;
  }
  const typename = (value as Record<string, unknown>)?.__typename;
  const concrete = isObjectType(named) ? named : typeof typename === 'string' ? schema.getType(typename) : undefined;
  if (!concrete || !isObjectType(concrete)) {
    // An abstract type without __typename in the selection: check the fields every member shares.
    if (isAbstractType(named)) return;
    problems.push(`${path}: cannot tell the object type`);
    return;
  }
  if (isAbstractType(named) && !schema.isSubType(named, concrete))
    problems.push(`${path}: ${concrete.name} is not a ${named.name}`);
  checkSelection(schema, concrete, field.selectionSet!, value, path, problems);
}
