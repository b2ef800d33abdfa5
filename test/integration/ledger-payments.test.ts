import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// The experimental createPayment: payments of a schema's payment types, the amount computed by the
// type version chosen, ik replays, and the inputs it refuses.

let server: TestServer;
let alice: TestWorkspace;

const call = async (query: string, variables: Record<string, unknown> = {}) =>
  (await gql(server.baseUrl, alice.token, query, variables)).body;
const STORE = `mutation($schema: SchemaInput!) { storeSchema(schema: $schema) { __typename ... on BadRequestError { code message } } }`;

const chart = {
  accounts: [
    { key: 'bank', type: 'asset' },
    { key: 'users', type: 'liability', template: true, children: [{ key: 'available' }] },
    { key: 'legacy', type: 'income' },
    { key: 'income', type: 'income' },
  ],
};
const settle = {
  processing_to_settled: {
    lines: [
      { key: 'cash', account: { path: 'bank' }, amount: '{{price}}' },
      { key: 'sale', account: { path: 'income' }, amount: '{{price}}' },
    ],
  },
};
const payments = {
  types: [
    {
      type: 'checkout',
      typeVersion: 1,
      status: 'active',
      payment: { amount: '{{price}}', direction: 'payin' },
      accounting: settle,
    },
    {
      type: 'checkout',
      typeVersion: 2,
      status: 'active',
      payment: { amount: '{{price}} + {{tip}}', direction: 'payin' },
      accounting: settle,
    },
  ],
};

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
});
afterAll(() => server?.close());

describe('createPayment (experimental)', () => {
  const PAY = `mutation($ik: SafeString!, $ledger: LedgerMatchInput!, $payment: CreatePaymentInput, $amount: Int96) {
    createPayment(ik: $ik, ledger: $ledger, payment: $payment, amount: $amount) {
      __typename ... on Payment { clientSecret status } ... on BadRequestError { code message } } }`;
  const pay = async (variables: Record<string, unknown>) =>
    (await call(PAY, { ledger: { ik: 'pay-1' }, ...variables })).data.createPayment;

  beforeAll(async () => {
    expect(
      (await call(STORE, { schema: { key: 'payments', chartOfAccounts: chart, payments } })).data.storeSchema
        .__typename,
    ).toBe('StoreSchemaResult');
    await call(
      'mutation { createLedger(ik: "pay-1", ledger: { name: "Payments" }, schema: { key: "payments" }) { __typename } }',
    );
  });

  it('records a payment of a schema payment type (latest active version by default) and replays its ik', async () => {
    const first = await pay({ ik: 'p1', payment: { type: 'checkout', parameters: { price: '1200', tip: '100' } } });
    expect(first).toMatchObject({
      __typename: 'Payment',
      status: 'requires_confirmation',
      clientSecret: expect.stringMatching(/^pay_[0-9a-z]{26}_secret_/),
    });
    expect(await pay({ ik: 'p1', payment: { type: 'checkout', parameters: { price: '1200', tip: '100' } } })).toEqual(
      first,
    );
    expect(
      (await pay({ ik: 'p1', payment: { type: 'checkout', parameters: { price: '1300', tip: '100' } } })).code,
    ).toBe('idempotency_key_reused');
    // Version 1 needs no tip: the version chosen decides which parameters the amount uses.
    expect(
      (await pay({ ik: 'p2', payment: { type: 'checkout', typeVersion: 1, parameters: { price: '500' } } })).__typename,
    ).toBe('Payment');
    expect((await pay({ ik: 'p3', payment: { type: 'checkout', parameters: { price: '500' } } })).code).toBe(
      'entry_parameters_invalid',
    );
  });

  it('refuses nested parameters, unknown types, both or neither forms, and plain amounts out of range', async () => {
    expect(
      (await pay({ ik: 'n1', payment: { type: 'checkout', parameters: { price: { value: '1' }, tip: '1' } } })).code,
    ).toBe('entry_parameters_invalid');
    expect((await pay({ ik: 'n2', payment: { type: 'checkout', parameters: { price: ['1'], tip: '1' } } })).code).toBe(
      'entry_parameters_invalid',
    );
    expect((await pay({ ik: 'n3', payment: { type: 'checkout', parameters: '1' } })).code).toBe(
      'entry_parameters_invalid',
    );
    expect((await pay({ ik: 'n4', payment: { type: 'refund', parameters: {} } })).code).toBe('payment_type_not_found');
    expect((await pay({ ik: 'n5', payment: { type: 'checkout', typeVersion: 9, parameters: {} } })).code).toBe(
      'payment_type_not_found',
    );
    expect((await pay({ ik: 'n6' })).code).toBe('invalid_input_provided');
    expect(
      (await pay({ ik: 'n7', amount: '500', payment: { type: 'checkout', parameters: { price: '1', tip: '1' } } }))
        .code,
    ).toBe('invalid_input_provided');
    expect((await pay({ ik: 'n8', amount: '99' })).code).toBe('invalid_input_provided');
    expect((await pay({ ik: 'n9', amount: '10000001' })).code).toBe('invalid_input_provided');
    expect((await pay({ ik: 'n10', payment: { type: 'checkout', parameters: { price: '-5', tip: '1' } } })).code).toBe(
      'invalid_input_provided',
    );
    expect((await pay({ ik: 'ok', amount: '10000000' })).__typename).toBe('Payment');
    expect((await call(PAY, { ik: 'x', ledger: { ik: 'missing' }, amount: '500' })).data.createPayment.code).toBe(
      'ledger_not_found',
    );
  });
});
