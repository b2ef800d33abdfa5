import type { QueryResolvers } from '../../../../generated/ledger.js';
import { pageLedgers } from '../../../db/ledgers.js';

export const ledgers: NonNullable<QueryResolvers['ledgers']> = async (_parent, args, { sql, caller, pages }) => {
  const ledgerPages = pages('ledgers');
  const request = ledgerPages.request(args);
  const filter = args.filter ?? {};
  // Every ledger is of type double, so a type filter either keeps all or none.
  const types = filter.type?.in ?? (filter.type?.equalTo ? [filter.type.equalTo] : undefined);
  const rows =
    types && !types.includes('double')
      ? []
      : await pageLedgers(sql, caller.workspaceId, request, { hasSchema: filter.hasSchema ?? undefined });
  return ledgerPages.page(request, rows, (row) => [row.created.toISOString(), row.id]);
};
