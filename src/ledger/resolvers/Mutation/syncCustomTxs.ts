import type { CustomTxInput, MutationResolvers } from '../../../../generated/ledger.js';
import { currencyKey, currencyLabel } from '../../../core/currencyKeys.js';
import { DomainError } from '../../../core/errors.js';
import { sameRequest } from '../../../core/idempotency.js';
import { newId } from '../../../core/ids.js';
import { checkBatchSize, MAX_SYNC_ITEMS, MAX_TX_DESCRIPTION_LENGTH } from '../../../core/links.js';
import { findTx, insertTxs, txsForSync, updateTxDescriptions, type TxRow } from '../../../db/externalTxs.js';
import { findExternalAccount, type ExternalAccountRow, type LinkRow } from '../../../db/links.js';
import type { Db } from '../../../db/sql.js';
import { requireCurrencies } from '../../links/customCurrencies.js';
import { externalAccountMatch } from '../../links/externalAccountMatch.js';
import { requireCustomLink } from '../../links/links.js';
import { asMutationResult } from '../../mutationResult.js';

type Wanted = {
  account: ExternalAccountRow;
  externalId: string;
  amount: string;
  currency: string;
  description: string;
  posted: Date;
};

const pairKey = (accountId: string, externalId: string) => `${accountId}\u0000${externalId}`;

/**
 * Records transactions of a custom link's accounts, idempotent by external id within each
 * account: the same transaction again answers the recorded one (a new description is taken);
 * a different amount, currency or posted time is refused, since reconciled entries rely on
 * them. After deleteCustomTxs the same external id records a new transaction, one sequence up.
 */
export const syncCustomTxs: NonNullable<MutationResolvers['syncCustomTxs']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'syncCustomTxs', async () => {
    checkBatchSize(args.txs.length, MAX_SYNC_ITEMS, 'transaction');
    args.txs.forEach((input, index) => {
      externalAccountMatch(input.account, `txs[${index}].account`);
      if (input.description.length > MAX_TX_DESCRIPTION_LENGTH) {
        throw new DomainError(
          'invalid_input_provided',
          `txs[${index}]: the description has more than ${MAX_TX_DESCRIPTION_LENGTH} characters.`,
        );
      }
    });
    const workspaceId = ctx.caller.workspaceId;
    const txs = await ctx.sql.begin(async (trx) => {
      const link = await requireCustomLink(trx, workspaceId, args.link);
      const wanted = await resolveTxs(trx, link, args.txs);
      await requireCurrencies(
        trx,
        workspaceId,
        wanted.map((item) => item.currency),
      );
      const { live, lastSequence } = await txsForSync(
        trx,
        workspaceId,
        wanted.map((item) => ({ accountId: item.account.id, externalId: item.externalId })),
      );
      const liveByKey = new Map(live.map((row) => [pairKey(row.accountId, row.externalId), row]));
      const fresh = wanted
        .filter((item) => !liveByKey.has(pairKey(item.account.id, item.externalId)))
        .map((item) => ({
          workspaceId,
          id: newId('tx'),
          linkId: link.id,
          accountId: item.account.id,
          externalId: item.externalId,
          sequence: (lastSequence.get(pairKey(item.account.id, item.externalId)) ?? 0) + 1,
          amount: item.amount,
          currency: item.currency,
          description: item.description,
          posted: item.posted,
        }));
      for (const row of await insertTxs(trx, fresh)) liveByKey.set(pairKey(row.accountId, row.externalId), row);
      const answered: TxRow[] = [];
      const renamed: { id: string; description: string }[] = [];
      for (const item of wanted) {
        const key = pairKey(item.account.id, item.externalId);
        // Absent only when a concurrent sync recorded it first; compare with that one.
        const row =
          liveByKey.get(key) ??
          (await findTx(trx, workspaceId, { accountId: item.account.id, externalId: item.externalId }))!;
        checkSameTx(row, item);
        if (row.description !== item.description) renamed.push({ id: row.id, description: item.description });
        answered.push({ ...row, description: item.description });
      }
      await updateTxDescriptions(trx, workspaceId, renamed);
      return answered;
    });
    for (const row of txs) ctx.load.tx.prime(row.id, row);
    return { __typename: 'SyncCustomTxsResult' as const, txs };
  });

/** Each input with its account (which must belong to the link) and its currency settled. */
async function resolveTxs(db: Db, link: LinkRow, inputs: readonly CustomTxInput[]): Promise<Wanted[]> {
  const accounts = new Map<string, ExternalAccountRow>();
  const seen = new Set<string>();
  const wanted: Wanted[] = [];
  for (const [index, input] of inputs.entries()) {
    const where = `txs[${index}]`;
    const match = externalAccountMatch(input.account, `${where}.account`);
    const cacheKey = JSON.stringify(match);
    let account = accounts.get(cacheKey);
    if (!account) {
      account = await findExternalAccount(db, link.workspaceId, match);
      if (!account || account.linkId !== link.id) {
        throw new DomainError(
          'external_account_not_found',
          `${where}: no external account of link ${link.id} matches ${describeMatch(match)}.`,
        );
      }
      accounts.set(cacheKey, account);
    }
    const given = input.currency ? currencyKey(input.currency, where) : null;
    if (account.currencyMode === 'multi' && !given) {
      throw new DomainError(
        'invalid_input_provided',
        `${where}: external account ${account.externalId} holds several currencies; name the currency.`,
      );
    }
    if (account.currencyMode === 'single' && given && given !== account.currency) {
      throw new DomainError(
        'invalid_input_provided',
        `${where}: external account ${account.externalId} holds ${currencyLabel(account.currency!)}, not ${currencyLabel(given)}.`,
      );
    }
    const key = pairKey(account.id, input.externalId);
    if (seen.has(key))
      throw new DomainError(
        'invalid_input_provided',
        `${where}: externalId ${input.externalId} appears twice for one account in the call.`,
      );
    seen.add(key);
    wanted.push({
      account,
      externalId: input.externalId,
      amount: input.amount,
      currency: given ?? account.currency!,
      description: input.description,
      posted: new Date(input.posted),
    });
  }
  return wanted;
}

function describeMatch(match: { id?: string; linkId?: string; externalId?: string }): string {
  return match.id !== undefined ? `id ${match.id}` : `externalId ${match.externalId}`;
}

/** The same external id again is the same transaction: its amount, currency and posted time cannot change. */
function checkSameTx(row: TxRow, wanted: Wanted): void {
  const changed = [
    row.amount !== wanted.amount && 'amount',
    row.currency !== wanted.currency && 'currency',
    row.posted.getTime() !== wanted.posted.getTime() && 'posted',
  ].filter(Boolean);
  const key = {
    field: 'externalId',
    value: wanted.externalId,
    scope: `in external account ${wanted.account.externalId}`,
  };
  sameRequest(
    key,
    row,
    changed.length === 0,
    `another ${changed.join(', ')}; delete it with deleteCustomTxs and sync it again to change it`,
  );
}
