import { DomainError, type ErrorCode } from './errors.js';

// Why: every idempotent write answers a repeated key the same way, so it is decided here once
// (design principle 3): the same request again gets the stored result, another a typed refusal.

/** An idempotency key as the client gave it. */
export type IdempotencyKey = {
  /** The field the client sent the key in, as the client spells it: ik, invoice_id, external_id, code… */
  field: string;
  value: string;
  /** Where the key is unique, in words ("in this ledger"); omitted when that is the workspace. */
  scope?: string;
  /** The catalogue code of a key held by another request: `idempotency_key_reused` unless the contract names another. */
  code?: ErrorCode;
};

/** The refusal of a key that already holds another request; `difference` says what differs, when known. */
export function keyReused(key: IdempotencyKey, difference?: string): DomainError {
  const scope = key.scope ? ` ${key.scope}` : '';
  return new DomainError(
    key.code ?? 'idempotency_key_reused',
    `${key.field} ${key.value} was already used${scope} for a different request${difference ? `: ${difference}` : ''}.`,
  );
}

/** Same request, or the key was reused: answers `stored` when `same`, throws the typed refusal otherwise. */
export function sameRequest<T>(key: IdempotencyKey, stored: T, same: boolean, difference?: string): T {
  if (!same) throw keyReused(key, difference);
  return stored;
}

/** The usual test of `same`: the stored request fingerprint (core/fingerprint.ts) equals the new one. */
export function sameFingerprint(requestHash: string): (stored: { requestHash: string | null }) => boolean {
  return (stored) => stored.requestHash === requestHash;
}
