import type { MutationResolvers } from '../../../../generated/ledger.js';
import { checkChartCompatible } from '../../../core/chart.js';
import { fingerprint } from '../../../core/fingerprint.js';
import { checkSchema, type SchemaContent } from '../../../core/ledgerSchemas.js';
import { parsedJson } from '../../../db/json.js';
import { findSchemaVersion, insertSchemaVersion, upsertSchema } from '../../../db/ledgerSchemas.js';
import { lockLedgersOnSchema, setLedgerSchemaVersion } from '../../../db/ledgers.js';
import { recordDataMigrations, recordLedgerMigrations } from '../../../db/ledgerMigrations.js';
import { requireCurrencies } from '../../links/customCurrencies.js';
import { asMutationResult } from '../../mutationResult.js';
import { dataMigrationsOf } from '../../schemas/dataMigrations.js';
import { applyChart } from '../../schemas/chartAccounts.js';
import { parsedSchema } from '../../schemas/schemaVersions.js';

/**
 * Upserts a schema by key. A new version is recorded only when the content changed; every
 * ledger on the schema then moves to it in the same transaction (new accounts appear, names
 * and consistency follow the chart), so a refused version changes nothing anywhere.
 */
export const storeSchema: NonNullable<MutationResolvers['storeSchema']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'storeSchema', () =>
    ctx.sql.begin(async (trx) => {
      const workspaceId = ctx.caller.workspaceId;
      const content = args.schema as SchemaContent;
      const chart = checkSchema(content);
      const contentHash = fingerprint(content);
      // The upsert locks the schema row, so concurrent stores of one key take versions in turn.
      await requireCurrencies(
        trx,
        workspaceId,
        [...chart.accounts.values()].map((account) => account.currencyCode),
      );
      const schema = await upsertSchema(trx, workspaceId, content.key, content.name ?? content.key);
      const latest = await findSchemaVersion(trx, workspaceId, content.key);
      if (latest?.contentHash !== contentHash) {
        if (latest) checkChartCompatible(checkSchema(latest.content as SchemaContent), chart);
        const version = (latest?.version ?? 0) + 1;
        await insertSchemaVersion(trx, {
          workspaceId,
          schemaKey: content.key,
          version,
          content: parsedJson(args.schema),
          contentHash,
        });
        const ledgers = await lockLedgersOnSchema(trx, workspaceId, content.key);
        const { chart: cachedChart } = parsedSchema(content.key, version, content, contentHash);
        for (const ledger of ledgers) await applyChart(trx, ledger, cachedChart);
        const ledgerIds = ledgers.map((ledger) => ledger.id);
        await setLedgerSchemaVersion(trx, workspaceId, ledgerIds, version);
        // Versions apply in this transaction, so each ledger's migration is complete when recorded.
        await recordLedgerMigrations(trx, workspaceId, content.key, version, ledgerIds);
        await recordDataMigrations(trx, workspaceId, ledgerIds, dataMigrationsOf(content, cachedChart, version));
      }
      return { __typename: 'StoreSchemaResult' as const, schema };
    }),
  );
