/**
 * Validation and canonical forms of literal values. Everything that later reaches SQL as a value (bound or
 * inlined) has passed one of these, so the inline renderer can rely on strict shapes.
 */

const INT4_MIN = -2147483648n;
const INT4_MAX = 2147483647n;
const INT8_MIN = -9223372036854775808n;
const INT8_MAX = 9223372036854775807n;

/** Plain decimal number, optional sign and exponent; deliberately no whitespace, hex, Infinity or NaN. */
const NUMBER_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export interface CanonicalNumber {
  text: string;
  numType: 'int' | 'float';
}

/**
 * Integers that fit in bigint stay exact integers; anything else is a double. Returns undefined when the text is
 * not a number or the value overflows a double (the caller reports which).
 */
export function canonicalNumber(src: string): CanonicalNumber | undefined {
  if (!NUMBER_RE.test(src)) return undefined;
  if (!/[.eE]/.test(src)) {
    const v = BigInt(src);
    if (v >= INT8_MIN && v <= INT8_MAX) return { text: v.toString(), numType: 'int' };
  }
  const n = Number(src);
  return Number.isFinite(n) ? { text: floatText(n), numType: 'float' } : undefined;
}

/** Shortest round-trip text of a double, always with '.' or an exponent so it reads back as a double. */
export function floatText(n: number): string {
  const s = String(n);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

export function isNumberText(src: string): boolean {
  return NUMBER_RE.test(src);
}

/** Postgres type for an integer literal: integer when it fits, so comparisons with integer columns keep using indexes. */
export function intSqlType(text: string): 'integer' | 'bigint' {
  const v = BigInt(text);
  return v >= INT4_MIN && v <= INT4_MAX ? 'integer' : 'bigint';
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?$/;

function validDate(y: number, m: number, d: number): boolean {
  // Year 0 does not exist in Postgres ('0000-01-01'::date fails), and 5-digit years are not in the formats.
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return d <= days;
}

/** 'yyyy-mm-dd' → date, 'yyyy-mm-dd hh:mm:ss[.ffffff]' → timestamp; undefined when not a real date/time. */
export function parseTemporal(s: string): { kind: 'date' | 'timestamp'; value: string } | undefined {
  let m = DATE_RE.exec(s);
  if (m) return validDate(+m[1], +m[2], +m[3]) ? { kind: 'date', value: s } : undefined;
  m = TIMESTAMP_RE.exec(s);
  if (!m || !validDate(+m[1], +m[2], +m[3])) return undefined;
  if (+m[4] > 23 || +m[5] > 59 || +m[6] > 59) return undefined;
  return { kind: 'timestamp', value: s };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GlobalIDs are often written '{ABCD...}'; returns the lower-case bare form Postgres prints, or undefined. */
export function canonicalUuid(s: string): string | undefined {
  const bare = s.startsWith('{') && s.endsWith('}') ? s.slice(1, -1) : s;
  return UUID_RE.test(bare) ? bare.toLowerCase() : undefined;
}

export function isCanonicalUuid(s: string): boolean {
  return UUID_RE.test(s) && s === s.toLowerCase();
}

export function isDateText(s: string): boolean {
  return parseTemporal(s)?.kind === 'date';
}

export function isTimestampText(s: string): boolean {
  return parseTemporal(s)?.kind === 'timestamp';
}

/** Seconds per INTERVAL unit; intervals are rendered as exact seconds so timestamptz arithmetic ignores time zones. */
export const UNIT_SECONDS = { DAY: 86400, HOUR: 3600, MINUTE: 60, SECOND: 1 } as const;

/** About 3,000 years: keeps `ts ± interval` clear of Postgres' interval range for any literal. */
export const MAX_INTERVAL_SECONDS = 1e11;
