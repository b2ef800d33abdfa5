import { DomainError } from '../../core/errors.js';
import { findLink, type LinkRow } from '../../db/links.js';
import type { Db } from '../../db/sql.js';

/** The link a LinkMatchInput names, which syncing requires to be a custom link. */
export async function requireCustomLink(db: Db, workspaceId: string, match: { id: string }): Promise<LinkRow> {
  const link = await findLink(db, workspaceId, { id: match.id });
  if (!link) throw new DomainError('link_not_found', `No link ${match.id} exists in this workspace.`);
  if (link.kind !== 'custom')
    throw new DomainError(
      'invalid_input_provided',
      `Link ${link.id} is a provider link; its accounts and transactions are synced by the provider.`,
    );
  return link;
}
