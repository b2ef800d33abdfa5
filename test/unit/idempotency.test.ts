import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.js';
import { keyReused, sameFingerprint, sameRequest } from '../../src/core/idempotency.js';

describe('sameRequest', () => {
  const key = { field: 'ik', value: 'e-1', scope: 'in this ledger' };

  it('answers the stored result when the request is the same', () => {
    const stored = { id: 'ent_1' };
    expect(sameRequest(key, stored, true)).toBe(stored);
  });

  it('refuses another request under the key with idempotency_key_reused (409, not retryable), naming the key', () => {
    const refusal = (() => {
      try {
        sameRequest(key, {}, false);
      } catch (error) {
        return error;
      }
    })() as DomainError;
    expect(refusal).toBeInstanceOf(DomainError);
    expect([refusal.code, refusal.status, refusal.retryable]).toEqual(['idempotency_key_reused', 409, false]);
    expect(refusal.message).toBe('ik e-1 was already used in this ledger for a different request.');
  });

  it('says what differs, when told', () => {
    const refusal = (() => {
      try {
        sameRequest({ field: 'externalId', value: 't1' }, {}, false, 'another amount');
      } catch (error) {
        return error;
      }
    })() as DomainError;
    expect(refusal).toBeInstanceOf(DomainError);
    expect([refusal.code, refusal.message]).toEqual([
      'idempotency_key_reused',
      'externalId t1 was already used for a different request: another amount.',
    ]);
  });

  it('uses the code the contract names for a key, when it names one', () => {
    const refusal = keyReused({
      field: 'code',
      value: 'coffee',
      scope: 'in this workspace',
      code: 'product_code_taken',
    });
    expect([refusal.code, refusal.status]).toEqual(['product_code_taken', 409]);
    expect(refusal.message).toBe('code coffee was already used in this workspace for a different request.');
  });
});

describe('keyReused', () => {
  it('builds the refusal without throwing it, the key named as the client spelled it', () => {
    const refusal = keyReused({ field: 'invoice_id', value: 'INV-7' }, 'another total');
    expect(refusal).toBeInstanceOf(DomainError);
    expect([refusal.code, refusal.status, refusal.message]).toEqual([
      'idempotency_key_reused',
      409,
      'invoice_id INV-7 was already used for a different request: another total.',
    ]);
  });
});

describe('sameFingerprint', () => {
  it('compares the stored request fingerprint with the new one', () => {
    expect(sameFingerprint('abc')({ requestHash: 'abc' })).toBe(true);
    expect(sameFingerprint('abc')({ requestHash: 'abd' })).toBe(false);
    // Rows written before fingerprints were stored hold none: never the same request.
    expect(sameFingerprint('abc')({ requestHash: null })).toBe(false);
  });
});
