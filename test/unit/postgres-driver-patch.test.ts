import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// patches/postgres+3.4.9.patch is applied by `npm ci` (postinstall: patch-package). An install
// with --ignore-scripts skips it, and the server would again die when PostgreSQL does, and slow
// down query by query under steady load.

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

  type Queue<T> = { length: number; push(x: T): T; shift(): T; remove(x: T): T | null };
  const queueFactories = async () =>
    Promise.all(
      ['src/queue.js', 'cjs/src/queue.js'].map(async (file) => {
        const loaded = (await import(pathToFileURL(path.join(packageDir, file)).href)) as {
          default: <T>() => Queue<T>;
        };
        return loaded.default;
      }),
    );

  it('keeps a pool queue that never drains small: remove scans a few elements, not one per query ever run', async () => {
    for (const makeQueue of await queueFactories()) {
      // The pool's `open` queue under load: a connection is shifted for a query, moved (removed
      // from where it was: no longer here), then pushed back when the query is done.
      const open = makeQueue<{ id: number }>();
      const connections = Array.from({ length: 10 }, (_, id) => open.push({ id }));
      // Array.prototype.indexOf wrapped by hand: a vitest spy records every call, and calls it itself.
      const indexOf = Array.prototype.indexOf;
      let longestScan = 0;
      let removedSomething = false;
      Array.prototype.indexOf = function (this: unknown[], ...args: [unknown, number?]) {
        longestScan = Math.max(longestScan, this.length);
        return indexOf.apply(this, args);
      };
      try {
        for (let query = 0; query < 20_000; query++) {
          const connection = open.shift();
          removedSomething ||= open.remove(connection) !== null;
          open.push(connection);
        }
      } finally {
        Array.prototype.indexOf = indexOf;
      }
      expect(removedSomething).toBe(false);
      expect(longestScan).toBeLessThanOrEqual(64);
      // Still first in, first out, and remove still finds what is there.
      expect(open.length).toBe(10);
      expect(open.remove(connections[3])).toBe(connections[3]);
      expect(Array.from({ length: 9 }, () => open.shift().id)).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9]);
      expect(open.length).toBe(0);
    }
  });

  it('is the version the patch was written for', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(fs.existsSync(path.resolve(import.meta.dirname, `../../patches/postgres+${version}.patch`))).toBe(true);
  });
});
