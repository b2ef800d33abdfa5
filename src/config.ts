import path from 'node:path';
import { DEFAULT_MAX_IN_FLIGHT_PER_WORKSPACE } from './http/inFlight.js';
import { DEFAULT_BILLING_GROUPS } from './billing/writeGroupOptions.js';
import type { GroupCommitOptions } from './db/groupCommit.js';
import { DEFAULT_POSTING_GROUPS, type PostingGroupOptions } from './ledger/entries/postingGroupOptions.js';
import { DEFAULT_POSTING_TARGET_CACHE, type PostingTargetCacheOptions } from './ledger/entries/postingTargetCache.js';
import {
  DEFAULT_DOCUMENT_LIMITS,
  DOCUMENT_LIMIT_VARIABLES,
  type DocumentLimit,
  type DocumentLimits,
} from './ledger/graphql/documentLimits.js';

export type Config = {
  port: number;
  host: string;
  /** An existing PostgreSQL; when absent an embedded one is started. */
  databaseUrl?: string;
  /** Embedded database in a temporary folder removed at exit. */
  ephemeral: boolean;
  /** The sandbox admin API under /sandbox (TALLY_SANDBOX=1, and always with TALLY_EPHEMERAL=1). */
  sandbox: boolean;
  /** The sandbox's admin token (TALLY_ADMIN_TOKEN); absent: made at start and printed once. */
  adminToken?: string;
  dataDir: string;
  databasePoolMax: number;
  /** Seconds a request waits for a database connection before answering 503 service_unavailable. */
  databaseConnectTimeoutSeconds: number;
  bootstrap?: { clientId: string; clientSecret: string; workspaceName: string };
  tokenTtlSeconds: number;
  /** Longest a single SQL statement of a request may run before PostgreSQL cancels it. */
  requestTimeoutMs: number;
  /** Requests one workspace may have in flight on this process before getting 429. */
  maxInFlightPerWorkspace: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Origins whose pages may call the API from a browser (CORS): exact origins, `*` ports, or `*`. */
  corsOrigins: string[];
  /** The base URL clients reach Tally at, behind a proxy; absent: taken from each request. */
  publicUrl?: string;
  /** Pause of the balance fold when it finds less than a full batch waiting. */
  balanceFoldIntervalMs: number;
  /** Queued balance deltas folded per transaction. */
  balanceFoldBatchSize: number;
  /** What one GraphQL request may ask for (GRAPHQL_MAX_*). */
  graphqlLimits: DocumentLimits;
  /** Group commit of ledger entries (POSTING_GROUP_MAX_ENTRIES, POSTING_GROUPS_IN_FLIGHT, POSTING_GROUP_FLUSH_AT). */
  postingGroups: PostingGroupOptions;
  /** Posting targets held in memory (POSTING_TARGET_CACHE_ACCOUNTS; 0: none). */
  postingTargetCache: PostingTargetCacheOptions | false;
  /** Group commit of transaction syncs and invoice creates (BILLING_GROUP_MAX_WRITES, BILLING_GROUPS_IN_FLIGHT, BILLING_GROUP_FLUSH_AT). */
  billingGroups: GroupCommitOptions;
  /** Idle keep-alive connections close after this; above the idle time of common client pools. */
  keepAliveTimeoutMs: number;
  /** A request's headers must arrive within this once it has started (slowloris guard). */
  headersTimeoutMs: number;
  /** A whole request must arrive within this once it has started. */
  requestReceiveTimeoutMs: number;
};

/**
 * Longer than the idle time of the pools that keep connections open (Go's net/http 90 s, load
 * balancers' 60 s; undici, behind Node's fetch, closes after 4 s), so a client never reuses a
 * connection the server has just closed.
 */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 95_000;

/** A local frontend on any port may call the sandbox with a bearer token. */
export const DEFAULT_CORS_ORIGINS = ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*'];
const CORS_ORIGIN =
  /^(\*|https?:\/\/(\*\.)?[A-Za-z0-9.-]+(:(\d{1,5}|\*))?|https?:\/\/\[[0-9a-fA-F:]+\](:(\d{1,5}|\*))?)$/;

export class ConfigError extends Error {}

