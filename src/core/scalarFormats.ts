import { parseSpan } from './calendar.js';
import { parseAmount } from './money.js';
import { parseUtcOffset } from './time.js';

// The textual formats of the ledger API's custom scalars. Each check returns the canonical form,
// or undefined when the text is not of that form.

const SAFE_STRING_FORBIDDEN = /[/#:]|\{\{|\}\}/;
export const SAFE_STRING_MAX_LENGTH = 128;
const INT64_MAX = (1n << 63n) - 1n;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export const scalarFormats = {
  SafeString(text: string) {
    return text.length > 0 && text.length <= SAFE_STRING_MAX_LENGTH && !SAFE_STRING_FORBIDDEN.test(text)
      ? text
      : undefined;
  },
  ParameterizedString(text: string) {
    return text.length > 0 ? text : undefined;
  },
  AlphaNumericString(text: string) {
    return /^[A-Za-z0-9]+$/.test(text) ? text : undefined;
  },
  Int96(text: string) {
    const value = parseAmount(text);
    return value === undefined ? undefined : value.toString();
  },
  Int64(text: string) {
    const value = parseAmount(text);
    return value === undefined || value > INT64_MAX || value < -INT64_MAX - 1n ? undefined : value.toString();
  },
  UTCOffset(text: string) {
    return parseUtcOffset(text) === undefined ? undefined : text;
  },
  Date(text: string) {
    return isCalendarDate(text) ? text : undefined;
  },
  /** A date-time, or a bare date meaning midnight UTC; canonical form is ISO 8601 in UTC with ms. */
  DateTime(text: string) {
    if (isCalendarDate(text)) return `${text}T00:00:00.000Z`;
    if (!DATE_TIME.test(text) || !isCalendarDate(text.slice(0, 10))) return undefined;
    const instant = new Date(text);
    // An offset can carry 9999-12-31 past year 9999 in UTC, a form this scalar itself refuses.
    if (Number.isNaN(instant.getTime()) || instant.getUTCFullYear() > 9999 || instant.getUTCFullYear() < 0)
      return undefined;
    return instant.toISOString();
  },
  /** Year, quarter, month, day or hour of years 1970 to 9999: 2026, 2026-Q1, 2026-02, 2026-02-03, 2026-02-03T04. */
  Period(text: string) {
    return parseSpan(text, true) ? text : undefined;
  },
  PeriodFilter(text: string) {
    const unit = parseSpan(text, false)?.unit;
    return unit === 'year' || unit === 'month' ? text : undefined;
  },
  FirstMoment(text: string) {
    return parseSpan(text, false) ? text : undefined;
  },
  LastMoment(text: string) {
    return parseSpan(text, false) ? text : undefined;
  },
} satisfies Record<string, (text: string) => string | undefined>;

export type StringScalar = keyof typeof scalarFormats;

function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // Date.UTC would read years 0-99 as 1900-1999
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
