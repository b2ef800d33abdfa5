import { customCurrencyIdOf } from '../../core/currencyKeys.js';
import { DomainError } from '../../core/errors.js';
import { placeholders } from '../../core/templates.js';
import { findCustomCurrencies } from '../../db/customCurrencies.js';
import type { Db } from '../../db/sql.js';

/** Every custom currency the keys name must exist in the workspace (keys with placeholders are checked once rendered). */
export async function requireCurrencies(
  db: Db,
  workspaceId: string,
  keys: readonly (string | null | undefined)[],
): Promise<void> {
  const ids = [
    ...new Set(
      keys.flatMap((key) => {
        const id = key ? customCurrencyIdOf(key) : null;
        return id !== null && placeholders(id).length === 0 ? [id] : [];
      }),
    ),
  ];
  if (ids.length === 0) return;
  const found = new Set((await findCustomCurrencies(db, workspaceId, ids)).map((row) => row.id));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) {
    throw new DomainError(
      'custom_currency_not_found',
      `No custom currency ${missing} exists in this workspace; create it with createCustomCurrency.`,
      { customCurrencyId: missing },
    );
  }
}
