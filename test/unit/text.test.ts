import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findUnstorableText, textProblem } from '../../src/core/text.js';

const NUL = 'must not contain the NUL character (U+0000)';
const SURROGATE = 'must be valid Unicode (it contains an unpaired UTF-16 surrogate)';

describe('textProblem', () => {
  it.each([
    ['plain', undefined],
    ['emoji 💸 and accents é', undefined],
    ['nul \u0000 inside', NUL],
    ['lone high \ud800', SURROGATE],
    ['lone low \udc00 x', SURROGATE],
    ['reversed pair \udc00\ud800', SURROGATE],
  ])('%j', (value, expected) => {
    expect(textProblem(value)).toBe(expected);
  });

  it('names NUL first when a text has both problems', () => {
    expect(textProblem('\ud800\u0000')).toBe(NUL);
  });

  it('finds nothing wrong with any well-formed text free of NUL', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }).map((text) => text.replaceAll('\u0000', '')),
        (text) => {
          expect(textProblem(text)).toBeUndefined();
        },
      ),
    );
  });

  it('finds a NUL or a lone surrogate wherever it is put', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 20 }).map((value) => value.replaceAll('\u0000', ''));
    const bad = fc.constantFrom(['\u0000', NUL], ['\ud800', SURROGATE], ['\udfff', SURROGATE]);
    fc.assert(
      fc.property(text, text, bad, (before, after, [character, problem]) => {
        expect(textProblem(`${before}${character}${after}`)).toBe(problem);
      }),
    );
  });
});

describe('findUnstorableText', () => {
  it('points at the first bad value, escaping the pointer', () => {
    expect(findUnstorableText({ a: ['ok', { 'x/y': 'bad\u0000' }] }, '/body')).toEqual({
      pointer: '/body/a/1/x~1y',
      message: NUL,
    });
  });
  it('checks property names too', () => {
    expect(findUnstorableText({ ['k\ud800']: 1 }, '/body')).toEqual({
      pointer: '/body/k\ud800',
      message: `property name ${SURROGATE}`,
    });
  });
  it('accepts well-formed documents and non-string scalars', () => {
    expect(findUnstorableText({ n: 1, b: true, z: null, s: ['é'] }, '/body')).toBeUndefined();
  });

  it('escapes ~ before / in the pointer (RFC 6901)', () => {
    expect(findUnstorableText({ 'a~1/b': '\udc00' }, '/body')).toEqual({
      pointer: '/body/a~01~1b',
      message: SURROGATE,
    });
  });

  it('points at / for a bad value at the root of an empty base', () => {
    expect(findUnstorableText('x\u0000', '')).toEqual({ pointer: '/', message: NUL });
  });

  it('reports the first problem in document order', () => {
    expect(findUnstorableText({ a: 'fine', b: ['\ud800', '\u0000'], c: '\u0000' }, '')).toEqual({
      pointer: '/b/0',
      message: SURROGATE,
    });
  });

  it('finds a bad text planted at any path and points exactly at it', () => {
    const key = fc.string({ maxLength: 5 });
    fc.assert(
      fc.property(fc.array(fc.oneof(key, fc.nat({ max: 3 })), { minLength: 1, maxLength: 8 }), (path) => {
        // Build the document inside out: arrays for numeric steps (padded with fine values), objects for keys.
        let document: unknown = 'bad\u0000';
        for (const step of [...path].reverse()) {
          document =
            typeof step === 'number' ? [...Array.from({ length: step }, () => 'fine'), document] : { [step]: document };
        }
        const pointer = path.map((step) => `/${String(step).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
        expect(findUnstorableText(document, '/body')).toEqual({ pointer: `/body${pointer}`, message: NUL });
      }),
    );
  });

  it('finds nothing in any JSON document of well-formed text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (document) => {
        expect(findUnstorableText(document, '/body')).toBeUndefined();
      }),
    );
  });
});
