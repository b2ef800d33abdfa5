import fs from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { mutateJson } from './jsonMutations.js';
import { HOSTILE_STRINGS, type Random } from './random.js';
import { encodePathSegment, type HttpCase } from './restCases.js';

// Bad requests to the sandbox admin API (spec/sandbox.openapi.yaml) and bad X-Tally-Fault headers
// on the other APIs. None may change anything: wrong or borrowed admin tokens, workspaces that
// do not exist, bodies the contract refuses, snapshots and rules that do not exist, faults that
// are not Faults. The world's own workspace is named only where the request must still be refused.

type Json = Record<string, any>;
type Operation = { operationId: string; method: string; template: string; bodyRef?: string; examples: unknown[] };

const SPEC_URL = new URL('../../spec/sandbox.openapi.yaml', import.meta.url);

export type SandboxWorld = { adminToken: string; clientToken: string; workspaceId: string };

export function sandboxCaseGenerator(world: SandboxWorld) {
  const spec = parseYaml(fs.readFileSync(SPEC_URL, 'utf8')) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  ajv.addSchema(spec, 'sandbox');
  const operations: Operation[] = Object.entries<Json>(spec.paths).flatMap(([template, item]) =>
    Object.entries<Json>(item)
      .filter(([, operation]) => operation?.operationId)
      .map(([method, operation]) => {
        const media = operation.requestBody?.content?.['application/json'];
        return {
          operationId: operation.operationId as string,
          method: method.toUpperCase(),
          template,
          bodyRef: media ? `sandbox#${String(media.schema.$ref).slice(1)}` : undefined,
          examples: Object.values<Json>(media?.examples ?? {}).map((example) => example.value),
        };
      }),
  );
  const invalid = (ref: string, body: unknown) => !ajv.validate({ $ref: ref }, body);
  const admin = { authorization: `Bearer ${world.adminToken}`, 'content-type': 'application/json' };

  const fill = (operation: Operation, workspaceId: string, random: Random) =>
    `/sandbox${operation.template
      .replace('{workspace_id}', encodePathSegment(workspaceId))
      .replace('{name}', encodePathSegment(random.pick(['missing', 'x', ...HOSTILE_STRINGS.filter(Boolean)])))
      .replace(
        '{fault_id}',
        encodePathSegment(random.pick(['fault_00000000000000000000000000', ...HOSTILE_STRINGS.filter(Boolean)])),
      )}`;

  /** A body the contract refuses, mutated from one of the operation's examples. */
  const refusedBody = (operation: Operation, random: Random): unknown => {
    const base = operation.examples.length > 0 ? random.pick(operation.examples) : {};
    for (let attempt = 0; attempt < 20; attempt++) {
      const { value } = mutateJson(base, random);
      if (invalid(operation.bodyRef!, value)) return value;
    }
    return [base];
  };

  /** Any operation without the admin token: none, wrong, or an API client's. */
  const withoutAdminToken = (operation: Operation, random: Random): HttpCase => {
    const authorization = random.pick([
      '',
      `Bearer ${world.clientToken}`,
      `Bearer ${world.adminToken}x`,
      'Bearer ',
      'Basic YTpi',
    ]);
    return {
      kind: 'sandbox:bad-admin-token',
      operation: operation.operationId,
      method: operation.method,
      path: fill(operation, world.workspaceId, random),
      headers: { authorization, 'content-type': 'application/json' },
      body: operation.bodyRef ? JSON.stringify(random.pick(operation.examples)) : undefined,
      writes: operation.method !== 'GET',
    };
  };

  const generators: ((random: Random) => HttpCase)[] = [
    (random) => withoutAdminToken(random.pick(operations), random),
    // Any operation on a workspace that does not exist (or an id no workspace could have).
    (random) => {
      const operation = random.pick(operations.filter((o) => o.template.includes('{workspace_id}')));
      const workspaceId = random.pick([
        'ws_00000000000000000000000000',
        `${world.workspaceId}x`,
        ...HOSTILE_STRINGS.filter(Boolean),
      ]);
      return {
        kind: 'sandbox:foreign-workspace',
        operation: operation.operationId,
        method: operation.method,
        path: fill(operation, workspaceId, random),
        headers: admin,
        body: operation.bodyRef ? JSON.stringify(random.pick(operation.examples)) : undefined,
        writes: operation.method !== 'GET',
      };
    },
    // Bodies the contract refuses, on the world's own workspace.
    (random) => {
      const operation = random.pick(operations.filter((o) => o.bodyRef));
      return {
        kind: 'sandbox:refused-body',
        operation: operation.operationId,
        method: operation.method,
        path: fill(operation, world.workspaceId, random),
        headers: admin,
        body: JSON.stringify(refusedBody(operation, random)),
        writes: true,
      };
    },
    // Snapshots and rules that do not exist, on the world's own workspace.
    (random) => {
      const operation = random.pick(
        operations.filter((o) =>
          ['restoreSandboxSnapshot', 'deleteSandboxSnapshot', 'deleteSandboxFault'].includes(o.operationId),
        ),
      );
      return {
        kind: 'sandbox:missing-object',
        operation: operation.operationId,
        method: operation.method,
        path: fill(operation, world.workspaceId, random),
        headers: admin,
        writes: true,
      };
    },
    // X-Tally-Fault headers that are not Faults, on both other APIs.
    (random) => {
      const fault = refusedBody(
        {
          operationId: '',
          method: '',
          template: '',
          bodyRef: 'sandbox#/components/schemas/Fault',
          examples: [
            { type: 'drop', when: 'after_commit' },
            { type: 'error', code: 'internal_error' },
          ],
        },
        random,
      );
      const header = random.chance(0.2)
        ? random.pick(['{', 'null', '"drop"', '{"type":"error","code":"teapot"}'])
        : asciiJson(fault);
      const graphql = random.chance(0.5);
      return {
        kind: 'sandbox:bad-fault-header',
        operation: graphql ? 'addLedgerEntry' : 'createInvoice',
        method: 'POST',
        path: graphql ? '/graphql' : '/billing/invoices',
        headers: {
          authorization: `Bearer ${world.clientToken}`,
          'content-type': 'application/json',
          'x-tally-fault': header,
        },
        body: graphql
          ? JSON.stringify({
              query:
                'mutation { addLedgerEntry(ik: "fuzz-fault", entry: { ledger: { ik: "fuzz-none" }, lines: [] }) { __typename } }',
            })
          : JSON.stringify({ invoice_id: 'fuzz-fault', line_items: [] }),
        writes: true,
      };
    },
  ];

  return {
    operationIds: operations.map((operation) => operation.operationId),
    /** Case k of the first operationIds.length sandbox cases: one per operation, so each is reached. */
    cover: (index: number, random: Random): HttpCase => withoutAdminToken(operations[index], random),
    next: (random: Random): HttpCase => random.pick(generators)(random),
  };
}

/** JSON that fits in an HTTP header: characters beyond ASCII written as \u escapes. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
