import type { LedgerAccountRow } from './ledgerAccounts.js';
import { ledgerColumns, type LedgerMatch, type LedgerRow } from './ledgers.js';
import type { Db } from './sql.js';

export type PostingTarget = { ledger: LedgerRow & { schemaContentHash: string | null }; accounts: LedgerAccountRow[] };

/**
 * The entry's ledger (with its schema version's hash) and the accounts its lines name, in one
 * round trip: the posting path then needs only the posting statement itself. The SQL function
 * (functions/posting_target.sql) keeps one generic plan per connection.
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
    select ${ledgerColumns(db)}, schema_content_hash as "schemaContentHash", accounts
    from find_posting_target(${workspaceId}, ${match.id ?? null}, ${match.ik ?? null},
                             ${ids as string[]}::text[], ${paths as string[]}::text[], ${iks as string[]}::text[])`;
  if (!row) return undefined;
  const { accounts, ...ledger } = row;
  return { ledger, accounts: accounts.map((account) => ({ ...account, created: new Date(account.created) })) };
}
