import type { MutationResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { deleteSchemaIfUnused } from '../../../db/ledgerSchemas.js';
import { asMutationResult } from '../../mutationResult.js';

/** Deletes a schema with all its versions; refused while a live ledger is bound to it. */
export const deleteSchema: NonNullable<MutationResolvers['deleteSchema']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'deleteSchema', () =>
    ctx.sql.begin(async (trx) => {
      const { key } = args.schema;
      const outcome = await deleteSchemaIfUnused(trx, ctx.caller.workspaceId, key);
      if (outcome === 'missing') throw new DomainError('schema_not_found', `No schema with key ${key}.`);
      if (outcome === 'in-use')
        throw new DomainError('schema_in_use', `Schema ${key} is used by a ledger; delete its ledgers first.`);
      return { __typename: 'DeleteSchemaResult' as const, success: true };
    }),
  );
