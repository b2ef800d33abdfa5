import type { QueryResolvers } from '../../../../generated/ledger.js';
import { findAccountByMatch } from '../../accounts/findAccount.js';

export const ledgerAccount: NonNullable<QueryResolvers['ledgerAccount']> = async (_parent, args, { sql, caller }) =>
  (await findAccountByMatch(sql, caller.workspaceId, args.ledgerAccount)) ?? null;
