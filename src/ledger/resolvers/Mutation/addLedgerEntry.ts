import type { MutationResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { findLedgerEntry, linesOfEntry, postLedgerEntry } from '../../../db/ledgerEntries.js';
import { findLedger } from '../../../db/ledgers.js';
import { prepareRuntimeEntry } from '../../entries/runtimeEntry.js';
import { requireLedgerMatch } from '../../ledgerMatch.js';
import { asMutationResult } from '../../mutationResult.js';

/**
 * Posts an entry with explicit lines to a ledger without schema. A replayed ik answers the
 * original entry and lines; the same ik with another payload is refused; a failing condition
 * is refused naming the account; nothing is written in any refusal.
 */
export const addLedgerEntry: NonNullable<MutationResolvers['addLedgerEntry']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'addLedgerEntry', async () => {
    const workspaceId = ctx.caller.workspaceId;
    if (!args.entry.ledger) throw new DomainError('invalid_input_provided', 'Name the ledger of the entry (entry.ledger).');
    const ledger = await findLedger(ctx.sql, workspaceId, requireLedgerMatch(args.entry.ledger));
    if (!ledger) throw new DomainError('ledger_not_found', 'No ledger matches the given id or ik.');
    if (ledger.schemaKey) throw new DomainError('not_implemented', 'Entries in ledgers that follow a schema are not available in this version of Tally yet.');

    const prepared = await prepareRuntimeEntry(ctx.sql, ledger, args.ik, args.entry);
    const outcome = await postLedgerEntry(ctx.sql, prepared.posting);
    if ('failedCondition' in outcome) {
      const condition = prepared.posting.conditions[outcome.failedCondition];
      const account = prepared.accounts.get(condition.accountId)!;
      throw new DomainError('entry_condition_failed',
        `Condition ${outcome.failedCondition} on ${account.path} (${condition.currency}) does not hold; nothing was posted.`,
        { account: account.path, currency: condition.currency, condition: outcome.failedCondition });
    }
    if (outcome.replayed && outcome.requestHash !== prepared.posting.requestHash) {
      throw new DomainError('idempotency_key_reused', `ik ${args.ik} was already used in this ledger with a different entry.`);
    }
    const entry = (await findLedgerEntry(ctx.sql, workspaceId, { id: outcome.entryId }))!;
    return {
      __typename: 'AddLedgerEntryResult' as const,
      entry,
      lines: await linesOfEntry(ctx.sql, workspaceId, entry.id),
      isIkReplay: outcome.replayed,
    };
  });
