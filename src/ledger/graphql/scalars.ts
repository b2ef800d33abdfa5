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

function jsonLiteral(node: ValueNode): unknown {
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
      return node.values.map(jsonLiteral);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((field) => [field.name.value, jsonLiteral(field.value)]));
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
function exactNumbers(value: unknown): unknown {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw inexact(String(value));
    return String(value);
  }
  if (Array.isArray(value)) return value.map(exactNumbers);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, exactNumbers(item)]));
  }
  return value;
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
