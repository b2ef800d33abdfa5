import type { QueryResolvers } from '../../../../generated/ledger.js';
import { pageSchemas } from '../../../db/ledgerSchemas.js';

export const schemas: NonNullable<QueryResolvers['schemas']> = async (_parent, args, { sql, caller, pages }) => {
  const schemaPages = pages('schemas');
  const request = schemaPages.request(args);
  const rows = await pageSchemas(sql, caller.workspaceId, request);
  return schemaPages.page(request, rows, (row) => [row.key]);
};
