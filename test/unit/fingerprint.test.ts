import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/core/fingerprint.js';

describe('fingerprint', () => {
  it('ignores key order and undefined members', () => {
    expect(fingerprint({ a: 1, b: { c: 2, d: undefined } })).toBe(fingerprint({ b: { c: 2 }, a: 1 }));
  });

  it('tells different payloads apart', () => {
    expect(fingerprint({ name: 'Main' })).not.toBe(fingerprint({ name: 'Main ledger' }));
  });
});
