import type { QueryResolvers } from '../../../../generated/ledger.js';
import { findSchema, findSchemaVersion } from '../../../db/ledgerSchemas.js';

/** Version 0 or none means the latest; an unknown key or version gives null. */
export const schema: NonNullable<QueryResolvers['schema']> = async (_parent, args, { sql, caller }) => {
  const { key, version } = args.schema;
  const row = await findSchema(sql, caller.workspaceId, key);
  if (!row) return null;
  if (!version) return row;
  const exists = await findSchemaVersion(sql, caller.workspaceId, key, version);
  return exists ? { ...row, requestedVersion: version } : null;
};
