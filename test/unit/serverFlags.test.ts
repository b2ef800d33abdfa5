import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../src/cli/build.js';

// Three ways start the server: `make run`, `npm start` and the test and benchmark harness
// (SERVER_NODE_FLAGS itself). They must run it with the same Node flags, or a benchmark measures
// a server no user runs.
describe('the Node flags of the server', () => {
  it('are the same in the Makefile, npm start and the harness', () => {
    const makefile = fs.readFileSync('Makefile', 'utf8');
    const flags = SERVER_NODE_FLAGS.join(' ');
    expect(makefile).toContain(`SERVER_NODE_FLAGS := ${flags}\n`);
    expect(makefile).toMatch(/^run: .*\n\tnode \$\(SERVER_NODE_FLAGS\) dist\/src\/main\.js$/m);
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
    expect(pkg.scripts.start).toContain(`node ${flags} dist/src/main.js`);
  });

  it('are flags this Node accepts', () => {
    const options = process.allowedNodeEnvironmentFlags;
    for (const flag of SERVER_NODE_FLAGS) expect(options.has(flag.split('=')[0])).toBe(true);
  });
});
