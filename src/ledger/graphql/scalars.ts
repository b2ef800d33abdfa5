import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { scalarFormats, type StringScalar } from '../../core/scalarFormats.js';

// Custom scalars check their format on the way in, so a malformed value is a coercion error that
// names the argument, before any resolver runs. Money (Int96) is accepted only as a string.

function stringScalar(name: StringScalar): GraphQLScalarType {
  const check = (value: unknown): string => {
    const canonical = typeof value === 'string' ? scalarFormats[name](value) : undefined;
    if (canonical === undefined) {
      throw new GraphQLError(`${JSON.stringify(value)} is not a valid ${name}.`, {
        extensions: { code: 'invalid_input_provided' },
      });
    }
    return canonical;
  };
  return new GraphQLScalarType({
    name,
    serialize: (value) =>
      value instanceof Date ? value.toISOString() : typeof value === 'bigint' ? value.toString() : value,
    parseValue: check,
    parseLiteral: (node: ValueNode) =>
      check(node.kind === Kind.STRING ? node.value : node.kind === Kind.INT ? node.value : undefined),
  });
}

/** Arrays and objects nest at most this deep in a JSON value: deeper ones are refused before a recursion can run out of stack. */
export const MAX_JSON_NESTING = 100;

function tooDeep(): GraphQLError {
  return new GraphQLError(`A JSON value may nest arrays and objects at most ${MAX_JSON_NESTING} levels deep.`, {
    extensions: { code: 'invalid_input_provided' },
  });
}

function jsonLiteral(node: ValueNode, depth = 0): unknown {
  if ((node.kind === Kind.LIST || node.kind === Kind.OBJECT) && depth >= MAX_JSON_NESTING) throw tooDeep();
  switch (node.kind) {
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.INT:
      // The literal's own digits: an amount of any size stays exact.
      return BigInt(node.value).toString();
    case Kind.FLOAT:
      throw inexact(node.value);
    case Kind.BOOLEAN:
      return node.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((item) => jsonLiteral(item, depth + 1));
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((field) => [field.name.value, jsonLiteral(field.value, depth + 1)]));
    default:
      throw new GraphQLError('Variables inside JSON literals are not supported.');
  }
}

function inexact(value: string): GraphQLError {
  return new GraphQLError(`${value} cannot be taken exactly as a JSON number; send it as a string.`, {
    extensions: { code: 'invalid_input_provided' },
  });
}

/** Variables arrive through JSON.parse: safe integers become their digits, anything else inexact is refused. */
function exactNumbers(value: unknown, depth = 0): unknown {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw inexact(String(value));
    return String(value);
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_JSON_NESTING) throw tooDeep();
  if (Array.isArray(value)) return value.map((item) => exactNumbers(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, exactNumbers(item, depth + 1)]));
}

function jsonScalar(name: string, objectsOnly: boolean): GraphQLScalarType {
  const check = (value: unknown) => {
    if (objectsOnly && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw new GraphQLError(`${name} must be a JSON object.`, { extensions: { code: 'invalid_input_provided' } });
    }
    return value;
  };
  return new GraphQLScalarType({
    name,
    serialize: (value) => value,
    parseValue: (value) => check(exactNumbers(value)),
    parseLiteral: (node) => check(jsonLiteral(node)),
  });
}

export const scalarResolvers = {
  ...Object.fromEntries((Object.keys(scalarFormats) as StringScalar[]).map((name) => [name, stringScalar(name)])),
  JSON: jsonScalar('JSON', false),
  JSONObject: jsonScalar('JSONObject', true),
  Parameters: jsonScalar('Parameters', true),
};
