import type { MutationResolvers } from '../../../../generated/ledger.js';
import { accountRequest, createAccount, ledgerForAccounts, parentAccount } from '../../accounts/createAccount.js';
import { asMutationResult } from '../../mutationResult.js';

export const createLedgerAccount: NonNullable<MutationResolvers['createLedgerAccount']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'createLedgerAccount', () =>
    ctx.sql.begin(async (trx) => {
      const ledger = await ledgerForAccounts(trx, ctx.caller.workspaceId, args.ledger);
      const parent = args.ledgerAccount.parent
        ? await parentAccount(trx, ledger, args.ledgerAccount.parent)
        : undefined;
      // A single account takes its currency and consistency from the defaults, not from its parent.
      const created = await createAccount(
        trx,
        ledger,
        accountRequest({ ...args.ledgerAccount, ik: args.ik }),
        parent,
        false,
      );
      return {
        __typename: 'CreateLedgerAccountResult' as const,
        ledgerAccount: created.account,
        isIkReplay: created.isIkReplay,
      };
    }),
  );
