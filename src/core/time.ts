// UTC offsets are kept as exact minutes; "+05:45" is 345, never a fractional hour.

const UTC_OFFSET = /^([+-])(\d{2}):(\d{2})$/;
export const MIN_OFFSET_MINUTES = -12 * 60;
export const MAX_OFFSET_MINUTES = 14 * 60;

export function parseUtcOffset(text: string): number | undefined {
  const match = UTC_OFFSET.exec(text);
  if (!match) return undefined;
  const [, sign, hours, minutes] = match;
  if (Number(minutes) > 59) return undefined;
  const total = (Number(hours) * 60 + Number(minutes)) * (sign === '-' ? -1 : 1);
  if (total < MIN_OFFSET_MINUTES || total > MAX_OFFSET_MINUTES) return undefined;
  return total;
}

export function formatUtcOffset(totalMinutes: number): string {
  const sign = totalMinutes < 0 ? '-' : '+';
  const magnitude = Math.abs(totalMinutes);
  const hours = String(Math.floor(magnitude / 60)).padStart(2, '0');
  const minutes = String(magnitude % 60).padStart(2, '0');
  return `${sign}${hours}:${minutes}`;
}

/** ISO 8601 with milliseconds and Z, the one timestamp form both APIs emit. */
export function toIsoTimestamp(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
