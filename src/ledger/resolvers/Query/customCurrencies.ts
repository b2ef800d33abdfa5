import type { QueryResolvers } from '../../../../generated/ledger.js';
import { currencyKey } from '../../../core/currencyKeys.js';
import { pageCustomCurrencies } from '../../../db/customCurrencies.js';

export const customCurrencies: NonNullable<QueryResolvers['customCurrencies']> = async (
  _parent,
  args,
  { sql, caller, pages, load },
) => {
  const currencyPages = pages('custom-currencies');
  const request = currencyPages.request(args);
  const rows = await pageCustomCurrencies(sql, caller.workspaceId, request);
  for (const row of rows) load.customCurrency.prime(row.id, row);
  const page = currencyPages.page(request, rows, (row) => [row.created.toISOString(), row.id]);
  return { ...page, nodes: page.nodes.map((row) => currencyKey({ code: 'CUSTOM', customCurrencyId: row.id })) };
};
