import { coverSpan, parseSpan } from '../../core/calendar.js';
import { currencyKey, currencyLabel } from '../../core/currencyKeys.js';
import { DomainError } from '../../core/errors.js';
import { pageInMemory, WHOLE_PAGE, type PageArgs } from '../../core/pagination.js';
import {
  balancesAtInstant,
  balancesOver,
  currentBalances,
  type BalanceScope,
  type CurrencyAmount,
} from '../../db/balanceReads.js';
import { parseUtcOffset } from '../../core/time.js';
import type { LedgerAccountRow } from '../../db/ledgerAccounts.js';
import type { GqlContext } from '../context.js';

// Balances of an account: own (its lines), child (its descendants' lines) and total (both), per
// currency, now, at the end of a moment, or as the change over a period. Moments and periods are
// wall-clock text at the ledger's offset, the time the buckets are kept in, so no read converts.
// Amounts are bigint from PostgreSQL's exact decimals and never leave the Int96 range: a figure
// that would is a typed error, not a wrapped number.

export type Scope = 'own' | 'child' | 'total';
type CurrencyArg = { currency?: { code: string; customCurrencyId?: string | null } | null };
type ReadArgs = CurrencyArg & { at?: string | null; consistencyMode?: string | null };
type ChangeArgs = CurrencyArg & { period: string };

const INT96_MAX = (1n << 120n) - 1n;

/**
 * What a read of the account sums. In a sandbox workspace whose fold is held back, an eventual
 * read (asked for, or the account's setting for that figure) leaves out the deltas the fold has
 * not taken, so it lags as an eventual balance may in production; strong reads stay exact.
 */
export function balanceScope(
  ctx: GqlContext,
  account: LedgerAccountRow,
  scope: Scope,
  mode?: string | null,
): BalanceScope {
  return {
    workspaceId: account.workspaceId,
    ledgerId: account.ledgerId,
    accountId: account.id,
    path: account.path,
    scope,
    settledOnly: Boolean(ctx.sandbox?.balancesLag) && readsEventually(account, scope, mode),
  };
}

function readsEventually(account: LedgerAccountRow, scope: Scope, mode: string | null | undefined): boolean {
  if (mode === 'eventual') return true;
  if (mode === 'strong') return false;
  return updatesOf(account, scope) !== 'strong';
}

/** The consistency setting a figure follows: child and total figures follow totalBalanceUpdates, or ownBalanceUpdates when it is not set. */
function updatesOf(account: LedgerAccountRow, scope: Scope) {
  const { ownBalanceUpdates, totalBalanceUpdates } = account.consistency;
  return scope === 'own' ? ownBalanceUpdates : (totalBalanceUpdates ?? ownBalanceUpdates);
}

/** The spec's rule: `strong` on an account whose updates for that figure are eventual is refused. */
function checkConsistency(account: LedgerAccountRow, scope: Scope, mode: string | null | undefined): void {
  if (mode === 'strong' && updatesOf(account, scope) !== 'strong') {
    throw new DomainError(
      'strong_consistency_unavailable',
      `${account.path} is configured for eventual ${scope === 'own' ? 'ownBalanceUpdates' : 'totalBalanceUpdates'}; read it with eventual or use_account.`,
    );
  }
}

/** The figure itself, or the typed error when it has left the Int96 range. */
export function withinInt96(account: LedgerAccountRow, scope: Scope, currency: string, amount: bigint): bigint {
  if (amount > INT96_MAX || amount < -INT96_MAX) {
    throw new DomainError(
      'invalid_input_provided',
      `The ${scope} balance of ${account.path} in ${currencyLabel(currency)} is outside the Int96 range.`,
    );
  }
  return amount;
}

export function toAmounts(account: LedgerAccountRow, scope: Scope, rows: CurrencyAmount[]): Map<string, bigint> {
  return new Map(rows.map((row) => [row.currency, withinInt96(account, scope, row.currency, BigInt(row.amount))]));
}

