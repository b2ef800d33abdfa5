import type { MutationResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { fingerprint } from '../../../core/fingerprint.js';
import { newId } from '../../../core/ids.js';
import { checkName } from '../../../core/links.js';
import { findLink, insertLink, type LinkRow } from '../../../db/links.js';
import { asMutationResult } from '../../mutationResult.js';

/** Creates a custom link; the ik is unique in the workspace, and a replay answers the original. */
export const createCustomLink: NonNullable<MutationResolvers['createCustomLink']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'createCustomLink', async () => {
    const workspaceId = ctx.caller.workspaceId;
    const requestHash = fingerprint({ name: checkName(args.name, 'createCustomLink') });
    const inserted = await insertLink(ctx.sql, { workspaceId, id: newId('link'), ik: args.ik, name: args.name, requestHash });
    const link: LinkRow = inserted ?? (await findLink(ctx.sql, workspaceId, { ik: args.ik }))!;
    if (!inserted && link.requestHash !== requestHash) {
      throw new DomainError('idempotency_key_reused', `ik ${args.ik} was already used for a link with another name.`);
    }
    return { __typename: 'CreateCustomLinkResult' as const, link, isIkReplay: !inserted };
  });
