import { DomainError } from '../../core/errors.js';
import { findExternalAccount, type ExternalAccountMatch, type ExternalAccountRow } from '../../db/links.js';
import type { Db } from '../../db/sql.js';

type MatchInput = { id?: string | null; linkId?: string | null; externalId?: string | null };

/** An ExternalAccountMatchInput checked: `id`, or `linkId` with `externalId`; extra fields must agree. */
export function externalAccountMatch(input: MatchInput, where = 'externalAccount'): ExternalAccountMatch {
  if (input.externalId != null && input.linkId == null) {
    throw new DomainError('invalid_input_provided', `${where}: externalId needs linkId.`);
  }
  if (input.id == null && input.externalId == null) {
    throw new DomainError('invalid_input_provided', `${where}: give id, or linkId with externalId.`);
  }
  return { id: input.id ?? undefined, linkId: input.linkId ?? undefined, externalId: input.externalId ?? undefined };
}

export async function requireExternalAccount(
  db: Db,
  workspaceId: string,
  input: MatchInput,
  where?: string,
): Promise<ExternalAccountRow> {
  const account = await findExternalAccount(db, workspaceId, externalAccountMatch(input, where));
  if (!account)
    throw new DomainError(
      'external_account_not_found',
      'No external account matches the given id, or linkId and externalId.',
    );
  return account;
}
