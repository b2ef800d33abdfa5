import { builtInCurrency } from '../../core/currencies.js';
import { DomainError } from '../../core/errors.js';
import type { PageArgs } from '../../core/pagination.js';
import type { LedgerAccountRow } from '../../db/ledgerAccounts.js';
import { childBalances, ownBalances } from '../../db/ledgerEntries.js';
import type { GqlContext } from '../context.js';

// Current balances of an account: own (its lines), child (its descendants' lines) and total
// (both), per currency. Amounts are bigint from PostgreSQL's exact decimals and never leave the
// Int96 range: a total that would is a typed error, not a wrapped number.

export type Scope = 'own' | 'child' | 'total';
type ReadArgs = { at?: string | null; consistencyMode?: string | null; currency?: { code: string; customCurrencyId?: string | null } | null };

const INT96_MAX = (1n << 120n) - 1n;

async function balancesOf(ctx: GqlContext, account: LedgerAccountRow, scope: Scope, args: ReadArgs): Promise<Map<string, bigint>> {
  if (args.at != null) throw new DomainError('not_implemented', 'Balances at an instant are not available in this version of Tally yet; omit `at` for the latest.');
  const config = scope === 'own' ? account.consistency.ownBalanceUpdates : account.consistency.totalBalanceUpdates;
  if (args.consistencyMode === 'strong' && config !== 'strong') {
    throw new DomainError('strong_consistency_unavailable',
      `${account.path} is configured for eventual ${scope === 'own' ? 'ownBalanceUpdates' : 'totalBalanceUpdates'}; read it with eventual or use_account.`);
  }
  const parts = await Promise.all([
    scope === 'child' ? [] : ownBalances(ctx.sql, account.workspaceId, account.id),
    scope === 'own' ? [] : childBalances(ctx.sql, account.workspaceId, account.ledgerId, account.path),
  ]);
  const totals = new Map<string, bigint>();
  for (const row of parts.flat()) totals.set(row.currency, (totals.get(row.currency) ?? 0n) + BigInt(row.amount));
  for (const [currency, amount] of totals) {
    if (amount > INT96_MAX || amount < -INT96_MAX) {
      throw new DomainError('invalid_input_provided', `The ${scope} balance of ${account.path} in ${currency} is outside the Int96 range.`);
    }
  }
  return totals;
}

/** One figure in one currency: the account's own when none is named; required for multi-currency accounts. */
export async function balanceIn(ctx: GqlContext, account: LedgerAccountRow, scope: Scope, args: ReadArgs): Promise<string> {
  if (args.currency?.code === 'CUSTOM' || args.currency?.customCurrencyId) {
    throw new DomainError('not_implemented', 'Custom currencies are not available in this version of Tally yet.');
  }
  const currency = args.currency?.code ?? account.currencyCode;
  if (!currency) throw new DomainError('invalid_input_provided', `${account.path} holds several currencies; name the currency to read.`);
  return ((await balancesOf(ctx, account, scope, args)).get(currency) ?? 0n).toString();
}

/** Every currency's figure, as a connection ordered by currency code. */
export async function balancesByCurrency(ctx: GqlContext, account: LedgerAccountRow, scope: Scope, args: ReadArgs & PageArgs) {
  const pages = ctx.pages(`balances:${scope}:${account.id}`);
  const request = pages.request(args);
  const all = [...(await balancesOf(ctx, account, scope, args))].sort(([a], [b]) => (a < b ? -1 : 1));
  const [after] = request.cursor ?? [];
  const inDirection = request.backward ? all.filter(([code]) => after === undefined || code < after).reverse() : all.filter(([code]) => after === undefined || code > after);
  const rows = inDirection.slice(0, request.size + 1).map(([code, amount]) => ({ currency: builtInCurrency(code), amount: amount.toString() }));
  return pages.page(request, rows, (row) => [row.currency.code]);
}
