import {
  coerceInputValue,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { ATTACKS } from '../support/graphqlAttacks.js';
import { mutateJson } from './jsonMutations.js';
import { HOSTILE_STRINGS, unstorable, type Random } from './random.js';
import type { HttpCase } from './restCases.js';

// Bad GraphQL requests generated from the ledger schema: every Query and Mutation field with
// variables of its arguments' types. Mutations only ever get variables that fail coercion (checked
// here with graphql's own coerceInputValue and Tally's scalars) or carry text no database can
// store; queries also get hostile values that coerce (reads change nothing).

export type GraphqlWorld = { token: string; cursors: string[] };

const SAMPLE_SCALARS: Record<string, (random: Random) => unknown> = {
  SafeString: (random) => `fz${random.int(0, 9999)}`,
  String: (random) => random.pick(['text', 'Main ledger', 'é']),
  ID: (random) => `id_${random.int(0, 99)}`,
  Int: (random) => random.int(0, 50),
  Float: () => 1.5,
  Boolean: (random) => random.chance(0.5),
  Int96: (random) => String(random.int(-1000, 1000)),
  Int64: () => '1',
  DateTime: () => '2026-11-24T00:00:00Z',
  Date: () => '2026-11-24',
  UTCOffset: (random) => random.pick(['+00:00', '+05:30', '-09:30']),
  Period: () => '2026-11',
  PeriodFilter: () => '2026',
  FirstMoment: () => '2026-11',
  LastMoment: () => '2026-11',
  JSON: () => ({ a: 1 }),
  JSONObject: () => ({}),
  Parameters: () => ({}),
  ParameterizedString: () => 'x',
  AlphaNumericString: () => 'abc',
};

function sampleValue(type: GraphQLInputType, random: Random, depth = 0): unknown {
  if (isNonNullType(type)) return sampleValue(type.ofType, random, depth);
  if (isListType(type)) return depth > 4 ? [] : [sampleValue(type.ofType, random, depth + 1)];
  if (isEnumType(type)) return random.pick(type.getValues()).name;
  if (isInputObjectType(type)) {
    const value: Record<string, unknown> = {};
    for (const field of Object.values(type.getFields())) {
      if (isNonNullType(field.type) || (depth < 3 && random.chance(0.3)))
        value[field.name] = sampleValue(field.type, random, depth + 1);
    }
    return value;
  }
  return (SAMPLE_SCALARS[type.name] ?? (() => 'x'))(random);
}

function selectionOf(field: GraphQLField<unknown, unknown>): string {
  const type = getNamedType(field.type);
  if (isUnionType(type)) {
    const errors = type.getTypes().filter((member) => ['BadRequestError', 'InternalError'].includes(member.name));
    return `{ __typename ${errors.map((member) => `... on ${member.name} { code }`).join(' ')} }`;
  }
  return isObjectType(type) || isInterfaceType(type) ? '{ __typename }' : '';
}

/** True when the variables cannot reach the resolver: a required one missing, or one failing coercion. */
function refusedBeforeExecution(args: readonly GraphQLArgument[], variables: Record<string, unknown>): boolean {
  if (containsUnstorable(variables)) return true;
  return args.some((arg) => {
    const value = variables[arg.name];
    if (value === undefined || value === null) return isNonNullType(arg.type);
    let failed = false;
    try {
      coerceInputValue(value, arg.type, () => {
        failed = true;
      });
    } catch {
      failed = true;
    }
    return failed;
  });
}

export function graphqlCaseGenerator(schema: GraphQLSchema, world: GraphqlWorld) {
  const roots = [
    ...Object.values(schema.getQueryType()!.getFields()).map((field) => ({ field, operation: 'query' as const })),
    ...Object.values(schema.getMutationType()!.getFields()).map((field) => ({ field, operation: 'mutation' as const })),
  ];
  const headers = {
    authorization: `Bearer ${world.token}`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  const post = (
    kind: string,
    operation: string,
    body: unknown,
    writes: boolean,
    extra: Record<string, string> = {},
  ): HttpCase => ({
    kind,
    operation,
    method: 'POST',
    path: '/graphql',
    headers: { ...headers, ...extra },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    writes,
  });

  function documentFor(root: (typeof roots)[number]): string {
    const { field, operation } = root;
    const declared = field.args.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(', ');
    const passed = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
    return `${operation} Fuzz${declared ? `(${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''} ${selectionOf(field)} }`;
  }

  function variablesFor(
    root: (typeof roots)[number],
    random: Random,
  ): { variables: Record<string, unknown>; kind: string } {
    const base = Object.fromEntries(
      root.field.args
        .filter((arg) => isNonNullType(arg.type) || random.chance(0.5))
        .map((arg) => [
          arg.name,
          ['after', 'before'].includes(arg.name) ? hostileCursor(random) : sampleValue(arg.type, random),
        ]),
    );
    if (root.operation === 'query' && random.chance(0.5))
      return { variables: withHostileStrings(base, random), kind: 'hostile-values' };
    for (let attempt = 0; attempt < 20; attempt++) {
      const { value, kind } = mutateJson(base, random);
      const variables = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<
        string,
        unknown
      >;
      if (refusedBeforeExecution(root.field.args, variables)) return { variables, kind };
    }
    return { variables: { ...base, [root.field.args[0]?.name ?? 'x']: { zz: [] } }, kind: 'wrong-type' };
  }

  function hostileCursor(random: Random): string {
    const real = world.cursors.length > 0 ? random.pick(world.cursors) : 'e30.AAAA';
    return random.pick([
      real.slice(0, -3),
      `${real}x`,
      real.replace(/^./, 'Z'),
      real.split('.')[0],
      Buffer.from('["1970-01-01T00:00:00Z","x"]').toString('base64url'),
      random.pick(HOSTILE_STRINGS),
      real,
    ]);
  }

  function withHostileStrings(variables: Record<string, unknown>, random: Random): Record<string, unknown> {
    return JSON.parse(JSON.stringify(variables), (_key, value) =>
      typeof value === 'string' && random.chance(0.5) ? random.pick(HOSTILE_STRINGS) : value,
    );
  }

  const against = (root: (typeof roots)[number], random: Random) => {
    const { variables, kind } = variablesFor(root, random);
    return post(
      `${root.operation}:${kind}`,
      root.field.name,
      { query: documentFor(root), variables },
      root.operation === 'mutation',
    );
  };

  const generators: ((random: Random) => HttpCase)[] = [
    // Every root field with bad (mutations) or hostile (queries) variables.
    (random) => against(random.pick(roots), random),
    // Documents that are not valid, or that exceed a limit.
    (random) => {
      const root = random.pick(roots);
      const document = documentFor(root);
      const variant = random.pick(['truncated', 'unknown-field', 'attack', 'literal-overflow', 'unstorable-literal']);
      const query =
        variant === 'truncated'
          ? document.slice(0, random.int(1, document.length - 1))
          : variant === 'unknown-field'
            ? document.replace('__typename', `__typename zz_${random.int(0, 99)}`).replace(/\}\s*$/, ' nope }')
            : variant === 'attack'
              ? random.pick(Object.values(ATTACKS))
              : variant === 'literal-overflow'
                ? `{ ledgers(first: ${random.pick(['2147483648', '-1', '201', '1e3', '"20"'])}) { nodes { id } } }`
                : `mutation { createLedger(ik: "fz", ledger: { name: "${random.pick(['a\\u0000b', '\\ud800', 'x\\udc00y'])}" }) { __typename } }`;
      return post(`document:${variant}`, root.field.name, { query, variables: {} }, true);
    },
    // Transport: batches, non-object variables, methods, media types, credentials, sizes.
    (random): HttpCase => {
      const mutation = 'mutation { createLedger(ik: "fz-transport", ledger: { name: "x" }) { __typename } }';
      const variant = random.pick([
        'batch',
        'variables-not-object',
        'get-mutation',
        'text-plain',
        'accept-html',
        'oversized',
        'no-token',
        'bad-token',
        'put',
        'malformed-json',
      ]);
      switch (variant) {
        case 'batch':
          return post('transport:batch', 'createLedger', [{ query: mutation }, { query: mutation }], true);
        case 'variables-not-object':
          return post(
            'transport:variables',
            'createLedger',
            { query: mutation, variables: random.pick([[1], 'x', 5, true]) },
            true,
          );
        case 'get-mutation':
          return {
            kind: 'transport:get-mutation',
            operation: 'createLedger',
            method: 'GET',
            path: `/graphql?query=${encodeURIComponent(mutation)}`,
            headers,
            writes: true,
          };
        case 'text-plain':
          return post('transport:text-plain', 'createLedger', mutation, true, { 'content-type': 'text/plain' });
        case 'accept-html':
          return post('transport:accept', 'createLedger', { query: mutation }, true, { accept: 'text/html' });
        case 'oversized':
          return post(
            'transport:oversized',
            'createLedger',
            { query: mutation, variables: { pad: 'x'.repeat(1_100_000) } },
            true,
          );
        case 'no-token':
          return post('transport:no-token', 'createLedger', { query: mutation }, true, { authorization: '' });
        case 'bad-token':
          return post('transport:bad-token', 'createLedger', { query: mutation }, true, {
            authorization: `Bearer ${world.token.slice(0, -2)}`,
          });
        case 'put':
          return { ...post('transport:put', 'createLedger', { query: mutation }, true), method: 'PUT' };
        default:
          return post('transport:malformed-json', 'createLedger', '{"query": "mutation {', true);
      }
    },
  ];

  return {
    fields: roots.map((root) => `${root.operation === 'query' ? 'Query' : 'Mutation'}.${root.field.name}`),
    /** Case k of the first fields.length cases: one per root field, so each is reached. */
    cover: (k: number, random: Random) => against(roots[k], random),
    next: (random: Random) => random.pick(generators)(random),
  };
}

function containsUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return unstorable(value);
  if (Array.isArray(value)) return value.some(containsUnstorable);
  if (value && typeof value === 'object')
    return Object.entries(value).some(([key, item]) => unstorable(key) || containsUnstorable(item));
  return false;
}
