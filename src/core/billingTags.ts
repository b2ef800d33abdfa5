import { DomainError, type Violation } from './errors.js';

// Tag lists of invoices, line items and transactions: keys unique within a list, and TagOps
// (create, update, set, delete) applied with each key named at most once per request.

export type Tag = { key: string; value: string };
export type TagOps = { create?: Tag[]; update?: Tag[]; set?: Tag[]; delete?: { key: string }[] };

/** Throws `invalid_request` when a list names a key twice. */
export function checkTagList(tags: readonly Tag[] | undefined, pointer: string): Tag[] {
  const seen = new Set<string>();
  const violations: Violation[] = [];
  (tags ?? []).forEach((tag, index) => {
    if (seen.has(tag.key))
      violations.push({ pointer: `${pointer}/${index}/key`, message: `repeats the key ${tag.key}` });
    seen.add(tag.key);
  });
  if (violations.length > 0) throw contractError(violations);
  return (tags ?? []).map(({ key, value }) => ({ key, value }));
}

/** The tags after the operations; every rule broken is a violation pointing at its element. */
export function applyTagOps(current: readonly Tag[], ops: TagOps, pointer: string): Tag[] {
  const byKey = new Map(current.map((tag) => [tag.key, tag.value]));
  const named = new Set<string>();
  const violations: Violation[] = [];
  const each = (list: 'create' | 'update' | 'set' | 'delete', check: (key: string) => string | undefined) => {
    (ops[list] ?? []).forEach((item, index) => {
      const where = `${pointer}/${list}/${index}/key`;
      if (named.has(item.key)) violations.push({ pointer: where, message: `names the key ${item.key} a second time` });
      named.add(item.key);
      const problem = check(item.key);
      if (problem) violations.push({ pointer: where, message: problem });
    });
  };
  each('create', (key) => (byKey.has(key) ? `key ${key} already exists; use update or set` : undefined));
  each('update', (key) => (byKey.has(key) ? undefined : `key ${key} does not exist; use create or set`));
  each('set', () => undefined);
  each('delete', () => undefined);
  if (violations.length > 0) throw contractError(violations);
  for (const tag of [...(ops.create ?? []), ...(ops.update ?? []), ...(ops.set ?? [])]) byKey.set(tag.key, tag.value);
  for (const { key } of ops.delete ?? []) byKey.delete(key);
  return [...byKey].map(([key, value]) => ({ key, value }));
}

function contractError(violations: Violation[]): DomainError {
  return new DomainError('invalid_request', 'The request does not match the contract.', { violations });
}
