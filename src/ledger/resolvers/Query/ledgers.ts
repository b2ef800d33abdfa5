import type { QueryResolvers } from '../../../../generated/ledger.js';
import { pageRequest, toPage } from '../../../core/pagination.js';
import { pageLedgers } from '../../../db/ledgers.js';

export const ledgers: NonNullable<QueryResolvers['ledgers']> = async (_parent, args, { sql, caller }) => {
  const request = pageRequest(args);
  const filter = args.filter ?? {};
  // Every ledger is of type double, so a type filter either keeps all or none.
  const types = filter.type?.in ?? (filter.type?.equalTo ? [filter.type.equalTo] : undefined);
  const rows = types && !types.includes('double')
    ? []
    : await pageLedgers(sql, caller.workspaceId, request, { hasSchema: filter.hasSchema ?? undefined });
  return toPage(request, rows, (row) => [row.created.toISOString(), row.id]);
};
