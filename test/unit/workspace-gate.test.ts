import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { workspaceGate } from '../../src/sandbox/workspaceGate.js';

// The sandbox's gate: a rewrite of a workspace runs alone, after its requests in flight and before
// new ones; other workspaces pass freely.

describe('workspaceGate', () => {
  it('runs a rewrite after the requests in flight and holds new requests until it is done', async () => {
    const gate = workspaceGate();
    const log: string[] = [];
    const first = await gate.enter('ws');
    const rewrite = gate.exclusive('ws', async () => {
      log.push('rewrite start');
      await sleep(20);
      log.push('rewrite end');
    });
    const later = gate.enter('ws').then((release) => {
      log.push('later request');
      release();
    });
    const elsewhere = await gate.enter('other');
    log.push('other workspace');
    elsewhere();
    await sleep(10);
    log.push('first request ends');
    first();
    await Promise.all([rewrite, later]);
    expect(log).toEqual(['other workspace', 'first request ends', 'rewrite start', 'rewrite end', 'later request']);
  });

  it('runs rewrites one at a time, and frees the gate when a rewrite fails', async () => {
    const gate = workspaceGate();
    let running = 0;
    let most = 0;
    const rewrite = () =>
      gate.exclusive('ws', async () => {
        most = Math.max(most, ++running);
        await sleep(5);
        running--;
      });
    await Promise.all([rewrite(), rewrite(), rewrite()]);
    expect(most).toBe(1);
    await expect(gate.exclusive('ws', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const release = await gate.enter('ws');
    release();
  });
});
