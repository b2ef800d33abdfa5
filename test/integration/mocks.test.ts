import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMockServer } from '../../src/mock/ledgerMock.js';
import { loadSpec } from '../contract/billingExamples.js';
import { freePort } from '../support/ports.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('make mock', () => {
  it('the GraphQL mock answers SDK documents from the SDL, mutations with their success type', async () => {
    const server = createMockServer(fs.readFileSync(path.join(root, 'spec/ledger.graphql'), 'utf8')).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `mutation { createLedger(ik: "a", ledger: { name: "A" }) {
            __typename ... on CreateLedgerResult { isIkReplay ledger { id ik name created balanceUTCOffset } } } }`,
        }),
      });
      const body = await response.json();
      expect(body.data.createLedger.__typename).toBe('CreateLedgerResult');
      expect(body.data.createLedger.ledger.balanceUTCOffset).toMatch(/^[+-]\d{2}:\d{2}$/);
    } finally {
      server.close();
    }
  });

  it('Prism serves the billing contract with its named examples', async () => {
    const port = await freePort();
    const prism = spawn(path.join(root, 'node_modules/.bin/prism'), ['mock', '-h', '127.0.0.1', '-p', String(port), 'spec/billing.openapi.yaml'],
      { cwd: root, stdio: 'ignore' });
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${base}/healthz`)).ok);
      const response = await fetch(`${base}/products`, { headers: { authorization: 'Bearer any' } });
      expect(response.status).toBe(200);
      const example = loadSpec().paths['/products'].get.responses['200'].content['application/json'].examples.catalogue.value;
      expect(await response.json()).toEqual(example);
      const invalid = await fetch(`${base}/products`, {
        method: 'POST', headers: { authorization: 'Bearer any', 'content-type': 'application/json' }, body: '{"code":"x"}',
      });
      expect(invalid.status).toBe(400);
    } finally {
      prism.kill('SIGKILL');
    }
  }, 60_000);
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('timed out waiting for the mock');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
