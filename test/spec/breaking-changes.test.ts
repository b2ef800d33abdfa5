import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { allowedChanges, openApiBreakingChanges, breakingChanges, CONTRACTS, ledgerBreakingChanges, type Contract } from './contractChanges.js';

// The breaking-change gate (see contractChanges.ts): spec/ may differ from spec/released/ only by
// additions, or by breaking changes spec/breaking-changes.yaml lists with a reason.

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

describe('breaking changes against spec/released/', () => {
  it('every breaking change of either contract is listed in spec/breaking-changes.yaml with a reason', async () => {
    const found = await breakingChanges();
    const allowed = allowedChanges();
    const unlisted = (Object.keys(found) as Contract[]).flatMap((contract) => found[contract]
      .filter((change) => !allowed[contract].some((entry) => entry.change === change))
      .map((change) => `${contract}: ${change}`));
    expect(unlisted, 'breaking changes not listed in spec/breaking-changes.yaml (list them with a reason, or undo them)').toEqual([]);
    const stale = (Object.keys(allowed) as Contract[]).flatMap((contract) => allowed[contract]
      .filter((entry) => !found[contract].includes(entry.change) || !entry.reason?.trim())
      .map((entry) => `${contract}: ${entry.change}`));
    expect(stale, 'listed changes that no longer occur, or have no reason').toEqual([]);
  }, 60_000);

  it('names a removed operation, a newly required request field and a removed GraphQL field', async () => {
    const released = parseYaml(read(CONTRACTS.billing.released)) as { paths: Record<string, unknown>; components: { schemas: Record<string, { required: string[] }> } };
    const edited = structuredClone(released);
    delete edited.paths['/products/{code}'];
    edited.components.schemas.CreateProductRequest.required.push('paid_by_roles');
    expect(openApiBreakingChanges(released, edited)).toEqual(expect.arrayContaining([
      '[Removed] operation GET /products/{code}',
      expect.stringContaining('required status to `paid_by_roles`'),
    ]));
    const sdl = read(CONTRACTS.ledger.released);
    const withoutField = sdl.replace(/^ {2}"""\n(?: {2}[^\n]*\n)*? {2}"""\n {2}balanceUTCOffset: UTCOffset!\n/m, '');
    expect(withoutField).not.toBe(sdl);
    expect(await ledgerBreakingChanges(sdl, withoutField)).toContain("Field 'balanceUTCOffset' was removed from object type 'Ledger'");
    // Additions are not breaking: a new optional argument and a new type.
    const added = sdl.replace('type Query {', 'type Extra { x: Int }\n\ntype Query {\n  extra: Extra');
    expect(await ledgerBreakingChanges(sdl, added)).toEqual([]);
  }, 60_000);
});
