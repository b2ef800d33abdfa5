import { currencyKey } from '../../core/currencyKeys.js';
import type {
  LedgerEntryGroupBalanceFilter,
  LedgerEntryGroupBalanceFilterSet,
  LedgerEntryGroupsFilterSet,
} from '../../../generated/ledger.js';
import { valueFilter } from '../../core/entryFilters.js';
import { pageGroupBalances, pageGroups, type GroupFilter, type GroupRow } from '../../db/ledgerGroups.js';
import type { LedgerRow } from '../../db/ledgers.js';
import type { GqlContext } from '../context.js';

// Group lists of a ledger and a group's balances, with their filter sets.

type PageArgs = { first?: number | null; last?: number | null; after?: string | null; before?: string | null };

const likeText = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** A group balance filter: accounts by id or path pattern (`*` for one template value), currencies, amounts. */
function balanceFilter(
  set: LedgerEntryGroupBalanceFilterSet | LedgerEntryGroupBalanceFilter | null | undefined,
): NonNullable<GroupFilter['balance']> {
  const filter: NonNullable<GroupFilter['balance']> = {};
  const account = set?.account;
  if (account?.id)
    filter.accountIds = [...(account.id.equalTo != null ? [account.id.equalTo] : []), ...(account.id.in ?? [])];
  if (account?.path) {
    const { equalTo, in: list, matches, matchesAny, contains } = account.path;
    filter.pathPatterns = [
      ...[...(equalTo != null ? [equalTo] : []), ...(list ?? [])].map(likeText),
      ...[...(matches != null ? [matches] : []), ...(matchesAny ?? [])].map((pattern) =>
        likeText(pattern).replaceAll('*', '%'),
      ),
      ...(contains != null ? [`%${likeText(contains)}%`] : []),
    ];
  }
  if (set?.currency) {
    const currencies = [...(set.currency.equalTo ? [set.currency.equalTo] : []), ...(set.currency.in ?? [])];
    filter.currencies = currencies.map((currency) => currencyKey(currency));
  }
  if (set?.ownBalance) {
    const { eq, gte, lte, ne } = set.ownBalance;
    filter.amount = { eq: eq ?? undefined, gte: gte ?? undefined, lte: lte ?? undefined, ne: ne ?? undefined };
  }
  return filter;
}

export async function listGroups(
  ctx: GqlContext,
  ledger: LedgerRow,
  args: PageArgs & { filter?: LedgerEntryGroupsFilterSet | null },
) {
  const set = args.filter;
  const filter: GroupFilter = {
    keys: set?.key ? valueFilter(set.key, 'key') : undefined,
    values: set?.value ? valueFilter(set.value, 'value') : undefined,
    createdAfter: set?.created?.after ? new Date(set.created.after) : undefined,
    createdBefore: set?.created?.before ? new Date(set.created.before) : undefined,
    balance: set?.balance ? balanceFilter(set.balance) : undefined,
  };
  const groupPages = ctx.pages(`ledger-groups:${ledger.id}`);
  const request = groupPages.request(args);
  const rows = await pageGroups(ctx.sql, ledger.workspaceId, ledger.id, filter, request);
  return groupPages.page(request, rows, (group) => [group.key, group.created!.toISOString(), group.value]);
}

export async function listGroupBalances(
  ctx: GqlContext,
  group: Omit<GroupRow, 'created'>,
  args: PageArgs & { filter?: LedgerEntryGroupBalanceFilterSet | null },
) {
  const balancePages = ctx.pages(`group-balances:${group.ledgerId}:${group.key}:${group.value}`);
  const request = balancePages.request(args);
  const rows = await pageGroupBalances(
    ctx.sql,
    group.workspaceId,
    group.ledgerId,
    group.key,
    group.value,
    balanceFilter(args.filter),
    request,
  );
  const page = balancePages.page(request, rows, (balance) => [balance.path, balance.currency]);
  return { ...page, nodes: page.nodes.map((node) => ({ ...node, workspaceId: group.workspaceId })) };
}
