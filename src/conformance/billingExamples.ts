import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

// Reads spec/billing.openapi.yaml into replayable example cases. A request example named N (on
// the request body or on parameters) pairs with the response example named N under exactly one
// status; an operation without input pairs each response example with an empty request.

export const SPEC_PATH = path.resolve(import.meta.dirname, '../../spec/billing.openapi.yaml');

type Json = Record<string, any>;

export type ExampleCase = {
  /** Stable id: `operationId/exampleName`. */
  id: string;
  operationId: string;
  method: string;
  /** Path template, e.g. /products/{code}. */
  path: string;
  /** True for billing routes (served under /billing and unprefixed); false for root-only routes. */
  billing: boolean;
  /** `expired`: a bearer token of the workspace's client, signed by the server, whose expiry has passed. */
  security: 'bearer' | 'basic' | 'none' | 'expired';
  mediaType?: string;
  pathParams: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
  status: number;
  response: unknown;
  description: string;
};

export function loadSpec(): Json {
  return parseYaml(fs.readFileSync(SPEC_PATH, 'utf8'));
}

export function loadExampleCases(spec: Json = loadSpec()): ExampleCase[] {
  const cases: ExampleCase[] = [];
  for (const [route, item] of Object.entries<Json>(spec.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!operation?.operationId) continue;
      const responses = responseExamples(spec, operation);
      const params = (operation.parameters ?? []).map((p: Json) => deref(spec, p));
      const [mediaType, media] = Object.entries<Json>(operation.requestBody?.content ?? {})[0] ?? [];
      const requestNames = new Set<string>([
        ...Object.keys(media?.examples ?? {}),
        ...params.flatMap((p: Json) => Object.keys(p.examples ?? {})),
      ]);
      const names = requestNames.size > 0 ? [...requestNames] : [...responses.keys()];
      const security = operation.security ?? spec.security;
      for (const name of names) {
        const response = responses.get(name);
        if (!response) throw new Error(`${operation.operationId}: request example ${name} has no response example`);
        const valueOf = (p: Json) => p.examples?.[name]?.value;
        const requestExample = media?.examples?.[name];
        cases.push({
          id: `${operation.operationId}/${name}`,
          operationId: operation.operationId,
          method: method.toUpperCase(),
          path: route,
          billing: !item['x-tally-outside-billing'],
          security:
            security.length === 0 || response.credentials === 'none'
              ? 'none'
              : response.credentials === 'expired'
                ? 'expired'
                : security.some((s: Json) => 'basicAuth' in s)
                  ? 'basic'
                  : 'bearer',
          mediaType,
          pathParams: Object.fromEntries(
            params.filter((p: Json) => p.in === 'path').map((p: Json) => [p.name, valueOf(p)]),
          ),
          query: Object.fromEntries(
            params
              .filter((p: Json) => p.in === 'query' && valueOf(p) !== undefined)
              .map((p: Json) => [p.name, String(valueOf(p))]),
          ),
          body: requestExample?.value,
          status: response.status,
          response: response.value,
          description: [requestExample?.description, response.description].filter(Boolean).join(' '),
        });
      }
    }
  }
  return cases;
}

/** Response examples of an operation by name, with the status they are declared under. */
function responseExamples(spec: Json, operation: Json) {
  const found = new Map<string, { status: number; value: unknown; description?: string; credentials?: string }>();
  for (const [status, raw] of Object.entries<Json>(operation.responses)) {
    const response = deref(spec, raw);
    for (const media of Object.values<Json>(response.content ?? {})) {
      for (const [name, example] of Object.entries<Json>(media.examples ?? {})) {
        if (found.has(name)) throw new Error(`${operation.operationId}: example ${name} appears under two statuses`);
        const resolved = deref(spec, example);
        found.set(name, {
          status: Number(status),
          value: resolved.value,
          description: example.description,
          credentials: resolved['x-tally-credentials'],
        });
      }
    }
  }
  return found;
}

function deref(spec: Json, node: Json): Json {
  if (!node?.$ref) return node;
  const target = node.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((at: Json, key: string) => at[key], spec);
  return deref(spec, target);
}
