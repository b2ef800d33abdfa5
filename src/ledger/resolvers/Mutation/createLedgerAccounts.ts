import type { CreateLedgerAccountsInput, MutationResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { MAX_ACCOUNTS_PER_CALL } from '../../../core/ledgerAccounts.js';
import type { LedgerAccountRow } from '../../../db/ledgerAccounts.js';
import type { LedgerRow } from '../../../db/ledgers.js';
import type { Db } from '../../../db/sql.js';
import {
  accountRequest,
  createAccount,
  ledgerForAccounts,
  parentAccount,
  type CreatedAccount,
} from '../../accounts/createAccount.js';
import { asMutationResult } from '../../mutationResult.js';

/** Creates a tree of accounts, all or none; every account reports its own ik replay. */
export const createLedgerAccounts: NonNullable<MutationResolvers['createLedgerAccounts']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'createLedgerAccounts', () => {
    checkTree(args.ledgerAccounts);
    return ctx.sql.begin(async (trx) => {
      const ledger = await ledgerForAccounts(trx, ctx.caller.workspaceId, args.ledger);
      const created: CreatedAccount[] = [];
      for (const item of args.ledgerAccounts) {
        const parent = item.parent ? await parentAccount(trx, ledger, item.parent) : undefined;
        await createSubtree(trx, ledger, item, parent, created);
      }
      return {
        __typename: 'CreateLedgerAccountsResult' as const,
        ledgerAccounts: created.map((entry) => entry.account),
        ikReplays: created.map((entry) => ({ ik: entry.account.ik, isIkReplay: entry.isIkReplay })),
      };
    });
  });

/** Depth-first, parents before children: the order of the answer. */
async function createSubtree(
  trx: Db,
  ledger: LedgerRow,
  item: CreateLedgerAccountsInput,
  parent: LedgerAccountRow | undefined,
  out: CreatedAccount[],
) {
  const created = await createAccount(trx, ledger, accountRequest(item), parent, true);
  out.push(created);
  for (const child of item.childLedgerAccounts ?? []) await createSubtree(trx, ledger, child, created.account, out);
}

/** Size, duplicate iks and misplaced fields are refused before any database work. */
function checkTree(roots: readonly CreateLedgerAccountsInput[]) {
  const iks = new Set<string>();
  const visit = (item: CreateLedgerAccountsInput, topLevel: boolean) => {
    if (!topLevel && item.parent)
      throw new DomainError(
        'invalid_input_provided',
        `Account ${item.ik}: only top-level accounts of the call may name a parent.`,
      );
    if (item.linkedAccount && item.childLedgerAccounts?.length) {
      throw new DomainError(
        'invalid_input_provided',
        `Account ${item.ik}: only accounts without children may be linked.`,
      );
    }
    if (iks.has(item.ik)) throw new DomainError('invalid_input_provided', `ik ${item.ik} appears twice in the call.`);
    iks.add(item.ik);
    if (iks.size > MAX_ACCOUNTS_PER_CALL) {
      throw new DomainError(
        'invalid_input_provided',
        `At most ${MAX_ACCOUNTS_PER_CALL} accounts may be created in one call.`,
      );
    }
    for (const child of item.childLedgerAccounts ?? []) visit(child, false);
  };
  if (roots.length === 0) throw new DomainError('invalid_input_provided', 'Give at least one account to create.');
  for (const root of roots) visit(root, true);
}
