import type { QueryResolvers } from '../../../../generated/ledger.js';
import { findWorkspace } from '../../../db/workspaces.js';

export const workspace: NonNullable<QueryResolvers['workspace']> = async (_parent, _args, { sql, caller }) => {
  const row = await findWorkspace(sql, caller.workspaceId);
  if (!row) throw new Error(`workspace ${caller.workspaceId} of a valid token is missing`);
  return row;
};
