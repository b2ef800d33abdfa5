import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('has working defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8080, ephemeral: false, tokenTtlSeconds: 3600, bootstrap: undefined, requestTimeoutMs: 10_000, maxInFlightPerWorkspace: 64,
    });
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
  ])('rejects %j with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
