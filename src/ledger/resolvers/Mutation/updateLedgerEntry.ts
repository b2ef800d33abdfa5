import type { MutationResolvers } from '../../../../generated/ledger.js';
import { MAX_GROUPS, MAX_TAGS } from '../../../core/entries.js';
import { DomainError } from '../../../core/errors.js';
import { linesOfEntry, lockLedgerEntry, setEntryLabels, setLineTags } from '../../../db/ledgerEntries.js';
import { asMutationResult } from '../../mutationResult.js';
import { findEntryByMatch } from '../Query/ledgerEntry.js';

/**
 * Adds groups and adds, updates or removes tags of an entry and of its lines. Lines and amounts never change;
 * reversed and reversing entries are immutable.
 */
export const updateLedgerEntry: NonNullable<MutationResolvers['updateLedgerEntry']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'updateLedgerEntry', () =>
    ctx.sql.begin(async (trx) => {
      const workspaceId = ctx.caller.workspaceId;
      const { tags = [], tagsToRemove = [], groups = [], ledgerLines = [] } = args.update;
      const found = await findEntryByMatch(trx, workspaceId, args.ledgerEntry);
      const entry = found && (await lockLedgerEntry(trx, workspaceId, found.id));
      if (!entry) throw new DomainError('ledger_entry_not_found', 'No ledger entry matches the given id or ik.');
      if (entry.reversesId || entry.reversedById) {
        throw new DomainError(
          'ledger_entry_immutable',
          `Entry ${entry.id} is ${entry.reversesId ? 'a reversal' : 'reversed'} and can no longer change.`,
        );
      }
      const nextTags = retagged(entry.tags, tags ?? [], tagsToRemove ?? [], 'The entry');
      const nextGroups = [...entry.groups];
      for (const group of groups ?? []) {
        if (!nextGroups.some((existing) => existing.key === group.key && existing.value === group.value))
          nextGroups.push({ key: group.key, value: group.value });
      }
      if (nextGroups.length > MAX_GROUPS)
        throw new DomainError('invalid_input_provided', `An entry may have at most ${MAX_GROUPS} groups.`);
      if (ledgerLines?.length) {
        const lines = new Map((await linesOfEntry(trx, workspaceId, entry.id)).map((line) => [line.id, line]));
        const seen = new Set<string>();
        const changes = ledgerLines.map((change) => {
          const line = lines.get(change.ledgerLine.id);
          if (!line)
            throw new DomainError(
              'invalid_input_provided',
              `Line ${change.ledgerLine.id} is not a line of entry ${entry.id}.`,
            );
          if (seen.has(line.id)) throw new DomainError('invalid_input_provided', `Line ${line.id} is given twice.`);
          seen.add(line.id);
          return {
            lineId: line.id,
            tags: retagged(line.tags, change.tags ?? [], change.tagsToRemove ?? [], `Line ${line.id}`),
          };
        });
        await setLineTags(trx, workspaceId, entry.id, changes);
      }
      const updated = await setEntryLabels(trx, workspaceId, entry.id, nextTags, nextGroups);
      return { __typename: 'UpdateLedgerEntryResult' as const, entry: updated };
    }),
  );

type Tag = { key: string; value: string };

/** Tags after removing the given pairs, then adding or updating by key. */
function retagged(current: readonly Tag[], upserts: readonly Tag[], removals: readonly Tag[], owner: string): Tag[] {
  const removed = new Set(removals.map((tag) => `${tag.key}\u0000${tag.value}`));
  const byKey = new Map(
    current.filter((tag) => !removed.has(`${tag.key}\u0000${tag.value}`)).map((tag) => [tag.key, tag.value]),
  );
  for (const tag of upserts) byKey.set(tag.key, tag.value);
  if (byKey.size > MAX_TAGS)
    throw new DomainError('invalid_input_provided', `${owner} may have at most ${MAX_TAGS} tags.`);
  return [...byKey].map(([key, value]) => ({ key, value }));
}