/** Reads and checks the environment once, at start; a bad value stops the process with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
      return fallback;
    }
    return value;
  };
  const flag = (name: string) => ['1', 'true', 'yes'].includes((env[name] ?? '').toLowerCase());

  const clientId = env.BOOTSTRAP_CLIENT_ID || undefined;
  const clientSecret = env.BOOTSTRAP_CLIENT_SECRET || undefined;
  if (Boolean(clientId) !== Boolean(clientSecret)) {
    problems.push('BOOTSTRAP_CLIENT_ID and BOOTSTRAP_CLIENT_SECRET must be set together');
  }
  const logLevel = (env.LOG_LEVEL ?? 'info') as Config['logLevel'];
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of debug, info, warn, error, got '${env.LOG_LEVEL}'`);
  }
  const corsOrigins =
    env.CORS_ORIGINS === undefined
      ? DEFAULT_CORS_ORIGINS
      : env.CORS_ORIGINS.split(',')
          .map((origin) => origin.trim())
          .filter(Boolean);
  for (const origin of corsOrigins) {
    if (!CORS_ORIGIN.test(origin))
      problems.push(
        `CORS_ORIGINS entries are origins like https://app.example.com, http://localhost:*, or *; got '${origin}'`,
      );
  }
  const publicUrl = env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/+$/, '') : undefined;
  if (publicUrl && !/^https?:\/\/[A-Za-z0-9.\-[\]:]+(\/[A-Za-z0-9._~\-/]*)?$/.test(publicUrl)) {
    problems.push(`PUBLIC_URL must be an http(s) URL without query or fragment, got '${env.PUBLIC_URL}'`);
  }
  const adminToken = env.TALLY_ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && !/^[\x21-\x7e]{16,512}$/.test(adminToken)) {
    problems.push('TALLY_ADMIN_TOKEN must be 16 to 512 printable ASCII characters without spaces');
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }

  const config: Config = {
    port: integer('PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    ephemeral: flag('TALLY_EPHEMERAL'),
    sandbox: flag('TALLY_SANDBOX') || flag('TALLY_EPHEMERAL'),
    adminToken,
    dataDir: path.resolve(env.TALLY_DATA_DIR || '.data'),
    databasePoolMax: integer('DATABASE_POOL_MAX', 10, 1, 100),
    databaseConnectTimeoutSeconds: integer('DATABASE_CONNECT_TIMEOUT_SECONDS', 5, 1, 120),
    bootstrap:
      clientId && clientSecret
        ? { clientId, clientSecret, workspaceName: env.BOOTSTRAP_WORKSPACE_NAME || 'Default' }
        : undefined,
    tokenTtlSeconds: integer('TOKEN_TTL_SECONDS', 3600, 121, 86400),
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', 10_000, 100, 600_000),
    maxInFlightPerWorkspace: integer('WORKSPACE_MAX_IN_FLIGHT', DEFAULT_MAX_IN_FLIGHT_PER_WORKSPACE, 1, 10_000),
    logLevel,
    corsOrigins,
    publicUrl,
    balanceFoldIntervalMs: integer('BALANCE_FOLD_INTERVAL_MS', 5000, 10, 60_000),
    balanceFoldBatchSize: integer('BALANCE_FOLD_BATCH_SIZE', 50_000, 1, 100_000),
    postingGroups: {
      maxEntries: integer('POSTING_GROUP_MAX_ENTRIES', DEFAULT_POSTING_GROUPS.maxEntries, 1, 64),
      maxInFlight: integer('POSTING_GROUPS_IN_FLIGHT', DEFAULT_POSTING_GROUPS.maxInFlight, 1, 64),
      flushAt: integer(
        'POSTING_GROUP_FLUSH_AT',
        DEFAULT_POSTING_GROUPS.flushAt ?? DEFAULT_POSTING_GROUPS.maxEntries,
        1,
        64,
      ),
    },
    postingTargetCache: postingTargetCache(
      integer('POSTING_TARGET_CACHE_ACCOUNTS', DEFAULT_POSTING_TARGET_CACHE.maxAccounts, 0, 10_000_000),
    ),
    billingGroups: {
      maxItems: integer('BILLING_GROUP_MAX_WRITES', DEFAULT_BILLING_GROUPS.maxItems, 1, 32),
      maxInFlight: integer('BILLING_GROUPS_IN_FLIGHT', DEFAULT_BILLING_GROUPS.maxInFlight, 1, 64),
      flushAt: integer(
        'BILLING_GROUP_FLUSH_AT',
        DEFAULT_BILLING_GROUPS.flushAt ?? DEFAULT_BILLING_GROUPS.maxItems,
        1,
        32,
      ),
    },
    graphqlLimits: Object.fromEntries(
      (Object.keys(DEFAULT_DOCUMENT_LIMITS) as DocumentLimit[]).map((limit) => [
        limit,
        integer(DOCUMENT_LIMIT_VARIABLES[limit], DEFAULT_DOCUMENT_LIMITS[limit], 1, 10_000_000),
      ]),
    ) as DocumentLimits,
    keepAliveTimeoutMs: integer('HTTP_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_KEEP_ALIVE_TIMEOUT_MS, 1000, 3_600_000),
    headersTimeoutMs: integer('HTTP_HEADERS_TIMEOUT_MS', 10_000, 1000, 600_000),
    requestReceiveTimeoutMs: integer('HTTP_REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
  };
  if (config.headersTimeoutMs > config.requestReceiveTimeoutMs) {
    problems.push(
      'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)',
    );
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return config;
}

/** The posting-target cache holding at most `maxAccounts` accounts; 0 turns it off. */
function postingTargetCache(maxAccounts: number): PostingTargetCacheOptions | false {
  return maxAccounts === 0 ? false : { ...DEFAULT_POSTING_TARGET_CACHE, maxAccounts };
}
