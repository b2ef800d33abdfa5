import type { MutationResolvers } from '../../../../generated/ledger.js';
import { currencyKey } from '../../../core/currencyKeys.js';
import { DomainError } from '../../../core/errors.js';
import { checkName, MAX_CUSTOM_CURRENCY_TEXT, PRECISION_RANGE } from '../../../core/links.js';
import { createOnce } from '../../../db/createOnce.js';
import { findCustomCurrencies, insertCustomCurrency } from '../../../db/customCurrencies.js';
import { asMutationResult } from '../../mutationResult.js';

/**
 * Creates a custom currency. Its id acts as an idempotency key: the same id with the same
 * code, name and precision answers the existing currency; with anything else it is refused.
 */
export const createCustomCurrency: NonNullable<MutationResolvers['createCustomCurrency']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'createCustomCurrency', async () => {
    const { customCurrencyId: id, customCode, name, precision } = args.customCurrency;
    if (id.length > MAX_CUSTOM_CURRENCY_TEXT) {
      throw new DomainError(
        'invalid_input_provided',
        `customCurrencyId has ${id.length} characters; at most ${MAX_CUSTOM_CURRENCY_TEXT} are allowed.`,
      );
    }
    if (customCode.trim() === '' || customCode.length > MAX_CUSTOM_CURRENCY_TEXT) {
      throw new DomainError(
        'invalid_input_provided',
        `customCode must have 1 to ${MAX_CUSTOM_CURRENCY_TEXT} characters.`,
      );
    }
    checkName(name, 'customCurrency');
    if (precision < PRECISION_RANGE.min || precision > PRECISION_RANGE.max) {
      throw new DomainError(
        'invalid_input_provided',
        `precision must be from ${PRECISION_RANGE.min} to ${PRECISION_RANGE.max} decimal places.`,
      );
    }
    const workspaceId = ctx.caller.workspaceId;
    const wanted = { customCode, name, precision };
    const changed = (stored: typeof wanted) =>
      (['customCode', 'name', 'precision'] as const).filter((field) => stored[field] !== wanted[field]);
    const { row } = await createOnce({
      key: { field: 'customCurrencyId', value: id },
      find: async () => (await findCustomCurrencies(ctx.sql, workspaceId, [id]))[0],
      same: (stored) => changed(stored).length === 0,
      difference: (stored) => `another ${changed(stored).join(', ')}`,
      create: async (taken) => (await insertCustomCurrency(ctx.sql, { workspaceId, id, ...wanted })) ?? taken(),
      lookFirst: false,
    });
    ctx.load.customCurrency.prime(row.id, row);
    return {
      __typename: 'CreateCustomCurrencyResult' as const,
      customCurrency: currencyKey({ code: 'CUSTOM', customCurrencyId: row.id }),
    };
  });
