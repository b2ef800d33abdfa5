import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateAmount, renderText } from '../../src/core/templates.js';

// Amount templates: any `+`/`-` chain of parameters and literals evaluates to the exact sum of
// its terms, at any magnitude, and a parameter's value can never smuggle in an operator.

const term = fc.record({ negative: fc.boolean(), parameter: fc.boolean(), value: fc.bigInt({ min: 0n, max: 1n << 119n }) });

describe('amount templates', () => {
  it('evaluate a +/- chain to the exact sum of its terms', () => {
    fc.assert(fc.property(fc.array(term, { minLength: 1, maxLength: 8 }), fc.boolean(), (terms, spaced) => {
      const parameters: Record<string, string> = {};
      const gap = spaced ? ' ' : '';
      const expression = terms.map((t, i) => {
        const text = t.parameter ? `{{p${i}}}` : t.value.toString();
        if (t.parameter) parameters[`p${i}`] = t.value.toString();
        if (i === 0) return t.negative ? `-${text}` : text;
        return `${gap}${t.negative ? '-' : '+'}${gap}${text}`;
      }).join('');
      const expected = terms.reduce((sum, t) => sum + (t.negative ? -t.value : t.value), 0n);
      expect(evaluateAmount(expression, parameters, 'test')).toBe(expected);
    }));
  });

  it('refuse parameter values that are not integers, whatever they contain', () => {
    fc.assert(fc.property(fc.string().filter((text) => !/^-?[0-9]+$/.test(text)), (value) => {
      expect(() => evaluateAmount('{{a}} + 1', { a: value }, 'test')).toThrow(/integer/);
    }));
  });

  it('render text placeholders with their values verbatim', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (before, value) => {
      const safeBefore = before.replace(/[{}]/g, '');
      expect(renderText(`${safeBefore}{{name}}`, { name: value }, 'test')).toBe(`${safeBefore}${value}`);
    }));
  });
});
