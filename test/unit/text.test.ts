import { describe, expect, it } from 'vitest';
import { findUnstorableText, textProblem } from '../../src/core/text.js';

describe('textProblem', () => {
  it.each([
    ['plain', undefined],
    ['emoji 💸 and accents é', undefined],
    ['nul \u0000 inside', 'NUL'],
    ['lone high \ud800', 'surrogate'],
    ['lone low \udc00 x', 'surrogate'],
    ['reversed pair \udc00\ud800', 'surrogate'],
  ])('%j', (value, expected) => {
    const problem = textProblem(value);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(expected);
  });
});

describe('findUnstorableText', () => {
  it('points at the first bad value, escaping the pointer', () => {
    expect(findUnstorableText({ a: ['ok', { 'x/y': 'bad\u0000' }] }, '/body'))
      .toEqual({ pointer: '/body/a/1/x~1y', message: expect.stringContaining('NUL') });
  });
  it('checks property names too', () => {
    expect(findUnstorableText({ ['k\ud800']: 1 }, '/body')?.message).toContain('property name');
  });
  it('accepts well-formed documents and non-string scalars', () => {
    expect(findUnstorableText({ n: 1, b: true, z: null, s: ['é'] }, '/body')).toBeUndefined();
  });
});
