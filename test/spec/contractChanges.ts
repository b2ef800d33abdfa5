import fs from 'node:fs';
import path from 'node:path';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { apiDiff } from 'api-smart-diff';
import { buildSchema } from 'graphql';
import { parse as parseYaml } from 'yaml';

// The breaking-change gate: spec/ against the last released contract in spec/released/, with
// graphql-inspector for the SDL and api-smart-diff for the OpenAPI document. A breaking change
// passes only when spec/breaking-changes.yaml lists it, word for word, with a reason.

const root = path.resolve(import.meta.dirname, '../..');
export const CONTRACTS = {
  billing: { current: 'spec/billing.openapi.yaml', released: 'spec/released/billing.openapi.yaml' },
  ledger: { current: 'spec/ledger.graphql', released: 'spec/released/ledger.graphql' },
  sandbox: { current: 'spec/sandbox.openapi.yaml', released: 'spec/released/sandbox.openapi.yaml' },
} as const;
export type Contract = keyof typeof CONTRACTS;
export const ALLOWED_FILE = 'spec/breaking-changes.yaml';

const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** Breaking changes of the SDL, as graphql-inspector words them. */
export async function ledgerBreakingChanges(releasedSdl: string, currentSdl: string): Promise<string[]> {
  const changes = await diff(buildSchema(releasedSdl), buildSchema(currentSdl));
  return changes.filter((change) => change.criticality.level === CriticalityLevel.Breaking).map((change) => change.message);
}

/**
 * Breaking changes of an OpenAPI document (billing, sandbox), as api-smart-diff words them. Its findings inside
 * `components` repeat the ones it reports where paths use them, so only those count (security
 * schemes excepted: no path names them).
 */
export function openApiBreakingChanges(released: unknown, current: unknown): string[] {
  const found = apiDiff(released, current) as unknown as { diffs?: Finding[] } | Finding[];
  const findings = Array.isArray(found) ? found : found.diffs ?? [];
  return [...new Set(findings
    .filter((finding) => finding.type === 'breaking' && (finding.path[0] !== 'components' || finding.path[1] === 'securitySchemes'))
    .map((finding) => finding.description ?? `[${finding.action}] ${finding.path.join('/')}`))];
}
type Finding = { type: string; action: string; path: (string | number)[]; description?: string };

export type AllowedChange = { change: string; reason: string };

export function allowedChanges(): Record<Contract, AllowedChange[]> {
  const listed = (parseYaml(read(ALLOWED_FILE)) ?? {}) as Partial<Record<Contract, AllowedChange[] | null>>;
  return { billing: listed.billing ?? [], ledger: listed.ledger ?? [], sandbox: listed.sandbox ?? [] };
}

/** Every breaking change of spec/ against spec/released/, per contract. */
export async function breakingChanges(): Promise<Record<Contract, string[]>> {
  return {
    billing: openApiBreakingChanges(parseYaml(read(CONTRACTS.billing.released)), parseYaml(read(CONTRACTS.billing.current))),
    ledger: await ledgerBreakingChanges(read(CONTRACTS.ledger.released), read(CONTRACTS.ledger.current)),
    sandbox: openApiBreakingChanges(parseYaml(read(CONTRACTS.sandbox.released)), parseYaml(read(CONTRACTS.sandbox.current))),
  };
}

/** Makes spec/ the released contract: copies it to spec/released/ and empties the allowed list. */
export function releaseContract(): void {
  for (const { current, released } of Object.values(CONTRACTS)) fs.copyFileSync(path.join(root, current), path.join(root, released));
  const header = read(ALLOWED_FILE).split('\n').filter((line) => line.startsWith('#')).join('\n');
  fs.writeFileSync(path.join(root, ALLOWED_FILE), `${header}\nbilling: []\nledger: []\nsandbox: []\n`);
}

if (process.argv[1] === import.meta.filename && process.argv[2] === 'release') {
  releaseContract();
  console.log(`spec/released/ now holds the contract of spec/; ${ALLOWED_FILE} lists no breaking change`);
}
