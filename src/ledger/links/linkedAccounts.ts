import { currencyLabel } from '../../core/currencyKeys.js';
import { DomainError } from '../../core/errors.js';
import type { ExternalAccountRow } from '../../db/links.js';

// A linked ledger account mirrors one external account: its lines come only from reconciled
// transactions, so it holds exactly the external account's currencies.

export function checkLinkedCurrency(
  path: string,
  account: { currencyMode: 'single' | 'multi'; currencyCode: string | null },
  external: ExternalAccountRow,
): void {
  if (account.currencyMode !== external.currencyMode || account.currencyCode !== external.currency) {
    const describe = (mode: string, currency: string | null) =>
      mode === 'multi' ? 'several currencies' : currencyLabel(currency!);
    throw new DomainError(
      'invalid_input_provided',
      `${path} holds ${describe(account.currencyMode, account.currencyCode)} but the external account ${external.externalId} holds ${describe(external.currencyMode, external.currency)}; a linked account must hold the same.`,
    );
  }
}
