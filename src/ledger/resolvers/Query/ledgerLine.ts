import type { QueryResolvers } from '../../../../generated/ledger.js';
import { findLedgerLine } from '../../../db/ledgerEntries.js';

/** One line by id, or null when none matches in the caller's workspace. */
export const ledgerLine: NonNullable<QueryResolvers['ledgerLine']> = async (_parent, args, { sql, caller }) =>
  (await findLedgerLine(sql, caller.workspaceId, args.ledgerLine.id)) ?? null;
