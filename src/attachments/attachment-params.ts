import { Errors } from '../core/errors/arcgis-error';
import { requiredJsonParam } from '../core/http/param-values';

/** ArcGIS writes GUIDs upper case in braces; any case, with or without them, is read. */
export const formatGuid = (g: string) => `{${g.toUpperCase()}}`;
const GUID = /^\{?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\}?$/i;

export function readGuid(name: string, v: unknown): string {
  const m = typeof v === 'string' ? GUID.exec(v.trim()) : null;
  if (!m) throw Errors.badRequest('Unable to complete operation.', [`'${name}' must be a GUID, e.g. {2E3F3F4A-…}.`]);
  return m[1].toLowerCase();
}

const MAX_ID = 2147483647;

/** An object or attachment id from the URL or a parameter: 1 to 2^31-1. */
export function readId(name: string, v: string | undefined): number {
  const t = (v ?? '').trim();
  const n = /^\d{1,10}$/.test(t) ? Number(t) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_ID)
    throw Errors.badRequest(`Invalid ${name}.`, [`'${t.slice(0, 32)}' is not a valid ${name}.`]);
  return n;
}

/** A comma list or JSON array of ids (attachmentIds, objectIds), at most `max`. */
export function readIdList(name: string, v: string | undefined, max: number): number[] | undefined {
  const t = (v ?? '').trim();
  if (!t) return undefined;
  const parts: unknown[] = t.startsWith('[') ? requiredJsonParam<unknown[]>(name, t, 'array') : t.split(',');
  if (parts.length > max) throw Errors.badRequest(`'${name}' lists more than ${max} ids.`);
  return parts.map((p) => readId(name, String(p)));
}

/** A comma list or JSON array of text values (keywords, attachmentTypes, globalIds), at most `max`. */
export function readTextList(name: string, v: string | undefined, max: number): string[] | undefined {
  const t = (v ?? '').trim();
  if (!t) return undefined;
  const parts: unknown[] = t.startsWith('[') ? requiredJsonParam<unknown[]>(name, t, 'array') : t.split(',');
  if (parts.length > max) throw Errors.badRequest(`'${name}' lists more than ${max} values.`);
  return parts.map((p) => {
    if (typeof p !== 'string' && typeof p !== 'number') throw Errors.badRequest(`'${name}' must list text values.`);
    return String(p).trim().slice(0, 256);
  });
}

/** queryAttachments' `size`: "min,max" in bytes (either may be empty). */
export function readSizeRange(v: string | undefined): { min?: number; max?: number } {
  const t = (v ?? '').trim();
  if (!t) return {};
  const parts = (t.startsWith('[') ? requiredJsonParam<unknown[]>('size', t, 'array') : t.split(',')).map((p) => String(p).trim());
  const bad = () => Errors.badRequest("'size' must be a range of bytes 'min,max'.");
  if (parts.length !== 2) throw bad();
  const [min, max] = parts.map((p) => (p === '' ? undefined : /^\d{1,15}$/.test(p) ? Number(p) : NaN));
  if (Number.isNaN(min) || Number.isNaN(max) || (min !== undefined && max !== undefined && min > max)) throw bad();
  return { min, max };
}

/** The name an attachment is listed and downloaded by: one line of at most 256 characters. */
export function attachmentName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.replace(/[\p{Cc}\\/]/gu, '_').trim() : '';
  if (!name) throw Errors.badRequest('Unable to complete operation.', ['An attachment needs a file name.']);
  return name.slice(-256);
}

export function readKeywords(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw Errors.badRequest("'keywords' must be text.");
  if (v.length > 1024) throw Errors.badRequest("'keywords' must be at most 1024 characters.");
  return v.trim();
}
