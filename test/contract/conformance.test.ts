import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { junitReport, summary } from '../../src/conformance/report.js';
import { firstDifference, runConformance, type CaseResult } from '../../src/conformance/run.js';
import { sandboxServerForFile, type SandboxWorkspace } from '../support/sandbox.js';
import { ADMIN_TOKEN } from '../support/server.js';

// The conformance suite, as a QA team runs it: against Tally's sandbox (every example in a fresh
// workspace of its own), against one client's workspace (examples that write skipped), and
// through its command line, whose exit code and JUnit file a CI server reads.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

const sandbox = sandboxServerForFile();

const cli = async (workspace: SandboxWorkspace, extra: string[]) =>
  run(
    process.execPath,
    [
      path.join(ROOT, 'src/conformance/bin.mjs'),
      // The = form: a generated secret may start with '-', which a separate argument would read as an option.
      `--url=${sandbox.server.baseUrl}`,
      `--client-id=${workspace.clientId}`,
      `--client-secret=${workspace.clientSecret}`,
      ...extra,
    ],
    { cwd: ROOT },
  ).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );

describe('the conformance suite against Tally', () => {
  it('passes every example of both contracts with the sandbox, skipping only what needs an expired token', async () => {
    const workspace = await sandbox.admin.workspace('conformance');
    const results = await runConformance({
      baseUrl: sandbox.server.baseUrl,
      clientId: workspace.clientId,
      clientSecret: workspace.clientSecret,
      adminToken: ADMIN_TOKEN,
    });
    expect(results.filter((r) => r.outcome === 'fail')).toEqual([]);
    expect(results.filter((r) => r.outcome === 'skip').map((r) => r.detail)).toEqual(
      results.filter((r) => r.outcome === 'skip').map(() => 'needs a token the server signed and let expire'),
    );
    expect(summary(results).pass).toBeGreaterThan(100);
    expect(new Set(results.map((r) => r.contract))).toEqual(new Set(['billing', 'ledger']));
    // Every workspace it made is gone again.
    const [{ left }] = await sandbox.server.db.sql<{ left: number }[]>`
      select count(*)::int as left from workspaces where name = 'Tally Examples'`;
    expect(left).toBe(0);
  }, 120_000);

  it('runs in one client workspace without the admin token: reads and refusals pass, writes are skipped', async () => {
    const workspace = await sandbox.admin.workspace('shared');
    const { code, stdout, stderr } = await cli(workspace, []);
    expect(code, stderr).toBe(0);
    const totals = /^(\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(stdout);
    expect(totals).not.toBeNull();
    expect(Number(totals![1])).toBeGreaterThan(40);
    expect(Number(totals![2])).toBe(0);
    expect(stdout).toMatch(/^SKIP ledger \S+ — writes: needs a fresh workspace/m);
  }, 120_000);

  it('reports a failing example with its difference, exits 1, and writes JUnit a CI server reads', async () => {
    const workspace = await sandbox.admin.workspace('broken');
    // This server now answers getProduct wrongly for the workspace: the suite must notice.
    await sandbox.admin.call('POST', `/workspaces/${workspace.workspaceId}/faults`, {
      operation: 'getProduct',
      fault: { type: 'error', code: 'internal_error' },
    });
    const junit = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tally-conformance-')), 'report.xml');
    try {
      const { code, stdout } = await cli(workspace, ['--filter', 'getProduct', '--junit', junit]);
      expect(code).toBe(1);
      expect(stdout).toMatch(/^FAIL billing getProduct\/coffeeBeans — status 500, the example says 200$/m);
      const xml = fs.readFileSync(junit, 'utf8');
      expect(xml).toMatch(/<testsuite name="billing" tests="\d+" failures="[1-9]\d*"/);
      expect(xml).toContain('<failure message="status 500, the example says 200">');
    } finally {
      fs.rmSync(path.dirname(junit), { recursive: true, force: true });
    }
  }, 120_000);
});

describe('reports', () => {
  it('names the first difference by its JSON pointer', () => {
    expect(firstDifference({ data: { a: [1, 2] } }, { data: { a: [1, 3] } })).toBe('at /data/a/1: expected 2, got 3');
    expect(firstDifference({ a: 1 }, { a: 1, b: null })).toBe('at /b: expected undefined, got null');
    expect(firstDifference([1], { 0: 1 })).toBe('at /: expected [1], got {"0":1}');
    expect(firstDifference({ a: { b: 'x' } }, { a: { b: 'x' } })).toBeUndefined();
  });

  it('escapes what XML cannot hold as it is', () => {
    const results: CaseResult[] = [
      { contract: 'billing', id: 'op/<a&b>', operation: 'op', outcome: 'fail', detail: 'got "\u0000x" <y>', ms: 5 },
      { contract: 'ledger', id: 'q', operation: 'q', outcome: 'skip', detail: 'why', ms: 0 },
    ];
    const xml = junitReport(results);
    expect(xml).toContain('name="op/&lt;a&amp;b&gt;"');
    expect(xml).toContain('<failure message="got &quot;x&quot; &lt;y&gt;">');
    expect(xml).toContain('<testsuite name="ledger" tests="1" failures="0" skipped="1"');
    expect(xml).not.toContain('\u0000');
  });
});
