import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouterContext } from '@koa/router';
import { build } from 'esbuild';
import type { Middleware } from 'koa';
import type { AppState } from '../http/context.js';
import { PAGE_POLICY } from '../http/contentSecurityPolicy.js';
import { matchPage } from './pages.js';

// GET /dashboard/*: the dashboard, a page that reads the public APIs with a client's token. Its
// script is bundled from client/ by esbuild on first use (in memory, ~100 ms) with uPlot from the
// installed package, so it works offline; assets come only from Tally (the /docs policy).

const require = createRequire(import.meta.url);
const CLIENT_DIR = new URL('./client/', import.meta.url);
const UPLOT_CSS = path.join(path.dirname(require.resolve('uplot')), 'uPlot.min.css');

type Asset = { type: string; body: () => Promise<string | Buffer> };

let script: Promise<string> | undefined;

/** The client bundled into one minified script, built once per process. */
function bundle(): Promise<string> {
  script ??= build({
    entryPoints: [fileURLToPath(new URL('main.ts', CLIENT_DIR))],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    write: false,
    // uPlot's MIT notice, which its header comment (dropped by minification) carries.
    banner: { js: '/*! uPlot, Copyright (c) 2025, Leon Sorokin (MIT Licensed) */' },
  }).then(
    (result) => result.outputFiles[0].text,
    (error: unknown) => {
      script = undefined; // the next request tries again
      throw error;
    },
  );
  return script;
}

const ASSETS: Record<string, Asset> = {
  'dashboard.js': { type: 'application/javascript', body: bundle },
  'dashboard.css': { type: 'text/css', body: async () => fs.promises.readFile(new URL('dashboard.css', CLIENT_DIR)) },
  'uplot.css': { type: 'text/css', body: async () => fs.promises.readFile(UPLOT_CSS) },
};
/** Each asset's body and its content hash, which browsers revalidate with If-None-Match. */
const cache = new Map<string, { body: string | Buffer; etag: string }>();

/** Serves the dashboard's script and styles. */
export const dashboardAssets: Middleware<AppState, Pick<RouterContext, 'params'>> = async (ctx, next) => {
  const asset = Object.hasOwn(ASSETS, ctx.params.asset) ? ASSETS[ctx.params.asset] : undefined;
  if (!asset) {
    await next();
    return;
  }
  let cached = cache.get(ctx.params.asset);
  if (!cached) {
    const body = await asset.body();
    cached = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    cache.set(ctx.params.asset, cached);
  }
  ctx.type = `${asset.type}; charset=utf-8`;
  ctx.set('Cache-Control', 'no-cache');
  ctx.etag = cached.etag;
  ctx.status = 200; // Koa compares validators only on a 2xx
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = cached.body;
};

/**
 * Every page of the dashboard answers the same document; the script renders the page its path
 * names. A path that names no page answers 404 (the script says so too).
 */
export function dashboardPage(publicUrl: string | undefined): Middleware<AppState> {
  // Behind a proxy PUBLIC_URL may carry a path; the page's links and requests start with it.
  const basePath = publicUrl ? new URL(publicUrl).pathname.replace(/\/+$/, '') : '';
  const html = page(basePath);
  return (ctx) => {
    ctx.status = matchPage(ctx.path) ? 200 : 404;
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', PAGE_POLICY);
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = html;
  };
}

const attribute = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

const page = (basePath: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="tally-base-path" content="${attribute(basePath)}">
  <title>Tally dashboard</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${attribute(basePath)}/dashboard/assets/uplot.css">
  <link rel="stylesheet" href="${attribute(basePath)}/dashboard/assets/dashboard.css">
</head>
<body>
  <div id="app"></div>
  <script type="module" src="${attribute(basePath)}/dashboard/assets/dashboard.js"></script>
</body>
</html>
`;
