import type { QueryResolvers } from '../../../../generated/ledger.js';
import { findExternalAccount } from '../../../db/links.js';
import { externalAccountMatch } from '../../links/externalAccountMatch.js';

export const externalAccount: NonNullable<QueryResolvers['externalAccount']> = async (_parent, args, { sql, caller }) =>
  (await findExternalAccount(sql, caller.workspaceId, externalAccountMatch(args.externalAccount))) ?? null;
