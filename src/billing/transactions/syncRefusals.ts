import { DomainError, type Violation } from '../../core/errors.js';
import type { RequestBody } from '../handlerTypes.js';

// The typed refusals of a transaction sync, whichever path found them (sync_transaction in one
// statement, or the transaction that also moves payment flows on).

type Body = RequestBody<'syncTransaction'>;

/** The account named by id does not exist, or has another external id (`externalIdFound`). */
export function unknownAccount(ref: Body['account'], externalIdFound: string | undefined): DomainError {
  const message =
    externalIdFound !== undefined
      ? `external account ${ref.id} has external id ${externalIdFound}, not ${ref.external_id}`
      : `external account ${ref.id} does not exist`;
  return new DomainError(
    'unknown_account',
    `External account ${ref.id} ${externalIdFound !== undefined ? 'does not match the external id given' : 'does not exist'}.`,
    { violations: [{ pointer: '/body/account/id', message }] },
  );
}

/** The allocations at these indexes name invoices that do not exist. */
export function unknownInvoices(body: Body, indexes: readonly number[]): DomainError {
  const violations: Violation[] = indexes.map((index) => ({
    pointer: `/body/allocations/${index}/invoice_id`,
    message: `invoice ${body.allocations[index].invoice_id} does not exist`,
  }));
  return new DomainError('unknown_invoice', `Invoice ${body.allocations[indexes[0]].invoice_id} does not exist.`, {
    violations,
  });
}

/** The allocations at these indexes name users by ids that do not exist. */
export function unknownUsers(body: Body, indexes: readonly number[]): DomainError {
  const violations: Violation[] = indexes.map((index) => {
    const user = body.allocations[index].user;
    return {
      pointer: `/body/allocations/${index}/user/id`,
      message: `user ${'id' in user ? user.id : ''} does not exist`,
    };
  });
  return new DomainError('unknown_user', 'An allocation names a user id that does not exist.', { violations });
}

export function allocatedTotal(body: Body): bigint {
  return body.allocations.reduce((sum, allocation) => sum + BigInt(allocation.amount), 0n);
}

/** The allocations total more than the amount's magnitude. */
export function overAllocated(body: Body): DomainError {
  const amount = BigInt(body.amount);
  const magnitude = amount < 0n ? -amount : amount;
  const allocated = allocatedTotal(body);
  return new DomainError(
    'over_allocated',
    `Allocations total ${allocated} but the transaction amount is ${body.amount}.`,
    {
      violations: [
        { pointer: '/body/allocations', message: `allocations total ${allocated} exceeds |amount| ${magnitude}` },
      ],
    },
  );
}
