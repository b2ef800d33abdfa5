import { defineConfig } from 'orval';

// orval's fetch client for the billing contract, as a client team would configure it: requests go
// through a small fetch wrapper that adds the base URL and the bearer token (tallyFetch.ts).
export default defineConfig({
  billing: {
    input: { target: '../../spec/billing.openapi.yaml' },
    output: {
      target: '../../.sdk/orval/billing.ts',
      client: 'fetch',
      mode: 'single',
      override: { mutator: { path: './tallyFetch.ts', name: 'tallyFetch' } },
    },
  },
});
