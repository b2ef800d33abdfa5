import type { QueryResolvers } from '../../../../generated/ledger.js';
import { findLedger } from '../../../db/ledgers.js';
import { requireLedgerMatch } from '../../ledgerMatch.js';

export const ledger: NonNullable<QueryResolvers['ledger']> = async (_parent, args, { sql, caller }) =>
  (await findLedger(sql, caller.workspaceId, requireLedgerMatch(args.ledger))) ?? null;
