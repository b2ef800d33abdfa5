import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DEFAULT_DOCUMENT_LIMITS } from '../../src/ledger/graphql/documentLimits.js';

describe('loadConfig', () => {
  it('has working defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8080,
      ephemeral: false,
      tokenTtlSeconds: 3600,
      bootstrap: undefined,
      requestTimeoutMs: 10_000,
      maxInFlightPerWorkspace: 64,
    });
  });

  it('reads every GraphQL limit from its own variable, the others keeping their defaults', () => {
    const config = loadConfig({
      GRAPHQL_MAX_ALIASES: '1000',
      GRAPHQL_MAX_LIST_ITEMS: '500',
      GRAPHQL_MAX_TOKENS: '20000',
    });
    expect(config.graphqlLimits).toEqual({ ...DEFAULT_DOCUMENT_LIMITS, aliases: 1000, listItems: 500, tokens: 20_000 });
    expect(loadConfig({}).graphqlLimits).toEqual(DEFAULT_DOCUMENT_LIMITS);
  });

  it('reads the group commit settings, the flush thresholds included', () => {
    expect(loadConfig({}).billingGroups).toEqual({ maxItems: 32, maxInFlight: 4, flushAt: 16 });
    expect(loadConfig({}).postingGroups).toEqual({ maxEntries: 64, maxInFlight: 2, flushAt: 64 });
    const config = loadConfig({ BILLING_GROUP_FLUSH_AT: '8', POSTING_GROUP_FLUSH_AT: '24' });
    expect(config.billingGroups.flushAt).toBe(8);
    expect(config.postingGroups.flushAt).toBe(24);
    expect(() => loadConfig({ BILLING_GROUP_FLUSH_AT: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ POSTING_GROUP_FLUSH_AT: '65' })).toThrow(ConfigError);
  });

  it('reads the posting-target cache size, 0 turning it off', () => {
    expect(loadConfig({}).postingTargetCache).toEqual({ maxAccounts: 50_000 });
    expect(loadConfig({ POSTING_TARGET_CACHE_ACCOUNTS: '1000' }).postingTargetCache).toEqual({ maxAccounts: 1000 });
    expect(loadConfig({ POSTING_TARGET_CACHE_ACCOUNTS: '0' }).postingTargetCache).toBe(false);
    expect(() => loadConfig({ POSTING_TARGET_CACHE_ACCOUNTS: '-1' })).toThrow(ConfigError);
  });

  it('reads the bootstrap client and the ephemeral flag', () => {
    const config = loadConfig({ BOOTSTRAP_CLIENT_ID: 'ci', BOOTSTRAP_CLIENT_SECRET: 's', TALLY_EPHEMERAL: '1' });
    expect(config.bootstrap).toEqual({ clientId: 'ci', clientSecret: 's', workspaceName: 'Default' });
    expect(config.ephemeral).toBe(true);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ BOOTSTRAP_CLIENT_ID: 'only-id' }, /set together/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ TOKEN_TTL_SECONDS: '60' }, /TOKEN_TTL_SECONDS/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ REQUEST_TIMEOUT_MS: '5' }, /REQUEST_TIMEOUT_MS/],
    [{ WORKSPACE_MAX_IN_FLIGHT: '0' }, /WORKSPACE_MAX_IN_FLIGHT/],
    [{ GRAPHQL_MAX_ALIASES: '0' }, /GRAPHQL_MAX_ALIASES/],
    [{ GRAPHQL_MAX_COST: 'lots' }, /GRAPHQL_MAX_COST/],
  ])('rejects %j with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
