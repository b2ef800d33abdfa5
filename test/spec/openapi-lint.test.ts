import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

// Spectral with spec/.spectral.yaml: operationIds, descriptions, examples valid against their
// schemas, no unused components. Warnings fail too: the contract is for SDK generators.
const CONTRACTS = ['spec/billing.openapi.yaml', 'spec/sandbox.openapi.yaml'];

it.each(CONTRACTS)('%s passes the Spectral ruleset with no findings', (contract) => {
  let output: string;
  let status = 0;
  try {
    output = execFileSync(path.join(root, 'node_modules/.bin/spectral'),
      ['lint', '--fail-severity=hint', '--ruleset', 'spec/.spectral.yaml', contract],
      { cwd: root, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    status = (error as { status: number }).status;
    output = `${(error as { stdout: string }).stdout}${(error as { stderr: string }).stderr}`;
  }
  expect(output).toMatch(/No results with a severity of 'hint' or higher found!/);
  expect(status).toBe(0);
}, 60_000);

// Redocly CLI parses YAML strictly (as many generators' parsers do) and applies its recommended
// rules (spec/redocly.yaml: each exception with its reason). A parse failure, an error or a warning fails.
it.each(CONTRACTS)('%s parses in Redocly CLI with no error or warning under its recommended rules', (contract) => {
  // Redocly writes its findings to stderr, whatever the outcome.
  const run = spawnSync(path.join(root, 'node_modules/.bin/redocly'), ['lint', '--config', 'spec/redocly.yaml', '--format=summary', contract],
    { cwd: root, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
  const output = `${run.stdout}${run.stderr}`;
  const status = run.status;
  // Summary lines read `warning <rule>: <count>`; Redocly's own Node.js notice is not a finding.
  expect(output).not.toMatch(/Failed to parse|error |warning [a-z0-9-]+: \d+|You have \d+ warning/);
  expect(output).toMatch(/Your API description is valid/);
  expect(status).toBe(0);
}, 60_000);
