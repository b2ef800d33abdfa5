import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { batchedStdout, createLogger } from '../../src/observability/log.js';
import { root } from '../support/tallyProcess.js';

const execFileAsync = promisify(execFile);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the log', () => {
  it('writes the lines of one turn of the event loop in one write, in order', async () => {
    const writes: string[] = [];
    const log = createLogger(
      'info',
      batchedStdout((text) => writes.push(text)),
    );
    log.info('first', { n: 1 });
    log.debug('below the level');
    log.warn('second');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toHaveLength(1);
    expect(writes[0].split('\n').map((line) => (line ? JSON.parse(line).msg : ''))).toEqual(['first', 'second', '']);
    log.error('third');
    await nextTurn();
    expect(writes).toHaveLength(2);
    expect(JSON.parse(writes[1])).toMatchObject({ level: 'error', msg: 'third' });
  });

  // The line a process writes just before it exits (a fatal error at start, say) must not be lost.
  it('writes what is pending when the process exits', async () => {
    const script = [
      "import { createLogger } from './src/observability/log.ts';",
      "const log = createLogger('info');",
      "log.info('last words', { code: 3 });",
      'process.exit(3);',
    ].join('\n');
    const run = execFileAsync(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], {
      cwd: root,
    });
    const failure = await run.then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(3);
    expect(JSON.parse(failure!.stdout)).toMatchObject({ level: 'info', msg: 'last words', code: 3 });
  });
});
