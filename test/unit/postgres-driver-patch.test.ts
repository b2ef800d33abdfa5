import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// patches/postgres+3.4.9.patch is applied by `npm ci` (postinstall: patch-package). An install
// with --ignore-scripts skips it, and the server would again die when PostgreSQL does.

const packageDir = path.resolve(import.meta.dirname, '../../node_modules/postgres');

describe('the installed postgres.js', () => {
  it.each(['src/connection.js', 'cjs/src/connection.js'])(
    '%s carries the guards against writes after close and an unawaited type fetch',
    (file) => {
      const source = fs.readFileSync(path.join(packageDir, file), 'utf8');
      expect(source).toMatch(/function nextWrite\(fn\) \{\n.*\n\s+if \(socket === null\) \{/);
      expect(source).toMatch(/\], \[\], execute\)\.catch\(\(\) => null\)\n\s+types && types\.forEach/);
    },
  );

  it('is the version the patch was written for', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(fs.existsSync(path.resolve(import.meta.dirname, `../../patches/postgres+${version}.patch`))).toBe(true);
  });
});
