import { GraphQLError, parseValue } from 'graphql';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_NESTING, scalarResolvers } from '../../src/ledger/graphql/scalars.js';

// The JSON scalars refuse values nested past MAX_JSON_NESTING with a typed error, from variables
// and from literals alike, before any recursion over them can run out of stack.

/** Arrays and objects in turn, `depth` levels deep, around one string. */
function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { v: value };
  return value;
}

function refusal(run: () => unknown): GraphQLError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GraphQLError);
    return error as GraphQLError;
  }
  throw new Error('accepted');
}

describe('the JSON scalar', () => {
  const json = scalarResolvers.JSON;

  it('takes values nested up to the limit, from variables and literals', () => {
    const deepest = nested(MAX_JSON_NESTING);
    expect(json.parseValue(deepest)).toEqual(deepest);
    expect(json.parseLiteral(parseValue(JSON.stringify(deepest).replace(/"v":/g, 'v:')))).toEqual(deepest);
  });

  it.each([MAX_JSON_NESTING + 1, 20_000])(
    'refuses a value nested %i levels deep as invalid_input_provided',
    (depth) => {
      const error = refusal(() => json.parseValue(nested(depth)));
      expect(error.extensions.code).toBe('invalid_input_provided');
      expect(error.message).toContain(`at most ${MAX_JSON_NESTING} levels`);
    },
  );

  it('refuses a literal nested past the limit', () => {
    const literal = parseValue(JSON.stringify(nested(MAX_JSON_NESTING + 1)).replace(/"v":/g, 'v:'));
    expect(refusal(() => json.parseLiteral(literal)).extensions.code).toBe('invalid_input_provided');
  });

  it('counts only arrays and objects: long flat values are fine', () => {
    const wide = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, [i, String(i)]]));
    expect(json.parseValue(wide)).toMatchObject({ k499: ['499', '499'] });
  });
});
