import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

// Spectral with spec/.spectral.yaml: operationIds, descriptions, examples valid against their
// schemas, no unused components. Warnings fail too: the contract is for SDK generators.
it('spec/billing.openapi.yaml passes the Spectral ruleset with no findings', () => {
  let output = '';
  let status = 0;
  try {
    output = execFileSync(path.join(root, 'node_modules/.bin/spectral'),
      ['lint', '--fail-severity=hint', '--ruleset', 'spec/.spectral.yaml', 'spec/billing.openapi.yaml'],
      { cwd: root, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    status = (error as { status: number }).status;
    output = `${(error as { stdout: string }).stdout}${(error as { stderr: string }).stderr}`;
  }
  expect(output).toMatch(/No results with a severity of 'hint' or higher found!/);
  expect(status).toBe(0);
}, 60_000);

// Redocly CLI parses YAML strictly (as many generators' parsers do) and applies its recommended
// rules. Its warnings are the work of the contract issue; an error, or a file it cannot parse, fails.
it('spec/billing.openapi.yaml parses in Redocly CLI and has no errors under its recommended rules', () => {
  let output = '';
  let status = 0;
  try {
    output = execFileSync(path.join(root, 'node_modules/.bin/redocly'), ['lint', '--format=summary', 'spec/billing.openapi.yaml'],
      { cwd: root, encoding: 'utf8', stdio: 'pipe', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
  } catch (error) {
    status = (error as { status: number }).status;
    output = `${(error as { stdout: string }).stdout}${(error as { stderr: string }).stderr}`;
  }
  expect(output).not.toMatch(/Failed to parse|error /);
  expect(status).toBe(0);
}, 60_000);
