import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';
import { PAGE_POLICY } from './contentSecurityPolicy.js';

// GET /docs: the billing API reference, rendered in the browser by Scalar's API reference from
// /openapi.yaml, every asset served from the installed package: it works with no internet
// access. Telemetry and the hosted fonts are switched off.

const require = createRequire(import.meta.url);
// The package's exports do not name its browser bundle: find it beside the main entry.
const SCRIPT_PATH = path.join(path.dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js');

const configuration = (sandbox: boolean) =>
  JSON.stringify({
    telemetry: false,
    withDefaultFonts: false,
    hideClientButton: true,
    persistAuth: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
    defaultOpenAllTags: true,
    metaData: { title: 'Tally billing API' },
    // With the sandbox on, its admin contract is a second document, picked from the page's menu.
    ...(sandbox && {
      sources: [
        { title: 'Billing API', slug: 'billing', url: '/openapi.yaml' },
        { title: 'Sandbox admin API', slug: 'sandbox', url: '/sandbox/openapi.yaml' },
      ],
    }),
  }).replaceAll('"', '&quot;');

const page = (sandbox: boolean) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Tally billing API</title>
  <link rel="icon" href="data:,">
</head>
<body>
  <script id="api-reference"${sandbox ? '' : ' data-url="/openapi.yaml"'} data-configuration="${configuration(sandbox)}"></script>
  <script src="/docs/scalar.js"></script>
</body>
</html>
`;

/** The reference page: the billing contract, and the sandbox admin contract when the sandbox is on. */
export function docsPage(options: { sandbox: boolean }): Middleware<AppState> {
  const body = page(options.sandbox);
  return (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', PAGE_POLICY);
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = body;
  };
}

let script: Buffer | undefined;

/** The renderer's script, read once on first use (4 MB; most deployments never open /docs). */
export const docsScript: Middleware<AppState> = (ctx) => {
  script ??= fs.readFileSync(SCRIPT_PATH);
  ctx.type = 'application/javascript; charset=utf-8';
  ctx.set('Cache-Control', 'public, max-age=86400');
  ctx.body = script;
};
