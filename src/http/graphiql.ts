import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { introspectionFromSchema, type GraphQLSchema } from 'graphql';
import type { RouterContext } from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';
import { PAGE_POLICY } from './contentSecurityPolicy.js';

// GET /graphiql: GraphiQL for the ledger API, every asset served from the installed packages
// (GraphiQL's and React's browser builds), so it works offline. The token goes into the Headers
// tab; the example operations of spec/examples/ledger/ open as tabs, one click away; the docs
// pane reads the SDL's descriptions from an introspection result served beside the page, so it
// works before a token is pasted.

const require = createRequire(import.meta.url);
const packageDir = (name: string, mainDepth: number) => {
  let dir = path.dirname(require.resolve(name));
  for (let i = 0; i < mainDepth; i++) dir = path.dirname(dir);
  return dir;
};
const ASSETS: Record<string, { file: string; type: string }> = {
  'react.js': {
    file: path.join(packageDir('react', 0), 'umd', 'react.production.min.js'),
    type: 'application/javascript',
  },
  'react-dom.js': {
    file: path.join(packageDir('react-dom', 0), 'umd', 'react-dom.production.min.js'),
    type: 'application/javascript',
  },
  'graphiql.js': { file: path.join(packageDir('graphiql', 1), 'graphiql.min.js'), type: 'application/javascript' },
  'graphiql.css': { file: path.join(packageDir('graphiql', 1), 'graphiql.min.css'), type: 'text/css' },
};
const EXAMPLES_DIR = new URL('../../spec/examples/ledger/', import.meta.url);

/** The ledger examples as GraphiQL tabs: the operation, its variables and a headers template. */
function exampleTabs(): { query: string; variables: string; headers: string }[] {
  return fs
    .readdirSync(EXAMPLES_DIR)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => {
      const example = JSON.parse(
        fs.readFileSync(new URL(name.replace(/\.graphql$/, '.json'), EXAMPLES_DIR), 'utf8'),
      ) as { variables?: unknown };
      const variables = example.variables ?? {};
      return {
        query: fs.readFileSync(new URL(name, EXAMPLES_DIR), 'utf8'),
        variables: JSON.stringify(variables, null, 2),
        headers: HEADERS,
      };
    });
}

const HEADERS = JSON.stringify({ Authorization: 'Bearer <paste your access token>' }, null, 2);
const WELCOME = '# Paste your access token into the Headers tab below, then run:\n{ workspace { id name } }\n';

function page(): string {
  const tabs = [{ query: WELCOME, variables: '{}', headers: HEADERS }, ...exampleTabs()];
  // </script> can never occur inside: every "<" of the JSON is escaped.
  const config = JSON.stringify({ tabs }).replaceAll('<', '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Tally ledger API · GraphiQL</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/graphiql/graphiql.css">
  <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="/graphiql/react.js"></script>
  <script src="/graphiql/react-dom.js"></script>
  <script src="/graphiql/graphiql.js"></script>
  <script>
    const config = ${config};
    const remote = GraphiQL.createFetcher({ url: '/graphql' });
    let introspection;
    const fetcher = async (params, options) => {
      if (params.operationName === 'IntrospectionQuery') {
        introspection ??= await (await fetch('/graphiql/introspection.json')).json();
        return introspection;
      }
      return remote(params, options);
    };
    ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, {
      fetcher,
      defaultTabs: config.tabs,
      defaultHeaders: config.tabs[0].headers,
      isHeadersEditorEnabled: true,
      defaultEditorToolsVisibility: 'headers',
      shouldPersistHeaders: false,
    }));
  </script>
</body>
</html>
`;
}

let rendered: string | undefined;

export const graphiqlPage: Middleware<AppState> = (ctx) => {
  rendered ??= page();
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', PAGE_POLICY);
  ctx.set('Cache-Control', 'no-cache');
  ctx.body = rendered;
};

const cache = new Map<string, Buffer>();

/** What @koa/router leaves on the context: the matched route's parameters. */
type RouteParams = Pick<RouterContext, 'params'>;

/** The IDE's assets, and the contract's introspection result for its docs pane. */
export function graphiqlAssets(schema: GraphQLSchema): Middleware<AppState, RouteParams> {
  let introspection: string | undefined;
  return (ctx, next) => {
    if (ctx.params.asset === 'introspection.json') {
      introspection ??= JSON.stringify({ data: introspectionFromSchema(schema, { descriptions: true }) });
      ctx.type = 'application/json';
      ctx.body = introspection;
      return;
    }
    return serveAsset(ctx, next) as Promise<void>;
  };
}

const serveAsset: Middleware<AppState, RouteParams> = (ctx, next) => {
  const asset = ASSETS[ctx.params.asset];
  if (!asset) return next();
  let body = cache.get(asset.file);
  if (!body) cache.set(asset.file, (body = fs.readFileSync(asset.file)));
  ctx.type = `${asset.type}; charset=utf-8`;
  ctx.set('Cache-Control', 'public, max-age=86400');
  ctx.body = body;
};
