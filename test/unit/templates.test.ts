import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateAmount, parseAmountExpression, renderText } from '../../src/core/templates.js';
import { refusalOf } from '../support/domainErrors.js';

// Amount templates: any `+`/`-` chain of parameters and literals evaluates to the exact sum of
// its terms, at any magnitude, and a parameter's value can never smuggle in an operator.

const term = fc.record({
  negative: fc.boolean(),
  parameter: fc.boolean(),
  value: fc.bigInt({ min: 0n, max: 1n << 119n }),
});

describe('amount templates', () => {
  it('evaluate a +/- chain to the exact sum of its terms', () => {
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 8 }), fc.boolean(), (terms, spaced) => {
        const parameters: Record<string, string> = {};
        const gap = spaced ? ' ' : '';
        const expression = terms
          .map((t, i) => {
            const text = t.parameter ? `{{p${i}}}` : t.value.toString();
            if (t.parameter) parameters[`p${i}`] = t.value.toString();
            if (i === 0) return t.negative ? `-${text}` : text;
            return `${gap}${t.negative ? '-' : '+'}${gap}${text}`;
          })
          .join('');
        const expected = terms.reduce((sum, t) => sum + (t.negative ? -t.value : t.value), 0n);
        expect(evaluateAmount(expression, parameters, 'test')).toBe(expected);
      }),
    );
  });

  it('refuse parameter values that are not integers, whatever they contain', () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => !/^-?[0-9]+$/.test(text)),
        (value) => {
          expect(refusalOf(() => evaluateAmount('{{a}} + 1', { a: value }, 'test'))).toEqual({
            code: 'entry_parameters_invalid',
            message: `Parameter a is used as an amount in test and must be an integer string, not '${value}'.`,
            details: { parameter: 'a' },
          });
        },
      ),
    );
  });

  it('render text placeholders with their values verbatim', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (before, value) => {
        const safeBefore = before.replace(/[{}]/g, '');
        expect(renderText(`${safeBefore}{{name}}`, { name: value }, 'test')).toBe(`${safeBefore}${value}`);
      }),
    );
  });
});

describe('parseAmountExpression', () => {
  it('reads a signed first term, then terms joined by + and -, spaces or none', () => {
    expect(parseAmountExpression('-{{ fee }} + 5-{{tax}}', 'test')).toEqual([
      { sign: -1n, parameter: 'fee' },
      { sign: 1n, literal: 5n },
      { sign: -1n, parameter: 'tax' },
    ]);
  });

  it('keeps every digit of a literal beyond 2^53', () => {
    expect(parseAmountExpression('1329227995784915872903807060280344575', 'test')).toEqual([
      { sign: 1n, literal: 1329227995784915872903807060280344575n },
    ]);
  });

  const malformed = ['', '+1', '--1', '1 +', '1 2', '{{a}}{{b}}', '1 * 2', '(1)', '1.5', '{{a b}}', '- -{{a}}'];
  it.each(malformed)('refuses %j as no amount', (expression) => {
    expect(refusalOf(() => parseAmountExpression(expression, 'lines[0].amount'))).toEqual({
      code: 'invalid_input_provided',
      message: `lines[0].amount: '${expression}' is not an amount; use integers and {{parameters}} joined by + and -.`,
      details: undefined,
    });
  });

  it('names a parameter an amount needs but was not given', () => {
    expect(refusalOf(() => evaluateAmount('{{a}} + {{b}}', { a: '1' }, 'lines[1].amount'))).toEqual({
      code: 'entry_parameters_invalid',
      message: 'Parameter b is required by lines[1].amount but was not given.',
      details: { parameter: 'b' },
    });
  });
});
