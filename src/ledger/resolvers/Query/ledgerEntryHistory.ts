import type { QueryResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { pageEntryHistory } from '../../../db/ledgerLists.js';
import { findEntryByMatch } from './ledgerEntry.js';

/** Every entry sharing the matched entry's ik (original, reversals, reposts), oldest first. */
export const ledgerEntryHistory: NonNullable<QueryResolvers['ledgerEntryHistory']> = async (_parent, args, ctx) => {
  const entry = await findEntryByMatch(ctx.sql, ctx.caller.workspaceId, args.ledgerEntry);
  if (!entry) throw new DomainError('ledger_entry_not_found', 'No ledger entry matches the given id or ik.');
  const historyPages = ctx.pages(`entry-history:${entry.ledgerId}:${entry.ik}`);
  // The field takes no page arguments: the whole history is the default page.
  const request = historyPages.request({});
  const rows = await pageEntryHistory(ctx.sql, entry.workspaceId, entry.ledgerId, entry.ik, request);
  return historyPages.page(request, rows, (row) => [String(row.reversalPosition)]);
};
