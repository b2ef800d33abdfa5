import type { LedgerEntryInput } from '../../../generated/ledger.js';
import { currencyLabel } from '../../core/currencyKeys.js';
import { DomainError } from '../../core/errors.js';
import { fingerprint } from '../../core/fingerprint.js';
import { findTx, lockTxs, type TxRow } from '../../db/externalTxs.js';
import type { LedgerAccountRow } from '../../db/ledgerAccounts.js';
import { findLedgerEntry, linesOfEntry, postedRows, requireCurrentLedgerRevision } from '../../db/ledgerEntries.js';
import { findExternalAccount } from '../../db/links.js';
import { insertReconciliations, standingReconciliations } from '../../db/reconciliations.js';
import type { Db } from '../../db/sql.js';
import type { GqlContext } from '../context.js';
import { checkOutcome, ledgerForEntry } from './addEntry.js';
import type { TxRef } from './explicitEntry.js';
import { postWithin } from './postEntry.js';
import { countEntriesWritten, timedPosting } from './postingMetrics.js';
import { prepareEntry, type PreparedEntry } from './prepareEntry.js';
import { preparingFrom } from './staleTargets.js';

// reconcileTx: an entry whose lines on linked accounts each carry one external transaction of
// the account's external account, for exactly its amount and currency. The entry is posted at
// the transaction's time, under an ik derived from (transaction, linked account): a retry
// replays, a reversal frees the transaction, and a reconcile after it reposts under that ik.

type Reconciled = { position: number; account: LedgerAccountRow; tx: TxRow };

export async function reconcileEntry(ctx: GqlContext, input: LedgerEntryInput) {
  if (input.posted != null)
    throw new DomainError(
      'invalid_input_provided',
      'reconcileTx takes posted from the transaction; leave entry.posted out.',
    );
  const workspaceId = ctx.caller.workspaceId;
  const target = await ledgerForEntry(ctx, workspaceId, input.ledger, [input]);
  // Its checks of the lines against their transactions read the accounts as held, like preparing.
  const { draft, reconciled } = await preparingFrom(target, async () => {
    const draft = await prepareEntry(ctx, target.ledger, target.schema, 'reconcile', input, {
      prefetched: target.accounts,
      reconcile: true,
    });
    const reconciled = await Promise.all(
      draft.txLines.map(async (line) => ({
        ...line,
        tx: await resolveTx(ctx.sql, workspaceId, line.account, line.tx),
      })),
    );
    for (const item of reconciled) checkMatchesTx(item, draft);
    const pairs = new Set(reconciled.map((item) => `${item.tx.id}\u0000${item.account.id}`));
    if (pairs.size < reconciled.length) {
      throw new DomainError(
        'invalid_input_provided',
        'A transaction is reconciled by one line per linked account; this entry names one twice.',
      );
    }
    return { draft, reconciled };
  });
  const ik = reconcileIk(reconciled);
  const posted = new Date(Math.max(...reconciled.map((item) => item.tx.posted.getTime()))).toISOString();
  const prepared: PreparedEntry = { ...draft, posting: { ...draft.posting, ik, posted } };

  const answer = await timedPosting(() =>
    ctx.sql.begin(async (trx) => {
      // Locking the transactions serialises every reconcile and delete of them.
      const locked = await lockTxs(
        trx,
        workspaceId,
        reconciled.map((item) => item.tx.id),
      );
      const deleted = locked.find((row) => row.deletedAt !== null);
      if (deleted) throw new DomainError('tx_not_found', `Transaction ${deleted.id} was deleted.`);
      // A replay found here is answered without posting: its request hash was prepared from
      // targets that must still be current, as a posting's are.
      await requireCurrentLedgerRevision(trx, prepared.posting);
      const replay = await standingReplay(trx, workspaceId, reconciled, prepared.posting.requestHash);
      if (replay) return { entryId: replay, replayed: true as const };
      const outcome = await postWithin(trx, prepared);
      checkOutcome(prepared, outcome, ik);
      // The ik already names this very entry (its reconciliations are written): answer it.
      if (outcome.replayed) return { entryId: outcome.entryId, replayed: true as const };
      await insertReconciliations(
        trx,
        workspaceId,
        reconciled.map((item) => ({
          entryId: outcome.entryId,
          position: item.position,
          txId: item.tx.id,
          accountId: item.account.id,
        })),
      );
      return { entryId: outcome.entryId, replayed: false as const, outcome };
    }),
  );
  countEntriesWritten(answer.replayed ? 0 : 1);
  if (!answer.replayed && prepared.newAccounts.length === 0) {
    const { entry, lines } = postedRows(prepared.posting, answer.outcome.created, answer.outcome.position);
    return { __typename: 'ReconcileTxResult' as const, entry, lines, isIkReplay: false };
  }
  const entry = (await findLedgerEntry(ctx.sql, workspaceId, { id: answer.entryId }))!;
  return {
    __typename: 'ReconcileTxResult' as const,
    entry,
    lines: await linesOfEntry(ctx.sql, workspaceId, entry.id),
    isIkReplay: answer.replayed,
  };
}

