import { print, type DocumentNode } from 'graphql';
import { createClient } from '../../.sdk/hey-api/client';
import { createAccessToken, createProduct, getHealth, listProducts } from '../../.sdk/hey-api/sdk.gen';
import * as orval from '../../.sdk/orval/billing';
import { CreateCustomLinkDocument, SyncCustomAccountsDocument } from '../../.sdk/graphql/gql/graphql';
import { configureTallyFetch } from './tallyFetch';

// Short flows a client team would write with each generated client: a token, a product created
// and listed, one typed 409. They are type-checked with the generated code (tsconfig.json here),
// so a contract change that breaks a generated client's types fails before they run.

export type Credentials = { clientId: string; clientSecret: string };
export type FlowResult = { tokenType: string; created: string; listed: string[]; conflictCode: string; healthy?: string };

/** @hey-api/openapi-ts's fetch client, on the /billing base URL (token and health included). */
export async function heyApiFlow(origin: string, credentials: Credentials, code: string): Promise<FlowResult> {
  let token: string | undefined;
  const client = createClient({
    baseUrl: `${origin}/billing`,
    auth: (auth) => (auth.scheme === 'basic' ? `${credentials.clientId}:${credentials.clientSecret}` : token),
  });
  const issued = await createAccessToken({ client, body: { grant_type: 'client_credentials' }, throwOnError: true });
  token = issued.data.access_token;
  const created = await createProduct({ client, body: { code, description: 'Made by a hey-api client', paid_by_roles: [{ name: 'buyer' }] }, throwOnError: true });
  const listed = await listProducts({ client, throwOnError: true });
  const conflict = await createProduct({ client, body: { code, description: 'Again', paid_by_roles: [{ name: 'buyer' }] } });
  const health = await getHealth({ client, throwOnError: true });
  return {
    tokenType: issued.data.token_type,
    created: created.data.data.code,
    listed: listed.data.data.map((product) => product.code),
    conflictCode: conflict.response.status === 409 && conflict.error ? conflict.error.code : `unexpected ${conflict.response.status}`,
    healthy: health.data.status,
  };
}

/** orval's fetch client, on the root base URL (the earlier form), through tallyFetch. */
export async function orvalFlow(origin: string, credentials: Credentials, code: string): Promise<FlowResult> {
  const basic = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`;
  configureTallyFetch({ baseUrl: origin });
  const issued = await orval.createAccessToken({ grant_type: 'client_credentials' }, { headers: { authorization: basic } });
  if (issued.status !== 200) throw new Error(`token: ${issued.status}`);
  configureTallyFetch({ baseUrl: origin, authorization: `Bearer ${issued.data.access_token}` });
  const created = await orval.createProduct({ code, description: 'Made by an orval client', paid_to_roles: [{ name: 'seller' }] });
  if (created.status !== 201) throw new Error(`create: ${created.status}`);
  const listed = await orval.listProducts();
  if (listed.status !== 200) throw new Error(`list: ${listed.status}`);
  const conflict = await orval.createProduct({ code, description: 'Again', paid_to_roles: [{ name: 'seller' }] });
  return {
    tokenType: issued.data.token_type,
    created: created.data.data.code,
    listed: listed.data.data.map((product) => product.code),
    conflictCode: conflict.status === 409 ? conflict.data.code : `unexpected ${conflict.status}`,
  };
}

/** The SDK 1.4.0 documents through graphql-codegen's client preset: typed variables and results. */
export async function graphqlFlow(origin: string, accessToken: string, ik: string) {
  const request = async <Result, Variables>(document: DocumentNode & { __apiType?: (variables: Variables) => Result }, variables: Variables): Promise<Result> => {
    const response = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const body = await response.json() as { data: Result };
    return body.data;
  };
  const link = await request(CreateCustomLinkDocument, { ik, name: 'Generated-client bank' });
  if (link.createCustomLink.__typename !== 'CreateCustomLinkResult') throw new Error(link.createCustomLink.__typename);
  const linkId = link.createCustomLink.link.id;
  const synced = await request(SyncCustomAccountsDocument, { linkId, accounts: [{ externalId: 'ops', name: 'Operating', currency: { code: 'USD' } }] });
  const changed = await request(SyncCustomAccountsDocument, { linkId, accounts: [{ externalId: 'ops', name: 'Operating', currency: { code: 'EUR' } }] });
  return {
    linkName: link.createCustomLink.link.name,
    accounts: synced.syncCustomAccounts.__typename === 'SyncCustomAccountsResult' ? synced.syncCustomAccounts.accounts.map((account) => account.externalId) : [],
    conflictCode: changed.syncCustomAccounts.__typename === 'BadRequestError' ? changed.syncCustomAccounts.code : changed.syncCustomAccounts.__typename,
  };
}
