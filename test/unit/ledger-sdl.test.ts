import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it, expect } from 'vitest';
import {
  buildSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  validate,
  type DocumentNode,
  type GraphQLNamedType,
} from 'graphql';

const sdl = readFileSync(new URL('../../spec/ledger.graphql', import.meta.url), 'utf8');
const schema = buildSchema(sdl);

// The SDK's package.json `exports` does not expose dist/cjs/generated/generated.js, so resolve
// the package entry point and load the generated module by its file path.
const require = createRequire(import.meta.url);
const sdkEntry = require.resolve('@fragment-dev/node-client');
const generated = require(join(dirname(sdkEntry), '../generated/generated.js')) as Record<string, unknown>;
const documents = Object.entries(generated)
  .filter(([name]) => name.endsWith('Document'))
  .map(([name, doc]) => [name, doc as DocumentNode] as const);

const namedTypes: GraphQLNamedType[] = Object.values(schema.getTypeMap()).filter(
  (t) => !isIntrospectionType(t) && !isSpecifiedScalarType(t),
);

function missingDescriptions(): string[] {
  const missing: string[] = [];
  const blank = (d: string | null | undefined) => !d || d.trim() === '';
  for (const type of namedTypes) {
    if (blank(type.description)) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (blank(field.description)) missing.push(`${type.name}.${field.name}`);
        for (const arg of field.args) {
          if (blank(arg.description)) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (blank(field.description)) missing.push(`${type.name}.${field.name}`);
      }
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) {
        if (blank(value.description)) missing.push(`${type.name}.${value.name}`);
      }
    }
  }
  return missing;
}

describe('spec/ledger.graphql', () => {
  it('builds with graphql-js buildSchema', () => {
    expect(schema.getQueryType()?.name).toBe('Query');
    expect(schema.getMutationType()?.name).toBe('Mutation');
    expect(namedTypes.length).toBeGreaterThan(200);
  });

  it('the SDK exports exactly 33 operation documents', () => {
    expect(documents).toHaveLength(33);
  });

  describe('every SDK 1.4.0 operation document validates', () => {
    it.each(documents)('%s', (_name, doc) => {
      const errors = validate(schema, doc).map((e) => e.message);
      expect(errors).toEqual([]);
    });
  });

  it('has a description on every type, field, argument, input field and enum value', () => {
    expect(missingDescriptions()).toEqual([]);
  });

  it('CurrencyCode has exactly 179 values and no SLE', () => {
    const currencyCode = schema.getType('CurrencyCode');
    expect(isEnumType(currencyCode)).toBe(true);
    if (!isEnumType(currencyCode)) return;
    const values = currencyCode.getValues().map((v) => v.name);
    expect(values).toHaveLength(179);
    expect(new Set(values).size).toBe(179);
    expect(values).not.toContain('SLE');
    expect(values).toEqual(expect.arrayContaining(['USD', 'EUR', 'CUSTOM', 'LOGICAL', 'SLL']));
  });

  it('UTCOffset is a scalar whose description mentions minutes', () => {
    const utcOffset = schema.getType('UTCOffset');
    expect(isScalarType(utcOffset)).toBe(true);
    expect(utcOffset?.description ?? '').toMatch(/minutes/i);
  });
});