/**
 * The transaction a line names, which must belong to the external account its ledger account
 * is linked to: by id, or by external id in that external account (a TxMatchInput's account
 * fields, when given, must name that same account).
 */
async function resolveTx(db: Db, workspaceId: string, account: LedgerAccountRow, ref: TxRef): Promise<TxRow> {
  const externalAccountId = account.linkedAccountId!;
  const notFound = (detail: string) =>
    new DomainError('tx_not_found', `No transaction ${detail} of the external account linked to ${account.path}.`);
  if (ref.accountId != null && ref.accountId !== externalAccountId)
    throw notFound(`in account ${ref.accountId}: it is not the one`);
  if (ref.externalAccountId != null) {
    const named =
      ref.linkId != null
        ? await findExternalAccount(db, workspaceId, { linkId: ref.linkId, externalId: ref.externalAccountId })
        : undefined;
    if (named?.id !== externalAccountId)
      throw notFound(`in external account ${ref.externalAccountId}: it is not the one`);
  }
  let row: TxRow | undefined;
  if (ref.id != null) row = await findTx(db, workspaceId, { id: ref.id });
  else if (ref.externalId != null)
    row = await findTx(db, workspaceId, { accountId: externalAccountId, externalId: ref.externalId });
  else
    throw new DomainError(
      'invalid_input_provided',
      `The line on ${account.path} must name its transaction by id or externalId.`,
    );
  if (!row || row.accountId !== externalAccountId || (ref.externalId != null && row.externalId !== ref.externalId)) {
    throw notFound(ref.id != null ? `with id ${ref.id}` : `with externalId ${ref.externalId}`);
  }
  if (row.deletedAt) throw new DomainError('tx_not_found', `Transaction ${row.id} was deleted.`);
  return row;
}

/** A linked account mirrors its external account: the line moves it by exactly the transaction. */
function checkMatchesTx(item: Reconciled, prepared: PreparedEntry): void {
  const line = prepared.posting.lines[item.position - 1];
  if (line.currency !== item.tx.currency || line.amount !== item.tx.amount) {
    throw new DomainError(
      'invalid_input_provided',
      `The line on ${item.account.path} is ${line.amount} ${currencyLabel(line.currency)}, but transaction ${item.tx.externalId} is ${item.tx.amount} ${currencyLabel(item.tx.currency)}; they must be equal.`,
    );
  }
}

function reconcileIk(items: readonly Reconciled[]): string {
  const pairs = items.map((item) => `${item.tx.id}-${item.account.id}`).sort();
  return pairs.length === 1 ? `reconcile-${pairs[0]}` : `reconcile-${fingerprint(pairs)}`;
}

/**
 * A standing entry already reconciling these transactions into these accounts: the same
 * entry is a replay (its id is answered); anything else is refused.
 */
async function standingReplay(
  db: Db,
  workspaceId: string,
  items: readonly Reconciled[],
  requestHash: string,
): Promise<string | undefined> {
  const wanted = new Set(items.map((item) => `${item.tx.id}\u0000${item.account.id}`));
  const standing = (
    await standingReconciliations(
      db,
      workspaceId,
      items.map((item) => item.tx.id),
    )
  ).filter((row) => wanted.has(`${row.txId}\u0000${row.accountId}`));
  if (standing.length === 0) return undefined;
  const [first] = standing;
  if (
    standing.length === items.length &&
    standing.every((row) => row.entryId === first.entryId) &&
    first.requestHash === requestHash
  )
    return first.entryId;
  throw new DomainError(
    'tx_already_reconciled',
    `Transaction ${first.txId} is already reconciled into this linked account by entry ${first.entryId}; reverse that entry to reconcile it again.`,
  );
}
