import { describe, expect, it } from 'vitest';
import { ID_PATTERN, newId } from '../../src/core/ids.js';

describe('ids', () => {
  it('are prefixed, well-formed and sort in creation order, even within one millisecond', () => {
    const ids = Array.from({ length: 50 }, () => newId('led'));
    for (const id of ids) expect(id).toMatch(ID_PATTERN);
    expect(newId('ext_account')).toMatch(ID_PATTERN);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
