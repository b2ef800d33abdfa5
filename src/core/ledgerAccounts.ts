import type { BalanceUpdateConsistencyMode, LedgerLinesConsistencyMode } from '../../generated/ledger.js';
import { optionalCurrencyKey } from './currencyKeys.js';
import { DomainError } from './errors.js';

// Rules for accounts created through the API in a ledger without schema: the tree's depth,
// paths built from iks, types and currencies inherited from the parent, consistency defaults.

export const MAX_ACCOUNT_DEPTH = 10;
export const MAX_ACCOUNTS_PER_CALL = 200;
/** Tally's workspaces have no currency setting; single-currency accounts that name none use this. */
export const WORKSPACE_DEFAULT_CURRENCY = 'USD';

export type AccountType = 'asset' | 'liability' | 'income' | 'expense';
export type Consistency = {
  lines: LedgerLinesConsistencyMode;
  ownBalanceUpdates: BalanceUpdateConsistencyMode;
  totalBalanceUpdates?: BalanceUpdateConsistencyMode;
  groups: { key: string; ownBalanceUpdates: BalanceUpdateConsistencyMode }[];
};

/** A consistencyConfig as given: each field it names replaces the inherited one. */
export type ConsistencyInput = Partial<Omit<Consistency, 'groups'>> & { groups?: Consistency['groups'] | null };

export const DEFAULT_CONSISTENCY: Consistency = { lines: 'eventual', ownBalanceUpdates: 'eventual', groups: [] };

/** The consistency an account gets: what it names, else what it inherits (its parent's, or the default). */
export function mergeConsistency(base: Consistency, given: ConsistencyInput | null | undefined): Consistency {
  if (!given) return base;
  const merged: Consistency = {
    lines: given.lines ?? base.lines,
    ownBalanceUpdates: given.ownBalanceUpdates ?? base.ownBalanceUpdates,
    groups: given.groups ?? base.groups,
  };
  const total = given.totalBalanceUpdates ?? base.totalBalanceUpdates;
  if (total) merged.totalBalanceUpdates = total;
  return merged;
}

export type AccountRequest = {
  ik: string;
  name: string;
  type?: AccountType | null;
  currency?: { code: string; customCurrencyId?: string | null } | null;
  currencyMode?: 'single' | 'multi' | null;
  consistencyConfig?: ConsistencyInput | null;
  /** ExternalAccountMatchInput of a linked account. */
  linkedAccount?: { id?: string | null; linkId?: string | null; externalId?: string | null } | null;
};

export type NewAccountAttributes = {
  path: string;
  depth: number;
  type: AccountType;
  currencyMode: 'single' | 'multi';
  currencyCode: string | null;
  consistency: Consistency;
};

/** An existing account as a parent: what a child inherits, and its id. */
export type ParentAccount = NewAccountAttributes & { id: string };

/**
 * The attributes of a new account under `parent` (or at the top). `inherit` says whether an
 * omitted currency and consistency come from the parent (createLedgerAccounts) or from defaults.
 */
export function newAccountAttributes(
  request: AccountRequest,
  parent: ParentAccount | undefined,
  inherit: boolean,
): NewAccountAttributes {
  const depth = (parent?.depth ?? 0) + 1;
  if (depth > MAX_ACCOUNT_DEPTH) {
    throw new DomainError(
      'invalid_input_provided',
      `Account ${request.ik} would be ${depth} levels deep; at most ${MAX_ACCOUNT_DEPTH} are allowed.`,
    );
  }
  const type = request.type ?? parent?.type;
  if (!type)
    throw new DomainError('invalid_input_provided', `Account ${request.ik} is a top-level account and needs a type.`);
  if (parent && type !== parent.type) {
    throw new DomainError(
      'invalid_input_provided',
      `Account ${request.ik} must have its parent's type (${parent.type}), not ${type}.`,
    );
  }
  const inherited = inherit ? parent : undefined;
  const currencyMode = request.currencyMode ?? (request.currency ? 'single' : (inherited?.currencyMode ?? 'single'));
  if (currencyMode === 'multi' && request.currency) {
    throw new DomainError(
      'invalid_input_provided',
      `Account ${request.ik} is multi-currency and cannot name a currency.`,
    );
  }
  const currencyCode =
    currencyMode === 'multi'
      ? null
      : (optionalCurrencyKey(request.currency, `Account ${request.ik}`) ??
        inherited?.currencyCode ??
        WORKSPACE_DEFAULT_CURRENCY);
  const consistency = mergeConsistency(inherited?.consistency ?? DEFAULT_CONSISTENCY, request.consistencyConfig);
  return {
    path: parent ? `${parent.path}/${request.ik}` : request.ik,
    depth,
    type,
    currencyMode,
    currencyCode,
    consistency,
  };
}
