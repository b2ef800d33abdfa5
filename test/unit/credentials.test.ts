import { describe, expect, it } from 'vitest';
import { hashSecret, secretVerifier, verifySecret } from '../../src/core/credentials.js';

describe('client secrets', () => {
  it('verifies the right secret and nothing else', async () => {
    const stored = hashSecret('s3cret');
    expect(stored).not.toContain('s3cret');
    expect(await verifySecret('s3cret', stored)).toBe(true);
    expect(await verifySecret('s3cret!', stored)).toBe(false);
  });

  it('remembers a proven secret only for the stored hash it was proven against', async () => {
    const verify = secretVerifier();
    const first = hashSecret('s3cret');
    expect(await verify('c1', 's3cret', first)).toBe(true);
    expect(await verify('c1', 's3cret!', first)).toBe(false);
    expect(await verify('c1', 's3cret', first)).toBe(true);
    // A rotated secret: the remembered proof no longer applies in either direction.
    const rotated = hashSecret('n3w');
    expect(await verify('c1', 's3cret', rotated)).toBe(false);
    expect(await verify('c1', 'n3w', rotated)).toBe(true);
    expect(await verify('c2', 'n3w', first)).toBe(false);
  });

  it('hashes off the event loop: timers keep firing while scrypt runs', async () => {
    const stored = hashSecret('s3cret');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await Promise.all(Array.from({ length: 8 }, () => verifySecret('s3cret', stored)));
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });
});
