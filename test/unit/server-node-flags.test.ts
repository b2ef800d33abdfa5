import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { serverNodeFlags } from '../support/tallyProcess.js';

// `make run` and the test harness start the server with the Makefile's SERVER_NODE_FLAGS: they
// must be there, and this Node must take them (a misspelt V8 flag stops the server at start).

describe('the server’s V8 flags', () => {
  it('are read from the Makefile and taken by this Node', () => {
    const flags = serverNodeFlags();
    expect(flags).toContain('--max-semi-space-size=32');
    const probe = spawnSync(
      process.execPath,
      [
        ...flags,
        '-e',
        'console.log(require("node:v8").getHeapSpaceStatistics().find((s) => s.space_name === "new_space") ? "ok" : "")',
      ],
      { encoding: 'utf8' },
    );
    expect(probe.stderr).toBe('');
    expect([probe.status, probe.stdout.trim()]).toEqual([0, 'ok']);
  });
});
