import type { MutationResolvers } from '../../../../generated/ledger.js';
import { MAX_GROUPS, MAX_TAGS } from '../../../core/entries.js';
import { DomainError } from '../../../core/errors.js';
import { lockLedgerEntry, setEntryLabels } from '../../../db/ledgerEntries.js';
import { asMutationResult } from '../../mutationResult.js';
import { findEntryByMatch } from '../Query/ledgerEntry.js';

/**
 * Adds groups and adds, updates or removes tags of an entry. Lines and amounts never change;
 * reversed and reversing entries are immutable.
 */
export const updateLedgerEntry: NonNullable<MutationResolvers['updateLedgerEntry']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'updateLedgerEntry', () => ctx.sql.begin(async (tx) => {
    const workspaceId = ctx.caller.workspaceId;
    const { tags = [], tagsToRemove = [], groups = [], ledgerLines = [] } = args.update;
    if (ledgerLines?.length) throw new DomainError('not_implemented', 'Line tags are not available in this version of Tally yet.');
    const found = await findEntryByMatch(tx, workspaceId, args.ledgerEntry);
    const entry = found && await lockLedgerEntry(tx, workspaceId, found.id);
    if (!entry) throw new DomainError('ledger_entry_not_found', 'No ledger entry matches the given id or ik.');
    if (entry.reversesId || entry.reversedById) {
      throw new DomainError('ledger_entry_immutable', `Entry ${entry.id} is ${entry.reversesId ? 'a reversal' : 'reversed'} and can no longer change.`);
    }
    const removed = new Set((tagsToRemove ?? []).map((tag) => `${tag.key}\u0000${tag.value}`));
    const byKey = new Map(entry.tags.filter((tag) => !removed.has(`${tag.key}\u0000${tag.value}`)).map((tag) => [tag.key, tag.value]));
    for (const tag of tags ?? []) byKey.set(tag.key, tag.value);
    const nextGroups = [...entry.groups];
    for (const group of groups ?? []) {
      if (!nextGroups.some((existing) => existing.key === group.key && existing.value === group.value)) nextGroups.push({ key: group.key, value: group.value });
    }
    if (byKey.size > MAX_TAGS) throw new DomainError('invalid_input_provided', `An entry may have at most ${MAX_TAGS} tags.`);
    if (nextGroups.length > MAX_GROUPS) throw new DomainError('invalid_input_provided', `An entry may have at most ${MAX_GROUPS} groups.`);
    const updated = await setEntryLabels(tx, workspaceId, entry.id, [...byKey].map(([key, value]) => ({ key, value })), nextGroups);
    return { __typename: 'UpdateLedgerEntryResult' as const, entry: updated };
  }));
