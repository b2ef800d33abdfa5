import type { MutationResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { fingerprint } from '../../../core/fingerprint.js';
import { sameFingerprint } from '../../../core/idempotency.js';
import { newId } from '../../../core/ids.js';
import { formatUtcOffset, parseUtcOffset } from '../../../core/time.js';
import { createOnce } from '../../../db/createOnce.js';
import { findLedger, ikReleasedAt, insertLedger } from '../../../db/ledgers.js';
import { findSchemaVersion } from '../../../db/ledgerSchemas.js';
import type { SchemaContent } from '../../../core/ledgerSchemas.js';
import { asMutationResult } from '../../mutationResult.js';
import { recordLedgerMigrations } from '../../../db/ledgerMigrations.js';
import { applyChart } from '../../schemas/chartAccounts.js';
import { parsedSchema } from '../../schemas/schemaVersions.js';

/** A deleted ledger's ik stays reserved this long, so late retries of the delete's peers fail loudly. */
export const LEDGER_IK_GRACE_SECONDS = 30;

export const createLedger: NonNullable<MutationResolvers['createLedger']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'createLedger', () =>
    ctx.sql.begin(async (trx) => {
      const workspaceId = ctx.caller.workspaceId;
      const balanceUtcOffset = formatUtcOffset(parseUtcOffset(args.ledger.balanceUTCOffset ?? '+00:00') ?? 0);
      const schemaKey = args.schema?.key ?? null;
      const schemaVersion = args.schema?.version || null; // 0 means latest, as when omitted
      const requestHash = fingerprint({
        name: args.ledger.name,
        type: 'double',
        balanceUtcOffset,
        schemaKey,
        schemaVersion,
      });
      const result = await createOnce({
        key: { field: 'ik', value: args.ik },
        find: () => findLedger(trx, workspaceId, { ik: args.ik }),
        same: sameFingerprint(requestHash),
        create: async (taken) => {
          const freeAt = await ikReleasedAt(trx, workspaceId, args.ik, LEDGER_IK_GRACE_SECONDS);
          if (freeAt) {
            throw new DomainError(
              'ledger_ik_reserved',
              `ik ${args.ik} belonged to a deleted ledger; it can be reused after ${freeAt.toISOString()}.`,
            );
          }
          const version =
            schemaKey === null
              ? undefined
              : await findSchemaVersion(trx, workspaceId, schemaKey, schemaVersion ?? undefined);
          if (schemaKey !== null && !version) {
            throw new DomainError(
              'schema_not_found',
              `No schema with key ${schemaKey}${schemaVersion ? ` and version ${schemaVersion}` : ''}.`,
            );
          }
          const inserted =
            (await insertLedger(trx, {
              workspaceId,
              id: newId('led'),
              ik: args.ik,
              name: args.ledger.name,
              type: 'double',
              balanceUtcOffset,
              schemaKey,
              schemaVersion: version?.version ?? null,
              requestHash,
            })) ?? taken();
          // A ledger on a schema starts with every account of the chart that is not a template.
          if (version) {
            await applyChart(
              trx,
              inserted,
              parsedSchema(version.schemaKey, version.version, version.content as SchemaContent, version.contentHash)
                .chart,
            );
            await recordLedgerMigrations(trx, workspaceId, version.schemaKey, version.version, [inserted.id]);
          }
          return inserted;
        },
      });
      return { __typename: 'CreateLedgerResult' as const, ledger: result.row, isIkReplay: result.replayed };
    }),
  );
