import type { MutationResolvers } from '../../../../generated/ledger.js';
import { fingerprint } from '../../../core/fingerprint.js';
import { checkCompatible, checkSchema, type SchemaContent } from '../../../core/ledgerSchemas.js';
import { findSchemaVersion, insertSchemaVersion, upsertSchema } from '../../../db/ledgerSchemas.js';
import { asMutationResult } from '../../mutationResult.js';

/** Upserts a schema by key; a new version is recorded only when the content changed. */
export const storeSchema: NonNullable<MutationResolvers['storeSchema']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'storeSchema', () => ctx.sql.begin(async (tx) => {
    const workspaceId = ctx.caller.workspaceId;
    const content = args.schema as SchemaContent;
    const paths = checkSchema(content);
    const contentHash = fingerprint(content);
    // The upsert locks the schema row, so concurrent stores of one key take versions in turn.
    const schema = await upsertSchema(tx, workspaceId, content.key, content.name ?? content.key);
    const latest = await findSchemaVersion(tx, workspaceId, content.key);
    if (latest?.contentHash !== contentHash) {
      if (latest) checkCompatible(checkSchema(latest.content as SchemaContent), paths);
      await insertSchemaVersion(tx, {
        workspaceId, schemaKey: content.key, version: (latest?.version ?? 0) + 1, content, contentHash,
      });
    }
    return { __typename: 'StoreSchemaResult' as const, schema };
  }));
