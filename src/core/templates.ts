import { DomainError } from './errors.js';

// `{{name}}` placeholders in schema text (paths, amounts, currencies, descriptions, tags, groups,
// condition bounds) and the only arithmetic schemas allow in amounts: `+` and `-` between terms.
// Values are substituted after parsing, so a parameter can never inject an operator.

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const ANY_BRACES = /\{\{|\}\}/;
const INTEGER = /^-?[0-9]+$/;

export type Parameters = Readonly<Record<string, string>>;

/** The parameter names a text refers to, in order of first use. */
export function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]))];
}

/** Throws when the text has braces that are not a well-formed placeholder. */
export function checkTemplate(text: string, where: string): void {
  if (ANY_BRACES.test(text.replace(PLACEHOLDER, ''))) {
    throw new DomainError(
      'invalid_input_provided',
      `${where}: '${text}' has a malformed placeholder; write {{name}} with letters, digits and _.`,
    );
  }
}

/** The parameter's own value: `{{constructor}}` must not find what every object inherits. */
function ownParameter(parameters: Parameters, name: string): string | undefined {
  return Object.hasOwn(parameters, name) ? parameters[name] : undefined;
}

/** The text with every placeholder replaced; a missing parameter is an error naming it. */
export function renderText(text: string, parameters: Parameters, where: string): string {
  return text.replace(PLACEHOLDER, (_match, name: string) => {
    const value = ownParameter(parameters, name);
    if (value === undefined) throw missingParameter(name, where);
    return value;
  });
}

type Term = { sign: 1n | -1n; parameter?: string; literal?: bigint };

/** Parses `[-]term ((+|-) term)*` where a term is `{{name}}` or an integer literal. */
export function parseAmountExpression(expression: string, where: string): Term[] {
  const tokens = expression.match(/\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}|[0-9]+|[+-]|\S/g) ?? [];
  const terms: Term[] = [];
  let sign: 1n | -1n = 1n;
  let expectTerm = true;
  for (const token of tokens) {
    if (expectTerm && (token === '-' || token === '+')) {
      if (terms.length > 0 || sign === -1n || token === '+') throw malformedAmount(expression, where);
      sign = -1n;
    } else if (expectTerm && token.startsWith('{{')) {
      terms.push({ sign, parameter: placeholders(token)[0] });
      expectTerm = false;
    } else if (expectTerm && /^[0-9]+$/.test(token)) {
      terms.push({ sign, literal: BigInt(token) });
      expectTerm = false;
    } else if (!expectTerm && (token === '+' || token === '-')) {
      sign = token === '-' ? -1n : 1n;
      expectTerm = true;
    } else {
      throw malformedAmount(expression, where);
    }
  }
  if (expectTerm) throw malformedAmount(expression, where);
  return terms;
}

/** The value of an amount expression; every parameter it uses must be an integer string. */
export function evaluateAmount(expression: string, parameters: Parameters, where: string): bigint {
  let total = 0n;
  for (const term of parseAmountExpression(expression, where)) {
    if (term.literal !== undefined) {
      total += term.sign * term.literal;
      continue;
    }
    const value = ownParameter(parameters, term.parameter!);
    if (value === undefined) throw missingParameter(term.parameter!, where);
    if (!INTEGER.test(value)) {
      throw new DomainError(
        'entry_parameters_invalid',
        `Parameter ${term.parameter} is used as an amount in ${where} and must be an integer string, not '${value}'.`,
        { parameter: term.parameter },
      );
    }
    total += term.sign * BigInt(value);
  }
  return total;
}

function missingParameter(name: string, where: string): DomainError {
  return new DomainError('entry_parameters_invalid', `Parameter ${name} is required by ${where} but was not given.`, {
    parameter: name,
  });
}

function malformedAmount(expression: string, where: string): DomainError {
  return new DomainError(
    'invalid_input_provided',
    `${where}: '${expression}' is not an amount; use integers and {{parameters}} joined by + and -.`,
  );
}
