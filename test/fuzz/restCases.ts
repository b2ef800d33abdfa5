import fs from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { mutateJson } from './jsonMutations.js';
import { HOSTILE_STRINGS, unstorable, type Random } from './random.js';

// Bad REST requests generated from spec/billing.openapi.yaml: every operation, both route forms.
// Bodies are valid named examples mutated until the contract's own schema (through Ajv) says
// they are invalid, or until they carry text no database can store: either must be refused.

export type HttpCase = {
  kind: string;
  operation: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The operation may write: the suite only ever sends such requests in refusable form. */
  writes: boolean;
};

type Json = Record<string, any>;
type Operation = {
  operationId: string;
  method: string;
  template: string;
  billing: boolean;
  bodySchemaRef?: string;
  bodyExamples: unknown[];
  pathParams: { name: string; examples: string[] }[];
  queryParams: { name: string; examples: string[] }[];
};

const SPEC_URL = new URL('../../spec/billing.openapi.yaml', import.meta.url);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export type RestWorld = { token: string; productCodes: string[] };

export function restCaseGenerator(world: RestWorld) {
  const spec = parseYaml(fs.readFileSync(SPEC_URL, 'utf8')) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(spec, 'spec');
  const operations = readOperations(spec);
  const billingOperations = operations.filter((operation) => operation.billing);
  // One compiled validator per body schema: Ajv keeps every schema object it is handed.
  const validators = new Map<string, ValidateFunction>();
  const invalid = (ref: string, body: unknown) => {
    let validate = validators.get(ref);
    if (!validate) validators.set(ref, (validate = ajv.compile({ $ref: ref })));
    return !validate(body);
  };

  const auth = { authorization: `Bearer ${world.token}` };
  const json = { ...auth, 'content-type': 'application/json' };

  /** A body the contract refuses, from one of the operation's examples (or an empty object). */
  function refusedBody(operation: Operation, random: Random): { body: unknown; kind: string } {
    const base = operation.bodyExamples.length > 0 ? random.pick(operation.bodyExamples) : {};
    for (let attempt = 0; attempt < 20; attempt++) {
      const { value, kind } = mutateJson(base, random);
      const hostileText = JSON.stringify(value).length < 2_000_000 && containsUnstorable(value);
      if (hostileText || invalid(operation.bodySchemaRef!, value))
        return { body: value, kind: hostileText ? 'unstorable-text' : kind };
    }
    return { body: [base], kind: 'wrong-type' };
  }

  function path(operation: Operation, random: Random, hostile: boolean): string {
    const prefix = random.pick(['/billing', '']);
    let filled = operation.template;
    for (const param of operation.pathParams) {
      const value = hostile
        ? random.pick([...HOSTILE_STRINGS, ...world.productCodes, 'missing'])
        : random.pick([...param.examples, ...world.productCodes]);
      filled = filled.replace(`{${param.name}}`, encodePathSegment(value));
    }
    const query = operation.queryParams
      .filter(() => random.chance(0.5))
      .map(
        (param) =>
          `${param.name}=${encodePathSegment(random.pick([...HOSTILE_STRINGS, ...param.examples, '-1', '201']))}`,
      );
    return `${prefix}${filled}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  }

  /** A bad request to this operation: a refused body, or hostile parameters. */
  function against(operation: Operation, random: Random): HttpCase {
    if (operation.bodySchemaRef && random.chance(0.5)) {
      const { body, kind } = refusedBody(operation, random);
      return {
        kind: `body:${kind}`,
        operation: operation.operationId,
        method: operation.method,
        path: path(operation, random, false),
        headers: json,
        body: JSON.stringify(body),
        writes: true,
      };
    }
    const body = operation.bodySchemaRef ? JSON.stringify(refusedBody(operation, random).body) : undefined;
    return {
      kind: 'hostile-parameters',
      operation: operation.operationId,
      method: operation.method,
      path: path(operation, random, true),
      headers: body ? json : auth,
      body,
      writes: Boolean(body),
    };
  }

  const generators: ((random: Random) => HttpCase)[] = [
    // Contract-breaking bodies on every operation that takes one.
    (random) => {
      const operation = random.pick(billingOperations.filter((o) => o.bodySchemaRef));
      const { body, kind } = refusedBody(operation, random);
      return {
        kind: `body:${kind}`,
        operation: operation.operationId,
        method: operation.method,
        path: path(operation, random, false),
        headers: json,
        body: JSON.stringify(body),
        writes: true,
      };
    },
    // Hostile path and query parameters on every operation (bodies, where needed, refused too).
    (random) => {
      const operation = random.pick(billingOperations.filter((o) => o.pathParams.length + o.queryParams.length > 0));
      const body = operation.bodySchemaRef ? JSON.stringify(refusedBody(operation, random).body) : undefined;
      return {
        kind: 'hostile-parameters',
        operation: operation.operationId,
        method: operation.method,
        path: path(operation, random, true),
        headers: body ? json : auth,
        body,
        writes: Boolean(body),
      };
    },
    // Transport: media types, malformed and oversized JSON, credentials, methods, unknown routes.
    (random): HttpCase => {
      const operation = random.pick(billingOperations);
      const target = path(operation, random, false);
      const variant = random.pick([
        'text-plain',
        'malformed-json',
        'oversized',
        'json-spellings',
        'no-token',
        'bad-token',
        'wrong-method',
        'unknown-route',
        'bad-percent',
      ]);
      const base = {
        operation: operation.operationId,
        method: operation.method,
        path: target,
        writes: operation.method !== 'GET',
        headers: json as Record<string, string>,
      };
      switch (variant) {
        case 'text-plain':
          return {
            ...base,
            kind: 'transport:text-plain',
            method: operation.method === 'GET' ? 'POST' : operation.method,
            headers: { ...auth, 'content-type': 'text/plain' },
            body: '{"a":1}',
          };
        case 'malformed-json':
          return {
            ...base,
            kind: 'transport:malformed-json',
            method: operation.method === 'GET' ? 'POST' : operation.method,
            headers: json,
            body: random.pick(['{', '{"a":', '[1,,]', '\u0000', '{"a":"\\ud800"']),
          };
        case 'oversized':
          return {
            ...base,
            kind: 'transport:oversized',
            method: 'POST',
            headers: json,
            body: JSON.stringify({ pad: 'x'.repeat(1_100_000) }),
          };
        case 'json-spellings':
          // Both body readers: plain JSON (the lean one, a BOM, scalars, prototype keys) and the
          // spellings that go to @koa/bodyparser (another charset, a JSON subtype).
          return {
            ...base,
            kind: 'transport:json-spellings',
            method: operation.method === 'GET' ? 'POST' : operation.method,
            headers: {
              ...auth,
              'content-type': random.pick([
                'application/json; charset=utf-8',
                'Application/JSON',
                'application/json; charset=latin1',
                'application/vnd.api+json',
              ]),
            },
            body: random.pick(['\uFEFF{}', ' ', '"x"', '[]', '{"__proto__":{"a":1}}', '\uFEFF\uFEFF{}', '{}\u0000']),
          };
        case 'no-token':
          return {
            ...base,
            kind: 'transport:no-token',
            headers: { 'content-type': 'application/json' },
            body: operation.method === 'GET' ? undefined : '{}',
          };
        case 'bad-token':
          return {
            ...base,
            kind: 'transport:bad-token',
            headers: {
              'content-type': 'application/json',
              authorization: random.pick([
                'Bearer ',
                'Bearer tly1.e30.AAAA',
                `Bearer ${world.token}x`,
                'Basic Zm9vOmJhcg==',
                `Bearer ${'a'.repeat(8000)}`,
              ]),
            },
            body: operation.method === 'GET' ? undefined : '{}',
          };
        case 'wrong-method':
          return {
            ...base,
            kind: 'transport:wrong-method',
            method: random.pick(['PUT', 'DELETE', 'PATCH', 'OPTIONS']),
            headers: json,
            body: '{"zz_unknown":1}',
          };
        case 'unknown-route':
          return {
            ...base,
            kind: 'transport:unknown-route',
            path: `${random.pick(['/billing', ''])}/${random.pick(['nowhere', 'invoices/x/y/z', '%2e%2e/etc', 'graphql/x'])}`,
            headers: json,
            body: '{}',
          };
        default:
          return {
            ...base,
            kind: 'transport:bad-percent',
            path: `${random.pick(['/billing', ''])}/products/${random.pick(['%', '%E0%A4%A', '%ED%A0%80', '%C0%AF'])}`,
            headers: auth,
          };
      }
    },
    // The token endpoint: malformed credentials and forms.
    (random): HttpCase => {
      const authorization = random.pick<string | undefined>([
        undefined,
        'Basic',
        'Basic !!!',
        'Basic Og==',
        `Basic ${Buffer.from('a\u0000b:c').toString('base64')}`,
        `Basic ${Buffer.from('%zz:x').toString('base64')}`,
        'Bearer x',
      ]);
      // Form credentials (client_secret_post) too: unknown, empty, NUL, doubled, beside a Basic header.
      const body = random.pick([
        '',
        'grant_type=password',
        'grant_type=client_credentials&x=1',
        'grant_type[]=client_credentials',
        'grant_type=client_credentials&scope=%00',
        'a=1&a=2',
        'grant_type=client_credentials&client_id=nobody&client_secret=x',
        'grant_type=client_credentials&client_id=&client_secret=',
        'grant_type=client_credentials&client_id=a%00b&client_secret=c',
        'grant_type=client_credentials&client_id=a&client_id=b&client_secret=c',
        'grant_type=client_credentials&client_secret=only',
        `grant_type=client_credentials&client_id=${'i'.repeat(5000)}&client_secret=s`,
      ]);
      return {
        kind: 'token',
        operation: 'createAccessToken',
        method: 'POST',
        path: '/oauth2/token',
        writes: false,
        body,
        headers: {
          'content-type': random.pick(['application/x-www-form-urlencoded', 'application/json', 'text/plain']),
          ...(authorization ? { authorization } : {}),
        },
      };
    },
  ];

  return {
    operationIds: billingOperations.map((operation) => operation.operationId),
    /** Case k of the first operationIds.length cases: one per operation, so each is reached. */
    cover: (k: number, random: Random) => against(billingOperations[k], random),
    next(random: Random): HttpCase {
      return random.pick(generators)(random);
    },
  };
}

function readOperations(spec: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(spec.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation?.operationId) continue;
      const params = (operation.parameters ?? []).map((param: Json) => deref(spec, param));
      const examplesOf = (param: Json) =>
        Object.values<Json>(param.examples ?? {}).map((example) => String(example.value));
      const media = operation.requestBody?.content?.['application/json'];
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        template,
        billing: !item['x-tally-outside-billing'],
        bodySchemaRef: media
          ? `spec#/paths/${escapePointer(template)}/${method}/requestBody/content/application~1json/schema`
          : undefined,
        bodyExamples: Object.values<Json>(media?.examples ?? {}).map((example) => deref(spec, example).value),
        pathParams: params
          .filter((p: Json) => p.in === 'path')
          .map((p: Json) => ({ name: p.name, examples: examplesOf(p) })),
        queryParams: params
          .filter((p: Json) => p.in === 'query')
          .map((p: Json) => ({ name: p.name, examples: examplesOf(p) })),
      });
    }
  }
  return operations;
}

function deref(spec: Json, node: Json): Json {
  if (!node?.$ref) return node;
  return deref(
    spec,
    node.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((at: Json, key: string) => at[key.replaceAll('~1', '/').replaceAll('~0', '~')], spec),
  );
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Percent-encodes as a client would; an unpaired surrogate (which has no UTF-8) becomes its CESU bytes. */
export function encodePathSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...value]
      .map((ch) => {
        const code = ch.charCodeAt(0);
        if (code >= 0xd800 && code <= 0xdfff)
          return `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
        return encodeURIComponent(ch);
      })
      .join('');
  }
}

function containsUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return unstorable(value);
  if (Array.isArray(value)) return value.some(containsUnstorable);
  if (value && typeof value === 'object')
    return Object.entries(value).some(([key, item]) => unstorable(key) || containsUnstorable(item));
  return false;
}
