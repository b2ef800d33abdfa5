import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';
import { generateClients, typecheckClients } from './generate.js';

// Client teams generate SDKs from spec/ with tools nobody here wrote. This generates them as a
// team would (@hey-api/openapi-ts and orval for billing, graphql-codegen's client preset over the
// official SDK's documents), type-checks them and the flows strictly, then runs the flows.

let server: TestServer;
let workspace: TestWorkspace;
let flows: typeof import('./flows.js');
let sdkDocuments = 0;

beforeAll(async () => {
  ({ sdkDocuments } = generateClients());
  typecheckClients();
  flows = await import('./flows.js');
  server = await startTestServer();
  workspace = await server.workspace('Generated clients');
}, 240_000);
afterAll(() => server?.close());

const credentials = () => ({ clientId: workspace.clientId, clientSecret: workspace.clientSecret });

describe('clients generated from spec/, type-checked strictly', () => {
  it('@hey-api/openapi-ts: token, health, product created and listed, a typed 409, all through the /billing base URL', async () => {
    const result = await flows.heyApiFlow(server.baseUrl, credentials(), 'hey-api-beans');
    expect(result).toEqual({
      tokenType: 'Bearer', created: 'hey-api-beans', listed: expect.arrayContaining(['hey-api-beans']), conflictCode: 'product_code_taken', healthy: 'ok',
    });
  });

  it('orval: token, product created and listed, a typed 409, through the root base URL', async () => {
    const result = await flows.orvalFlow(server.baseUrl, credentials(), 'orval-beans');
    expect(result).toEqual({ tokenType: 'Bearer', created: 'orval-beans', listed: expect.arrayContaining(['orval-beans']), conflictCode: 'product_code_taken' });
  });

  it(`graphql-codegen client preset over the SDK 1.4.0 documents: typed results and a typed BadRequestError`, async () => {
    expect(sdkDocuments).toBe(33);
    const result = await flows.graphqlFlow(server.baseUrl, workspace.token, 'generated-bank');
    expect(result).toEqual({ linkName: 'Generated-client bank', accounts: ['ops'], conflictCode: 'idempotency_key_reused' });
  });
});
