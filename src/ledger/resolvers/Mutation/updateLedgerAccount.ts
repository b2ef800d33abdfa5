import type { MutationResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import type { Consistency } from '../../../core/ledgerAccounts.js';
import { updateLedgerAccountRow } from '../../../db/ledgerAccounts.js';
import { lockLedgerForAccountChange } from '../../../db/ledgers.js';
import { findAccountByMatch } from '../../accounts/findAccount.js';
import { asMutationResult } from '../../mutationResult.js';

export const updateLedgerAccount: NonNullable<MutationResolvers['updateLedgerAccount']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'updateLedgerAccount', () =>
    ctx.sql.begin(async (trx) => {
      const found = await findAccountByMatch(trx, ctx.caller.workspaceId, args.ledgerAccount);
      if (!found) throw new DomainError('ledger_account_not_found', 'No ledger account matches the given id or path.');
      const { name, consistencyConfig } = args.update;
      if (name != null && name.trim() === '')
        throw new DomainError('invalid_input_provided', 'An account name cannot be empty.');
      const consistency: Consistency | undefined = consistencyConfig
        ? {
            lines: consistencyConfig.lines ?? found.consistency.lines,
            ownBalanceUpdates: consistencyConfig.ownBalanceUpdates ?? found.consistency.ownBalanceUpdates,
            groups: consistencyConfig.groups ?? found.consistency.groups,
            ...((consistencyConfig.totalBalanceUpdates ?? found.consistency.totalBalanceUpdates)
              ? { totalBalanceUpdates: consistencyConfig.totalBalanceUpdates ?? found.consistency.totalBalanceUpdates }
              : {}),
          }
        : undefined;
      await lockLedgerForAccountChange(trx, ctx.caller.workspaceId, found.ledgerId);
      const ledgerAccount = await updateLedgerAccountRow(trx, ctx.caller.workspaceId, found.id, {
        name: name ?? undefined,
        consistency,
      });
      return { __typename: 'UpdateLedgerAccountResult' as const, ledgerAccount: ledgerAccount! };
    }),
  );
