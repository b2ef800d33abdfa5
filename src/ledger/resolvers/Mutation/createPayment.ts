import { randomBytes } from 'node:crypto';
import type { MutationResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { fingerprint } from '../../../core/fingerprint.js';
import { sameFingerprint } from '../../../core/idempotency.js';
import { newId } from '../../../core/ids.js';
import {
  checkPlainAmount,
  findPaymentType,
  paymentAmount,
  paymentParameters,
  type SchemaPaymentType,
} from '../../../core/payments.js';
import { createOnce } from '../../../db/createOnce.js';
import { findLedger } from '../../../db/ledgers.js';
import { findPaymentByIk, insertPayment, type PaymentRow } from '../../../db/payments.js';
import { requireLedgerMatch } from '../../ledgerMatch.js';
import { asMutationResult } from '../../mutationResult.js';
import { loadSchemaVersion } from '../../schemas/schemaVersions.js';

/** Experimental: records a payment (by payment type, or a plain amount) and answers its client secret. */
export const createPayment: NonNullable<MutationResolvers['createPayment']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'createPayment', async () => {
    if ((args.amount == null) === (args.payment == null)) {
      throw new DomainError(
        'invalid_input_provided',
        'Give exactly one of payment (a payment type with parameters) or amount.',
      );
    }
    const workspaceId = ctx.caller.workspaceId;
    const ledger = await findLedger(ctx.sql, workspaceId, requireLedgerMatch(args.ledger));
    if (!ledger) throw new DomainError('ledger_not_found', 'No ledger matches the given id or ik.');
    let fields: Pick<PaymentRow, 'type' | 'typeVersion' | 'parameters' | 'amount'>;
    if (args.payment) {
      const parameters = paymentParameters(args.payment.parameters);
      const schema =
        ledger.schemaKey && ledger.schemaVersion
          ? await loadSchemaVersion(ctx.sql, workspaceId, ledger.schemaKey, ledger.schemaVersion)
          : undefined;
      const types =
        (schema?.content as { payments?: { types?: SchemaPaymentType[] } } | undefined)?.payments?.types ?? [];
      const paymentType = findPaymentType(types, args.payment.type, args.payment.typeVersion);
      fields = {
        type: paymentType.type,
        typeVersion: paymentType.typeVersion,
        parameters,
        amount: paymentAmount(paymentType, parameters).toString(),
      };
    } else {
      fields = { type: null, typeVersion: null, parameters: null, amount: checkPlainAmount(args.amount!).toString() };
    }
    const requestHash = fingerprint(fields);
    const id = newId('pay');
    const { row } = await createOnce({
      key: { field: 'ik', value: args.ik, scope: 'in this ledger' },
      find: () => findPaymentByIk(ctx.sql, workspaceId, ledger.id, args.ik),
      same: sameFingerprint(requestHash),
      create: async (taken) =>
        (await insertPayment(ctx.sql, {
          workspaceId,
          ledgerId: ledger.id,
          id,
          ik: args.ik,
          ...fields,
          status: 'requires_confirmation',
          clientSecret: `${id}_secret_${randomBytes(18).toString('base64url')}`,
          requestHash,
        })) ?? taken(),
      lookFirst: false,
    });
    return { __typename: 'Payment' as const, clientSecret: row.clientSecret, status: row.status };
  });
