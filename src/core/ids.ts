import { randomBytes } from 'node:crypto';

// Crockford base32, lowercase: no i, l, o, u, so ids read unambiguously.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'ws'
  | 'prod'
  | 'role'
  | 'li'
  | 'user'
  | 'txn'
  | 'ext_account'
  | 'alloc'
  | 'pf'
  | 'pay'
  | 'pacct'
  | 'led'
  | 'acct'
  | 'ent'
  | 'line'
  | 'link'
  | 'xacct'
  | 'tx';

let lastTime = 0;
let lastRandom = 0n;

/**
 * A time-sortable id (48-bit millisecond time + 80 random bits, ULID layout) with a type prefix.
 * Within one millisecond the random part counts up, so ids made in sequence also sort in sequence.
 */
export function newId(prefix: IdPrefix): string {
  const now = Date.now();
  if (now <= lastTime) {
    lastRandom += 1n;
  } else {
    lastTime = now;
    lastRandom = BigInt(`0x${randomBytes(10).toString('hex')}`) >> 1n; // headroom for the count
  }
  return `${prefix}_${base32(BigInt(lastTime), 10)}${base32(lastRandom, 16)}`;
}

function base32(value: bigint, digits: number): string {
  let out = '';
  for (let i = 0; i < digits; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

export const ID_PATTERN = /^[a-z]+(?:_[a-z]+)*_[0-9a-hjkmnp-tv-z]{26}$/;
