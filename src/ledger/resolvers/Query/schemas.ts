import type { QueryResolvers } from '../../../../generated/ledger.js';
import { pageRequest, toPage } from '../../../core/pagination.js';
import { pageSchemas } from '../../../db/ledgerSchemas.js';

export const schemas: NonNullable<QueryResolvers['schemas']> = async (_parent, args, { sql, caller }) => {
  const request = pageRequest(args);
  const rows = await pageSchemas(sql, caller.workspaceId, request);
  return toPage(request, rows, (row) => [row.key]);
};
