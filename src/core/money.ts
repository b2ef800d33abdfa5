// Amounts travel as integer strings and live as bigint; a JS number never holds money.

export const INT96_MAX = (1n << 120n) - 1n;
export const INT96_MIN = -INT96_MAX;

const INTEGER_STRING = /^-?(0|[1-9][0-9]*)$/;

/** Parses an integer string within the Int96 range, or returns undefined. */
export function parseAmount(text: string): bigint | undefined {
  if (!INTEGER_STRING.test(text) || text === '-0') return undefined;
  const value = BigInt(text);
  return value < INT96_MIN || value > INT96_MAX ? undefined : value;
}

export function formatAmount(value: bigint): string {
  return value.toString();
}
