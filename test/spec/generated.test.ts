import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

// generated/ is committed and never edited by hand: it must be exactly what `make generate`
// produces from spec/ now. A failure here means: run `make generate` and commit the result.

const root = path.resolve(import.meta.dirname, '../..');

describe('generated/ is up to date with spec/', () => {
  it.each(['billing', 'sandbox'])('generated/%s.ts matches openapi-typescript output', (contract) => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-gen-'));
    try {
      const out = path.join(folder, `${contract}.ts`);
      execFileSync(path.join(root, 'node_modules/.bin/openapi-typescript'),
        [`spec/${contract}.openapi.yaml`, '-o', out, '--alphabetize'], { cwd: root, stdio: 'pipe' });
      expect(fs.readFileSync(path.join(root, `generated/${contract}.ts`), 'utf8')).toBe(fs.readFileSync(out, 'utf8'));
    } finally {
      fs.rmSync(folder, { recursive: true, force: true }); // a test run leaves nothing in /tmp
    }
  });

  it('generated/ledger.ts matches graphql-codegen output', async () => {
    const config = parseYaml(fs.readFileSync(path.join(root, 'codegen.yml'), 'utf8'));
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const outputs = await generate({ ...config, silent: true }, false);
      expect(outputs).toHaveLength(1);
      expect(fs.readFileSync(path.join(root, 'generated/ledger.ts'), 'utf8')).toBe(outputs[0].content);
    } finally {
      process.chdir(cwd);
    }
  });
});
