import { Errors } from '../errors/arcgis-error';

/**
 * Values that arrive as text in ArcGIS parameters: JSON objects, booleans and integers. Every route reads them here, so
 * "true" or a JSON object means the same everywhere; each caller may pass `onInvalid` to keep the envelope its
 * operation has always answered with (query's "Cannot perform query...", addItem's "is not a valid JSON object").
 */

/**
 * Which rule a parameter broke, for an `onInvalid` whose operation words them apart (query's geometry answers
 * "neither ... nor an envelope JSON object" to text that is not JSON, and another sentence to JSON of the wrong kind).
 */
export type ParamProblem = 'missing' | 'syntax' | 'kind' | 'range' | 'nul';

/** What is wrong with a parameter, for `onInvalid` to turn into the caller's error. */
export interface InvalidParam {
  /** The parameter's name. */
  name: string;
  /**
   * missing: a required parameter is blank; syntax: the text is no value of its type (not JSON, not true or false,
   * not a whole number); kind: JSON, but not the object or array asked for; range: a whole number out of bounds;
   * nul: JSON holding U+0000.
   */
  problem: ParamProblem;
  /** A sentence naming the parameter and what it must be: the default envelope's message. */
  message: string;
  /** Why, in a few words (the JSON syntax error, "expected a JSON object"), when there is more to say than `message`. */
  reason?: string;
}

export type OnInvalid = (problem: InvalidParam) => Error;

const badRequest: OnInvalid = (p) => Errors.badRequest(p.message, p.reason ? [p.reason] : []);

/** Missing or blank: every reader, the DTO transforms too, takes it as not given, so the parameter's default applies. */
export const absent = (raw: string | undefined): raw is undefined => raw === undefined || raw.trim() === '';

// --- the readers: text to value, or undefined when the text is not one ---

/** "true" or "false" in any case, spaces around allowed. */
export function readBool(raw: string): boolean | undefined {
  const v = raw.trim().toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : undefined;
}

/** A whole number in decimal digits, optionally negative, spaces around allowed ("1e3", "1.0" and "0x10" are not). */
export function readInt(raw: string): number | undefined {
  const v = raw.trim();
  return /^-?\d+$/.test(v) ? Number(v) : undefined;
}

// --- the parameters: absent (missing or blank) gives the default, anything unreadable gives onInvalid's error ---

export function boolParam(name: string, raw: string | undefined, dflt: boolean, onInvalid: OnInvalid = badRequest): boolean {
  if (absent(raw)) return dflt;
  const v = readBool(raw);
  if (v === undefined) throw onInvalid({ name, problem: 'syntax', message: `'${name}' must be true or false.` });
  return v;
}

/** A whole number from `min` to `max` (by default any integer a double holds exactly). */
export function intParam(
  name: string,
  raw: string | undefined,
  { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER }: { min?: number; max?: number } = {},
  onInvalid: OnInvalid = badRequest,
): number | undefined {
  if (absent(raw)) return undefined;
  const v = readInt(raw);
  if (v === undefined || v < min || v > max)
    throw onInvalid({
      name,
      problem: v === undefined ? 'syntax' : 'range',
      message: `'${name}' must be a whole number from ${min} to ${max}.`,
    });
  return v;
}

export type JsonKind = 'object' | 'array' | 'any';

/** A JSON-text parameter of the given kind; undefined when it is missing or blank. */
export function jsonParam<T = unknown>(
  name: string,
  raw: string | undefined,
  kind: JsonKind = 'object',
  onInvalid: OnInvalid = badRequest,
): T | undefined {
  return absent(raw) ? undefined : parseJson<T>(name, raw, kind, onInvalid);
}

/** Like jsonParam, for parameters that must be present. */
export function requiredJsonParam<T = unknown>(
  name: string,
  raw: string | undefined,
  kind: JsonKind = 'object',
  onInvalid: OnInvalid = badRequest,
): T {
  if (absent(raw)) throw onInvalid({ name, problem: 'missing', message: `'${name}' is required.` });
  return parseJson<T>(name, raw, kind, onInvalid);
}

function parseJson<T>(name: string, raw: string, kind: JsonKind, onInvalid: OnInvalid): T {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw onInvalid({ name, problem: 'syntax', message: `'${name}' is not valid JSON.`, reason: (e as Error).message });
  }
  if (kind === 'object' && (v === null || typeof v !== 'object' || Array.isArray(v)))
    throw onInvalid({ name, problem: 'kind', message: `'${name}' must be a JSON object.`, reason: 'expected a JSON object' });
  if (kind === 'array' && !Array.isArray(v))
    throw onInvalid({ name, problem: 'kind', message: `'${name}' must be a JSON array.`, reason: 'expected a JSON array' });
  // PostgreSQL stores no NUL character in text or jsonb, so a value holding one would fail (or, as a name, never match)
  // wherever it went; refused here with a message that says so. Only the escape can put one in: JSON forbids it raw.
  if (raw.includes('\\u0000') && holdsNul(v))
    throw onInvalid({
      name,
      problem: 'nul',
      message: `'${name}' holds the character U+0000, which cannot be stored.`,
      reason: '\\u0000 is not allowed',
    });
  return v as T;
}

/** Any key or string in the value holding U+0000; a loop, not recursion, as parsed JSON can nest deeper than the stack. */
function holdsNul(value: unknown): boolean {
  const todo: unknown[] = [value];
  while (todo.length) {
    const v = todo.pop();
    if (typeof v === 'string') {
      if (v.includes('\0')) return true;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\0')) return true;
        todo.push(child);
      }
    }
  }
  return false;
}
