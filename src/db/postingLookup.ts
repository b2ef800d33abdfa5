import { accountColumns, type LedgerAccountRow } from './ledgerAccounts.js';
import { ledgerColumns, type LedgerMatch, type LedgerRow } from './ledgers.js';
import type { Db } from './sql.js';

export type PostingTarget = { ledger: LedgerRow & { schemaContentHash: string | null }; accounts: LedgerAccountRow[] };

/**
 * The entry's ledger (with its schema version's hash) and the accounts its lines name, in one
 * round trip: the posting path then needs only the posting statement itself. The names are
 * unnested and joined, so each is one index probe whatever the ledger's size.
 */
export async function findPostingTarget(
  db: Db,
  workspaceId: string,
  match: LedgerMatch,
  ids: readonly string[],
  paths: readonly string[],
  iks: readonly string[] = [],
): Promise<PostingTarget | undefined> {
  const [row] = await db<
    (LedgerRow & {
      schemaContentHash: string | null;
      accounts: (Omit<LedgerAccountRow, 'created'> & { created: string })[];
    })[]
  >`
    /* findPostingTarget */
    select ${ledgerColumns(db)}, (
      select v.content_hash from ledger_schema_versions v
      where v.workspace_id = ledgers.workspace_id and v.schema_key = ledgers.schema_key and v.version = ledgers.schema_version
    ) as "schemaContentHash", (
      select coalesce(json_agg(named), '[]') from (
        select ${accountColumns(db, 'a')} from unnest(${ids as string[]}::text[]) wanted (id)
        join ledger_accounts a on a.workspace_id = ledgers.workspace_id and a.id = wanted.id and a.ledger_id = ledgers.id
        union
        select ${accountColumns(db, 'a')} from unnest(${paths as string[]}::text[]) wanted (path)
        join ledger_accounts a on a.workspace_id = ledgers.workspace_id and a.ledger_id = ledgers.id and a.path = wanted.path
        union
        select ${accountColumns(db, 'a')} from unnest(${iks as string[]}::text[]) wanted (ik)
        join ledger_accounts a on a.workspace_id = ledgers.workspace_id and a.ledger_id = ledgers.id and a.ik = wanted.ik
      ) named
    ) as accounts
    from ledgers
    where workspace_id = ${workspaceId} and deleted_at is null
      ${match.id != null ? db`and id = ${match.id}` : db``}
      ${match.ik != null ? db`and ik = ${match.ik}` : db``}`;
  if (!row) return undefined;
  const { accounts, ...ledger } = row;
  return { ledger, accounts: accounts.map((account) => ({ ...account, created: new Date(account.created) })) };
}
