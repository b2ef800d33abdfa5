import type { MutationResolvers } from '../../../../generated/ledger.js';
import { currencyKey, currencyLabel } from '../../../core/currencyKeys.js';
import { DomainError } from '../../../core/errors.js';
import { sameRequest } from '../../../core/idempotency.js';
import { newId } from '../../../core/ids.js';
import { checkBatchSize, checkName, MAX_SYNC_ITEMS } from '../../../core/links.js';
import { WORKSPACE_DEFAULT_CURRENCY } from '../../../core/ledgerAccounts.js';
import { lockExternalAccounts, upsertExternalAccounts, type ExternalAccountRow } from '../../../db/links.js';
import { requireCurrencies } from '../../links/customCurrencies.js';
import { requireCustomLink } from '../../links/links.js';
import { asMutationResult } from '../../mutationResult.js';

type Wanted = { externalId: string; name: string; currencyMode: 'single' | 'multi'; currency: string | null };

/**
 * Creates or renames the external accounts of a custom link, by external id (its idempotency
 * key in the link). An account's currency never changes: a different one is refused. All or none.
 */
export const syncCustomAccounts: NonNullable<MutationResolvers['syncCustomAccounts']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'syncCustomAccounts', async () => {
    checkBatchSize(args.accounts.length, MAX_SYNC_ITEMS, 'account');
    const seen = new Set<string>();
    const wanted: Wanted[] = args.accounts.map((input, index) => {
      const where = `accounts[${index}]`;
      if (seen.has(input.externalId))
        throw new DomainError(
          'invalid_input_provided',
          `${where}: externalId ${input.externalId} appears twice in the call.`,
        );
      seen.add(input.externalId);
      if (input.currencyMode === 'multi' && input.currency)
        throw new DomainError('invalid_input_provided', `${where}: a multi-currency account cannot name a currency.`);
      const currencyMode = input.currencyMode ?? 'single';
      const currency =
        currencyMode === 'multi'
          ? null
          : input.currency
            ? currencyKey(input.currency, where)
            : WORKSPACE_DEFAULT_CURRENCY;
      return { externalId: input.externalId, name: checkName(input.name, where), currencyMode, currency };
    });
    const workspaceId = ctx.caller.workspaceId;
    const accounts = await ctx.sql.begin(async (trx) => {
      const link = await requireCustomLink(trx, workspaceId, args.link);
      await requireCurrencies(
        trx,
        workspaceId,
        wanted.map((account) => account.currency),
      );
      const existing = await lockExternalAccounts(
        trx,
        workspaceId,
        link.id,
        wanted.map((account) => account.externalId),
      );
      for (const account of existing)
        checkSameCurrency(
          account,
          wanted.find((item) => item.externalId === account.externalId)!,
        );
      const rows = await upsertExternalAccounts(
        trx,
        wanted.map((account) => ({ workspaceId, id: newId('xacct'), linkId: link.id, ...account })),
      );
      const byExternalId = new Map(rows.map((row) => [row.externalId, row]));
      // A twin created by a concurrent sync is compared too, after the upsert waited for it.
      return wanted.map((account) => checkSameCurrency(byExternalId.get(account.externalId)!, account));
    });
    for (const account of accounts) ctx.load.externalAccount.prime(account.id, account);
    return { __typename: 'SyncCustomAccountsResult' as const, accounts };
  });

/** An external account's currency never changes: syncing its external id with another one reuses the key. */
function checkSameCurrency(existing: ExternalAccountRow, wanted: Wanted): ExternalAccountRow {
  const describe = (mode: string, currency: string | null) =>
    mode === 'multi' ? 'several currencies' : currencyLabel(currency!);
  return sameRequest(
    { field: 'externalId', value: existing.externalId, scope: 'in this link' },
    existing,
    existing.currencyMode === wanted.currencyMode && existing.currency === wanted.currency,
    `it holds ${describe(existing.currencyMode, existing.currency)}, not ${describe(wanted.currencyMode, wanted.currency)}, ` +
      'and its currency cannot change',
  );
}
