import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

// `make build` (and `make run`): the server as plain JavaScript in dist/, file by file in the
// same layout, so a server runs without the TypeScript loader (tsx), which held 30–40 MB more,
// idle and under load. Files the server reads beside its modules (the contracts, migrations, SQL
// functions, the dashboard's browser sources) are linked, not copied: dist/ never goes stale on them.

const SOURCE_DIRS = ['src', 'generated'];
/** Bundled for the browser at runtime (src/dashboard/routes.ts), not run by Node. */
const BROWSER_SOURCES = path.join('src', 'dashboard', 'client');
const LINKED = ['spec', 'src/db/migrations', 'src/db/functions', 'src/dashboard/client'];

export const COMPILED_MAIN = path.join('dist', 'src', 'main.js');

/** Compiles the checkout at `root` into `root/dist`, replacing what was there. */
export async function buildServer(root: string): Promise<void> {
  const outdir = path.join(root, 'dist');
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: SOURCE_DIRS.flatMap((dir) => serverSources(root, dir)),
    outdir,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  for (const linked of LINKED) {
    const link = path.join(outdir, linked);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.relative(path.dirname(link), path.join(root, linked)), link);
  }
}

function serverSources(root: string, dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .map((file) => path.join(dir, file))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.startsWith(BROWSER_SOURCES))
    .map((file) => path.join(root, file));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildServer(process.cwd());
}
