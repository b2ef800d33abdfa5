import { instanceCurrency, missingAccounts, resolvePath, type Chart, type PlannedAccount } from '../../core/chart.js';
import { newId } from '../../core/ids.js';
import { placeholders, renderText, type Parameters } from '../../core/templates.js';
import { checkLinkedCurrency } from '../links/linkedAccounts.js';
import { requireExternalAccount } from '../links/externalAccountMatch.js';
import {
  accountPathsOfLedger,
  insertLedgerAccounts,
  updateAccountAttributes,
  type NewLedgerAccount,
} from '../../db/ledgerAccounts.js';
import type { LedgerRow } from '../../db/ledgers.js';
import type { Db } from '../../db/sql.js';

// Accounts of ledgers on a schema come from its chart: all of them when the ledger is created,
// the new ones when a version adds them, template instances when an entry first names them.
// A schema account's ik is its path, which is unique in the ledger and stable across versions.

/** Rows for the planned accounts; parents are looked up in `ids`, which learns the new ids. */
export function plannedAccountRows(
  ledger: Pick<LedgerRow, 'workspaceId' | 'id'>,
  planned: readonly PlannedAccount[],
  ids: Map<string, string>,
  parameters: Parameters = {},
): NewLedgerAccount[] {
  return planned.map(({ path, chartAccount }) => {
    const id = newId('acct');
    ids.set(path, id);
    const slash = path.lastIndexOf('/');
    const currencyCode = instanceCurrency(chartAccount, parameters);
    return {
      workspaceId: ledger.workspaceId,
      ledgerId: ledger.id,
      id,
      ik: path,
      path,
      parentId: slash === -1 ? null : ids.get(path.slice(0, slash))!,
      depth: chartAccount.depth,
      name: accountName(chartAccount.name ?? chartAccount.key, parameters),
      type: chartAccount.type,
      currencyMode: chartAccount.currencyMode,
      currencyCode,
      consistency: chartAccount.consistency,
      linkedAccountId: null,
      requestHash: 'schema',
    };
  });
}

/**
 * Links the planned rows whose chart account names an external account (placeholders rendered
 * with the parameters): the external account must exist and hold the account's currency.
 */
export async function linkPlannedRows(
  db: Db,
  workspaceId: string,
  planned: readonly PlannedAccount[],
  rows: NewLedgerAccount[],
  parameters: Parameters = {},
): Promise<NewLedgerAccount[]> {
  return Promise.all(
    rows.map(async (row, index) => {
      const { chartAccount, path } = planned[index];
      const link = chartAccount.linkedAccount;
      if (!link) return row;
      const render = (text: string | null | undefined) =>
        text == null ? null : renderText(text, parameters, `the linked account of ${path}`);
      const external = await requireExternalAccount(
        db,
        workspaceId,
        { id: render(link.id), linkId: render(link.linkId), externalId: render(link.externalId) },
        `linkedAccount of ${chartAccount.chartPath}`,
      );
      checkLinkedCurrency(path, row, external);
      return { ...row, linkedAccountId: external.id };
    }),
  );
}

/**
 * Brings one ledger's accounts in line with the chart: adds what is missing (under template
 * instances too) and takes names and consistency from the chart. Types and currencies never
 * change: the schema check refuses versions that would change them.
 */
export async function applyChart(trx: Db, ledger: Pick<LedgerRow, 'workspaceId' | 'id'>, chart: Chart): Promise<void> {
  const existing = await accountPathsOfLedger(trx, ledger.workspaceId, ledger.id);
  const ids = new Map(existing.map((account) => [account.path, account.id]));
  const planned = missingAccounts(chart, new Set(ids.keys()));
  await insertLedgerAccounts(
    trx,
    await linkPlannedRows(trx, ledger.workspaceId, planned, plannedAccountRows(ledger, planned, ids)),
  );
  await updateAccountAttributes(
    trx,
    ledger.workspaceId,
    existing.flatMap(({ id, path }) => {
      const chartAccount = resolvePath(chart, path).at(-1)!.chartAccount;
      const name = chartAccount.name ?? chartAccount.key;
      // A name with placeholders was rendered for its instance and stays as it is.
      return [{ id, name: placeholders(name).length > 0 ? null : name, consistency: chartAccount.consistency }];
    }),
  );
}

/** The chart name with the parameters it can use; placeholders without a value stay as written. */
function accountName(name: string, parameters: Parameters): string {
  return name.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (match, key: string) => parameters[key] ?? match);
}
