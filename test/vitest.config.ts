import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Vite would pick graphql's ESM build for our code while Node's require gives dependencies the
    // CJS one; two copies of graphql reject each other's schemas. Pin both to the CJS entry.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most tests wait on PostgreSQL and spawned servers, not on the CPU: three files at a time
    // keep both cores busy (vitest's default on 2 cores is one at a time).
    maxWorkers: 3,
  },
});
