import type {
  CreateLedgerAccountsInput,
  LedgerAccountMatchInput,
  LedgerMatchInput,
} from '../../../generated/ledger.js';
import { DomainError } from '../../core/errors.js';
import { fingerprint } from '../../core/fingerprint.js';
import { sameFingerprint } from '../../core/idempotency.js';
import { newId } from '../../core/ids.js';
import { newAccountAttributes, type AccountRequest, type ParentAccount } from '../../core/ledgerAccounts.js';
import { createOnce } from '../../db/createOnce.js';
import { findLedgerAccount, insertLedgerAccount, type LedgerAccountRow } from '../../db/ledgerAccounts.js';
import { findLedger, type LedgerRow } from '../../db/ledgers.js';
import { parseCurrencyKey } from '../../core/currencyKeys.js';
import { requireExternalAccount } from '../links/externalAccountMatch.js';
import { checkLinkedCurrency } from '../links/linkedAccounts.js';
import { requireCurrencies } from '../links/customCurrencies.js';
import type { Db } from '../../db/sql.js';
import { requireLedgerMatch } from '../ledgerMatch.js';

// Creating accounts in a ledger without schema, shared by createLedgerAccount and
// createLedgerAccounts: one account per call of `createAccount`, inside the caller's transaction.

/** The ledger that receives API-created accounts: it must exist and have no schema. */
export async function ledgerForAccounts(trx: Db, workspaceId: string, match: LedgerMatchInput): Promise<LedgerRow> {
  const ledger = await findLedger(trx, workspaceId, requireLedgerMatch(match));
  if (!ledger) throw new DomainError('ledger_not_found', 'No ledger matches the given id or ik.');
  if (ledger.schemaKey) {
    throw new DomainError(
      'invalid_input_provided',
      `Ledger ${ledger.ik} follows schema ${ledger.schemaKey}: its accounts come from the schema.`,
    );
  }
  return ledger;
}

/** The parent named by a match input, in the same ledger. */
export async function parentAccount(
  trx: Db,
  ledger: LedgerRow,
  match: LedgerAccountMatchInput,
): Promise<LedgerAccountRow> {
  if (match.id == null && match.path == null && match.ik == null)
    throw new DomainError('invalid_input_provided', 'Identify the parent account by id, path or ik.');
  if (match.ledger && (match.ledger.id ?? ledger.id) !== ledger.id && (match.ledger.ik ?? ledger.ik) !== ledger.ik) {
    throw new DomainError('invalid_input_provided', 'The parent account must be in the same ledger.');
  }
  const parent = await findLedgerAccount(trx, ledger.workspaceId, {
    ledgerId: ledger.id,
    id: match.id ?? undefined,
    path: match.path ?? undefined,
    ik: match.ik ?? undefined,
  });
  if (!parent) throw new DomainError('ledger_account_not_found', 'No account of this ledger matches the parent given.');
  return parent;
}

export type CreatedAccount = { account: LedgerAccountRow; isIkReplay: boolean };

/**
 * Creates the account, or replays it when its ik already holds the same request; the same ik
 * with another request is `idempotency_key_reused`. A concurrent twin is answered as a replay
 * (db/createOnce.ts).
 */
export async function createAccount(
  trx: Db,
  ledger: LedgerRow,
  request: AccountRequest,
  parent: (ParentAccount & { linkedAccountId: string | null }) | undefined,
  inherit: boolean,
): Promise<CreatedAccount> {
  if (parent?.linkedAccountId) {
    throw new DomainError(
      'invalid_input_provided',
      `${parent.path} is linked to an external account, so it cannot have children.`,
    );
  }
  const linked = request.linkedAccount
    ? await requireExternalAccount(
        trx,
        ledger.workspaceId,
        request.linkedAccount,
        `Account ${request.ik}: linkedAccount`,
      )
    : undefined;
  // A linked account holds its external account's currencies unless the request names them.
  const withCurrency =
    linked && !request.currency && !request.currencyMode
      ? {
          ...request,
          currencyMode: linked.currencyMode,
          currency: linked.currency ? parseCurrencyKey(linked.currency) : null,
        }
      : request;
  const attributes = { ...newAccountAttributes(withCurrency, parent, inherit), linkedAccountId: linked?.id ?? null };
  if (linked) checkLinkedCurrency(attributes.path, attributes, linked);
  await requireCurrencies(trx, ledger.workspaceId, [attributes.currencyCode]);
  const requestHash = fingerprint({ name: request.name, parentId: parent?.id ?? null, ...attributes });
  const result = await createOnce({
    key: { field: 'ik', value: request.ik, scope: 'in this ledger' },
    find: () => findLedgerAccount(trx, ledger.workspaceId, { ledgerId: ledger.id, ik: request.ik }),
    same: sameFingerprint(requestHash),
    create: async (taken) =>
      (await insertLedgerAccount(trx, {
        workspaceId: ledger.workspaceId,
        ledgerId: ledger.id,
        id: newId('acct'),
        ik: request.ik,
        parentId: parent?.id ?? null,
        name: request.name,
        requestHash,
        ...attributes,
      })) ?? taken(),
  });
  return { account: result.row, isIkReplay: result.replayed };
}

/** The request of one item of a tree, without its children. */
export function accountRequest(
  input: CreateLedgerAccountsInput | (Omit<CreateLedgerAccountsInput, 'ik'> & { ik: string }),
): AccountRequest {
  return {
    ik: input.ik,
    name: input.name,
    type: input.type,
    currency: input.currency,
    currencyMode: input.currencyMode,
    consistencyConfig: input.consistencyConfig as AccountRequest['consistencyConfig'],
    linkedAccount: input.linkedAccount,
  };
}
