// Every GraphQL document the dashboard sends. Each asks for one page's figures, with bounded
// page sizes, so a page's cost does not grow with the ledger.

const PAGE = 'pageInfo { hasNextPage endCursor }';
const CURRENCY = 'currency { code precision customCurrencyId }';
const AMOUNTS = `nodes { amount ${CURRENCY} }`;

export const LEDGERS = `query DashboardLedgers($after: String) {
  ledgers(first: 50, after: $after) {
    nodes {
      id name ik type created balanceUTCOffset
      schema { key name }
      migrations(first: 1) { nodes { status schemaVersion { version } } }
    }
    ${PAGE}
  }
}`;

export const LEDGER = `query DashboardLedger($id: ID!) {
  ledger(ledger: { id: $id }) {
    id name ik type created balanceUTCOffset
    schema { key name version { version json } }
    migrations(first: 1) { nodes { status schemaVersion { version } } }
  }
}`;

/** One page of a ledger's accounts with their balances; the tree is built from parent ids. */
export const LEDGER_ACCOUNTS = `query DashboardLedgerAccounts($id: ID!, $after: String) {
  ledger(ledger: { id: $id }) {
    ledgerAccounts(first: 50, after: $after) {
      nodes {
        id path name type parentLedgerAccountId currencyMode
        consistencyConfig { ownBalanceUpdates }
        linkedAccount { id name link { id name } }
        ownBalances(first: 5) { ${AMOUNTS} }
        balances(first: 5) { ${AMOUNTS} }
      }
      ${PAGE}
    }
  }
}`;

export const ACCOUNT = `query DashboardAccount($id: ID!) {
  ledgerAccount(ledgerAccount: { id: $id }) {
    id path name type created currencyMode ik
    ${CURRENCY}
    consistencyConfig { lines ownBalanceUpdates totalBalanceUpdates }
    ledger { id name balanceUTCOffset }
    parentLedgerAccount { id path }
    linkedAccount { id name externalId link { id name } }
    ownBalances(first: 20) { ${AMOUNTS} }
    balances(first: 20) { ${AMOUNTS} }
  }
}`;

/**
 * A balance series and the change per bucket, for one currency, at the ledger's offset: the
 * buckets before the anchor (when there are any) and from the anchor on (series.ts).
 */
export const ACCOUNT_SERIES = `query DashboardAccountSeries(
  $id: ID!, $currency: CurrencyMatchInput, $anchor: FirstMoment!, $before: Int!, $after: Int!,
  $withBefore: Boolean!, $granularity: Granularity!
) {
  ledgerAccount(ledgerAccount: { id: $id }) {
    balancesBefore: balancesDuring(
      currency: $currency, startTime: $anchor, duration: $before, granularity: $granularity, first: 200
    ) @include(if: $withBefore) { nodes { at amount { amount } } }
    balancesAfter: balancesDuring(
      currency: $currency, startTime: $anchor, duration: $after, granularity: $granularity, first: 200
    ) { nodes { at amount { amount } } }
    changesBefore: balanceChangesDuring(
      currency: $currency, startTime: $anchor, duration: $before, granularity: $granularity, first: 200
    ) @include(if: $withBefore) { nodes { period amount { amount } } }
    changesAfter: balanceChangesDuring(
      currency: $currency, startTime: $anchor, duration: $after, granularity: $granularity, first: 200
    ) { nodes { period amount { amount } } }
  }
}`;

const LINE = `id posted amount description ${CURRENCY} ledgerEntryId ledgerEntry { type description }`;

export const ACCOUNT_LINES = `query DashboardAccountLines($id: ID!, $after: String) {
  ledgerAccount(ledgerAccount: { id: $id }) {
    lines(first: 25, after: $after) { nodes { ${LINE} } ${PAGE} }
  }
}`;

export const ENTRY = `query DashboardEntry($id: ID!) {
  ledgerEntry(ledgerEntry: { id: $id }) {
    id ik type typeVersion description posted created date hidden
    isReversal isReversed reversedAt reversalPosition
    parameters
    ledger { id name }
    tags { key value }
    groups { key value }
    conditions {
      account { id path }
      ${CURRENCY}
      precondition { ownBalance { eq gte lte } totalBalance { eq gte lte } }
      postcondition { ownBalance { eq gte lte } totalBalance { eq gte lte } }
    }
    reverses { id posted }
    reversedBy { id posted }
    lines { nodes { id amount description key ${CURRENCY} account { id path } tags { key value } } }
  }
  ledgerEntryHistory(ledgerEntry: { id: $id }) {
    nodes { id posted created isReversal reversalPosition }
  }
}`;

export const LEDGER_GROUPS = `query DashboardLedgerGroups($id: ID!, $after: String) {
  ledger(ledger: { id: $id }) {
    ledgerEntryGroups(first: 50, after: $after) { nodes { key value created } ${PAGE} }
  }
}`;

export const GROUP = `query DashboardGroup($ledger: ID!, $key: SafeString!, $value: SafeString!) {
  ledgerEntryGroup(ledgerEntryGroup: { ledger: { id: $ledger }, key: $key, value: $value }) {
    key value created
    ledger { id name }
    balances(first: 100) { nodes { account { id path } ${CURRENCY} ownBalance } }
  }
}`;

export const GROUP_ENTRIES = `query DashboardGroupEntries($ledger: ID!, $key: SafeString!, $value: SafeString!, $after: String) {
  ledgerEntryGroup(ledgerEntryGroup: { ledger: { id: $ledger }, key: $key, value: $value }) {
    ledgerEntries(first: 25, after: $after) { nodes { id ik type description posted } ${PAGE} }
  }
}`;

export const LEDGER_ENTRIES = `query DashboardLedgerEntries($id: ID!, $after: String) {
  ledger(ledger: { id: $id }) {
    ledgerEntries(first: 25, after: $after) { nodes { id ik type description posted isReversal } ${PAGE} }
  }
}`;

export const LINKS = `query DashboardLinks {
  links { nodes { __typename id name created } }
}`;

export const LINK = `query DashboardLink($id: ID!) {
  link(link: { id: $id }) {
    __typename id name created
    externalAccounts {
      nodes { id externalId name ledgerAccounts(first: 10) { nodes { id path ledger { id name } } } }
    }
  }
}`;

export const UNRECONCILED_TXS = `query DashboardUnreconciledTxs($id: ID!, $after: String) {
  ledgerAccount(ledgerAccount: { id: $id }) {
    unreconciledTxs(first: 25, after: $after) { nodes { id externalId description amount posted ${CURRENCY} } ${PAGE} }
  }
}`;