/** The currency a single-figure read is in: the one named, else the account's; multi-currency accounts must name one. */
export function currencyOf(account: LedgerAccountRow, args: CurrencyArg): string {
  const currency = args.currency ? currencyKey(args.currency) : account.currencyCode;
  if (!currency)
    throw new DomainError(
      'invalid_input_provided',
      `${account.path} holds several currencies; name the currency to read.`,
    );
  return currency;
}

async function balancesAt(
  ctx: GqlContext,
  account: LedgerAccountRow,
  scope: Scope,
  args: ReadArgs,
): Promise<Map<string, bigint>> {
  checkConsistency(account, scope, args.consistencyMode);
  const target = balanceScope(ctx, account, scope, args.consistencyMode);
  const clock = ctx.sandbox?.now;
  if (args.at == null && clock) return toAmounts(account, scope, await balancesAtClock(ctx, account, target, clock));
  if (args.at == null) return toAmounts(account, scope, await currentBalances(ctx.sql, target));
  const end = parseSpan(args.at, false)!.end;
  return toAmounts(account, scope, await balancesOver(ctx.sql, target, coverSpan(null, end), null, end));
}

/** The balance at a sandbox clock's now: what was posted up to that instant, at the ledger's offset. */
async function balancesAtClock(ctx: GqlContext, account: LedgerAccountRow, target: BalanceScope, now: Date) {
  const ledger = await ctx.load.ledger.load(account.ledgerId);
  const offsetMs = (parseUtcOffset(ledger?.balanceUtcOffset ?? '+00:00') ?? 0) * 60_000;
  const hourStart = Math.floor((now.getTime() + offsetMs) / 3_600_000) * 3_600_000;
  return balancesAtInstant(ctx.sql, target, hourStart, new Date(hourStart - offsetMs), now);
}

async function changesIn(
  ctx: GqlContext,
  account: LedgerAccountRow,
  scope: Scope,
  period: string,
): Promise<Map<string, bigint>> {
  const span = parseSpan(period, true)!;
  return toAmounts(
    account,
    scope,
    await balancesOver(
      ctx.sql,
      balanceScope(ctx, account, scope),
      coverSpan(span.start, span.end),
      span.start,
      span.end,
    ),
  );
}

/** One figure in one currency, latest or at the end of `at`. */
export async function balanceIn(
  ctx: GqlContext,
  account: LedgerAccountRow,
  scope: Scope,
  args: ReadArgs,
): Promise<string> {
  const currency = currencyOf(account, args);
  return ((await balancesAt(ctx, account, scope, args)).get(currency) ?? 0n).toString();
}

/** The change of one figure in one currency over `period`. */
export async function balanceChangeIn(
  ctx: GqlContext,
  account: LedgerAccountRow,
  scope: Scope,
  args: ChangeArgs,
): Promise<string> {
  const currency = currencyOf(account, args);
  return ((await changesIn(ctx, account, scope, args.period)).get(currency) ?? 0n).toString();
}

const byCode = (figures: Map<string, bigint>) => [...figures].sort(([a], [b]) => (a < b ? -1 : 1));

/** Every currency's figure, as a connection ordered by currency key (built-in codes, then `CUSTOM:` ids). */
export async function balancesByCurrency(
  ctx: GqlContext,
  account: LedgerAccountRow,
  scope: Scope,
  args: ReadArgs & PageArgs,
) {
  const pages = ctx.pages(`balances:${scope}:${account.id}`);
  const request = pages.request(args);
  const rows = [...(await balancesAt(ctx, account, scope, args))].map(([currency, amount]) => ({
    currency,
    amount: amount.toString(),
  }));
  return pageInMemory(pages, request, rows, (row) => row.currency);
}

/** Every currency's change over `period`, all in one page (the field takes no page arguments). */
export async function balanceChangesByCurrency(
  ctx: GqlContext,
  account: LedgerAccountRow,
  scope: Scope,
  args: { period: string },
) {
  const nodes = byCode(await changesIn(ctx, account, scope, args.period)).map(([currency, amount]) => ({
    currency,
    amount: amount.toString(),
  }));
  return { nodes, pageInfo: WHOLE_PAGE };
}
