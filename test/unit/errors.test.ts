import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  DomainError,
  ERROR_CATALOGUE,
  SANDBOX_ERROR_CATALOGUE,
  type ApiErrorCode as ErrorCode,
} from '../../src/core/errors.js';

// The catalogue is the one table both APIs answer from: its codes, statuses and retry flags must be
// those the contract's ErrorCode table states, row for row, and a DomainError must carry them.

type SpecSchema = { enum: string[]; description: string };
const spec = parse(readFileSync(new URL('../../spec/billing.openapi.yaml', import.meta.url), 'utf8'));
const errorCode: SpecSchema = spec.components.schemas.ErrorCode;

/** The rows of the `| code | HTTP | retryable | when |` table in ErrorCode's description. */
const specRows = errorCode.description
  .split('\n')
  .map((row) => /^\| `([a-z_]+)` \| (\d{3}|GraphQL) \| (yes|no) \|/.exec(row.trim()))
  .filter((match): match is RegExpExecArray => match !== null)
  .map(([, code, http, retryable]) => ({ code, http, retryable: retryable === 'yes' }));

const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

describe('the error catalogue', () => {
  it('has exactly the codes of the contract enum, and the table documents each of them once', () => {
    expect([...codes].sort()).toEqual([...errorCode.enum].sort());
    expect(specRows.map((row) => row.code).sort()).toEqual([...errorCode.enum].sort());
    expect(codes).toHaveLength(59);
  });

  it('gives every code the HTTP status and retry flag its table row states (GraphQL-only codes answer 400)', () => {
    for (const row of specRows) {
      const expected = { status: row.http === 'GraphQL' ? 400 : Number(row.http), retryable: row.retryable };
      expect({ code: row.code, ...ERROR_CATALOGUE[row.code as ErrorCode] }).toEqual({ code: row.code, ...expected });
    }
  });

  it('marks only the transient failures as retryable', () => {
    const retryable = codes.filter((code) => ERROR_CATALOGUE[code].retryable).sort();
    expect(retryable).toEqual(['deadline_exceeded', 'internal_error', 'service_unavailable', 'too_many_requests']);
  });

  it('maps a few codes a client branches on to their exact statuses', () => {
    expect(ERROR_CATALOGUE.invalid_request).toEqual({ status: 400, retryable: false });
    expect(ERROR_CATALOGUE.token_expired).toEqual({ status: 401, retryable: false });
    expect(ERROR_CATALOGUE.not_acceptable).toEqual({ status: 406, retryable: false });
    expect(ERROR_CATALOGUE.idempotency_key_reused).toEqual({ status: 409, retryable: false });
    expect(ERROR_CATALOGUE.not_implemented).toEqual({ status: 501, retryable: false });
    expect(ERROR_CATALOGUE.deadline_exceeded).toEqual({ status: 503, retryable: true });
    expect(ERROR_CATALOGUE.entry_unbalanced).toEqual({ status: 400, retryable: false });
  });

  it("adds the sandbox admin API's own codes, each once, and the sandbox contract lists no code Tally lacks", () => {
    const sandbox = parse(readFileSync(new URL('../../spec/sandbox.openapi.yaml', import.meta.url), 'utf8'));
    const sandboxCodes: string[] = sandbox.components.schemas.SandboxErrorCode.enum;
    const own = Object.keys(SANDBOX_ERROR_CATALOGUE);
    expect(own.filter((code) => code in ERROR_CATALOGUE)).toEqual([]);
    expect(sandboxCodes.filter((code) => !(code in ERROR_CATALOGUE) && !own.includes(code))).toEqual([]);
    expect(new DomainError('snapshot_exists', 'taken').status).toBe(409);
    expect(new DomainError('workspace_not_found', 'gone').status).toBe(404);
  });
});

describe('DomainError', () => {
  it('is an Error named DomainError carrying its code, message and details', () => {
    const violations = [{ pointer: '/amount', message: 'must be an integer string' }];
    const error = new DomainError('invalid_request', 'The request is invalid.', { violations, current_version: 3 });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(DomainError);
    expect(error.name).toBe('DomainError');
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe('The request is invalid.');
    expect(error.details).toEqual({
      violations: [{ pointer: '/amount', message: 'must be an integer string' }],
      current_version: 3,
    });
    expect(String(error)).toBe('DomainError: The request is invalid.');
    expect(error.stack).toMatch(/^DomainError: The request is invalid\.\n/);
  });

  it('has no details unless given some', () => {
    expect(new DomainError('schema_in_use', 'In use.').details).toBeUndefined();
  });

  it('reads status and retryable from the catalogue', () => {
    const tooMany = new DomainError('too_many_requests', 'Busy.');
    expect([tooMany.status, tooMany.retryable]).toEqual([429, true]);
    const notFound = new DomainError('invoice_not_found', 'No such invoice.');
    expect([notFound.status, notFound.retryable]).toEqual([404, false]);
    const ledger = new DomainError('ledger_account_not_found', 'No such account.', { path: 'assets/bank' });
    expect([ledger.status, ledger.retryable, ledger.details]).toEqual([400, false, { path: 'assets/bank' }]);
  });

  // Law: for every code, a DomainError's status and retryable are the catalogue's entry for that code.
  it('answers the catalogue entry of whatever code it carries', () => {
    fc.assert(
      fc.property(fc.constantFrom(...codes), fc.string(), (code, message) => {
        const error = new DomainError(code, message);
        expect({ status: error.status, retryable: error.retryable, message: error.message }).toEqual({
          ...ERROR_CATALOGUE[code],
          message,
        });
      }),
      { numRuns: 200 },
    );
  });

  it('keeps its code, status and name in subclasses', () => {
    class Refusal extends DomainError {}
    const refusal = new Refusal('unauthorized', 'No token.');
    expect(refusal).toBeInstanceOf(DomainError);
    expect([refusal.name, refusal.code, refusal.status, refusal.retryable]).toEqual([
      'DomainError',
      'unauthorized',
      401,
      false,
    ]);
  });
});

describe('cannotConnect', () => {
  it('tells a database no connection can reach from the loss of one connection', async () => {
    const { cannotConnect, databaseUnavailable } = await import('../../src/db/connectionErrors.js');
    const { default: postgres } = await import('postgres');
    const sqlState = (code: string) => Object.assign(Object.create(postgres.PostgresError.prototype), { code });
    for (const error of [{ code: 'ECONNREFUSED' }, { code: 'CONNECT_TIMEOUT' }, sqlState('57P03'), sqlState('53300')]) {
      expect([cannotConnect(error), databaseUnavailable(error)]).toEqual([true, true]);
    }
    // A terminated backend or a reset socket: another connection may well work, so a group's items are tried alone.
    for (const error of [{ code: 'ECONNRESET' }, { code: 'CONNECTION_CLOSED' }, sqlState('57P01')]) {
      expect([cannotConnect(error), databaseUnavailable(error)]).toEqual([false, true]);
    }
    expect(cannotConnect(sqlState('40P01'))).toBe(false);
  });
});
