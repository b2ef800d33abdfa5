import type { MutationResolvers } from '../../../../generated/ledger.js';
import { fingerprint } from '../../../core/fingerprint.js';
import { sameFingerprint } from '../../../core/idempotency.js';
import { newId } from '../../../core/ids.js';
import { checkName } from '../../../core/links.js';
import { createOnce } from '../../../db/createOnce.js';
import { findLink, insertLink } from '../../../db/links.js';
import { asMutationResult } from '../../mutationResult.js';

/** Creates a custom link; the ik is unique in the workspace, and a replay answers the original. */
export const createCustomLink: NonNullable<MutationResolvers['createCustomLink']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'createCustomLink', async () => {
    const workspaceId = ctx.caller.workspaceId;
    const requestHash = fingerprint({ name: checkName(args.name, 'createCustomLink') });
    const result = await createOnce({
      key: { field: 'ik', value: args.ik },
      find: () => findLink(ctx.sql, workspaceId, { ik: args.ik }),
      same: sameFingerprint(requestHash),
      create: async (taken) =>
        (await insertLink(ctx.sql, { workspaceId, id: newId('link'), ik: args.ik, name: args.name, requestHash })) ??
        taken(),
      lookFirst: false,
    });
    return { __typename: 'CreateCustomLinkResult' as const, link: result.row, isIkReplay: result.replayed };
  });
