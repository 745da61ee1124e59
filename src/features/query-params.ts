import { Errors } from '../core/errors/arcgis-error';
import * as param from '../core/http/param-values';
import { normaliseWkid } from './layer-schema';

/** Query-parameter parsing shared by query and edits; every failure is the query error ArcGIS gives. */
export function invalidQuery(detail: string) {
  return Errors.badRequest('Cannot perform query. Invalid query parameters.', [detail]);
}

// The shared readers, failing with the query error: the reason goes in its details.
const asQueryError: param.OnInvalid = (p) => invalidQuery(p.message);

export function boolParam(name: string, v: string | undefined, dflt: boolean): boolean {
  return param.boolParam(name, v, dflt, asQueryError);
}

export function intParam(name: string, v: string | undefined, min: number, max: number): number | undefined {
  return param.intParam(name, v, { min, max }, asQueryError);
}

/** Comma list or JSON array of object ids. */
export function idList(name: string, v: string | undefined, max = 100_000): number[] | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const t = v.trim();
  const parts = t.startsWith('[') ? safeJsonArray(name, t) : t.split(',').map((s) => s.trim());
  if (parts.length > max) throw invalidQuery(`'${name}' lists more than ${max} ids.`);
  return parts.map((s) => {
    const n = typeof s === 'number' ? s : /^\d{1,10}$/.test(String(s)) ? Number(s) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > 2147483647)
      throw invalidQuery(`'${name}' holds '${String(s).slice(0, 32)}', which is not an object id.`);
    return n;
  });
}

function safeJsonArray(name: string, t: string): unknown[] {
  try {
    const v = JSON.parse(t);
    if (Array.isArray(v)) return v;
  } catch {
    // reported below
  }
  throw invalidQuery(`'${name}' is not a list of object ids.`);
}

/** Like srParam, keeping the wkid the caller gave next to the srid PostGIS uses (102100 is answered as 102100). */
export function srRequest(name: string, v: string | undefined): { srid: number; wkid: number } | undefined {
  const srid = srParam(name, v);
  if (srid === undefined) return undefined;
  const t = v!.trim();
  const given = /^\d{1,9}$/.test(t) ? Number(t) : (JSON.parse(t) as { wkid?: unknown }).wkid;
  return { srid, wkid: Number.isInteger(given) ? (given as number) : srid };
}

/** A spatial reference as a wkid (`4326`), `{"wkid":..}` or `{"latestWkid":..}`; returns the PostGIS srid. */
export function srParam(name: string, v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const t = v.trim();
  if (/^\d{1,9}$/.test(t)) return normaliseWkid(Number(t));
  try {
    const o = JSON.parse(t) as { wkid?: unknown; latestWkid?: unknown; wkt?: unknown };
    const wkid = o?.latestWkid ?? o?.wkid;
    if (Number.isInteger(wkid) && (wkid as number) > 0) return normaliseWkid(wkid as number);
    if (o?.wkt !== undefined) throw invalidQuery(`'${name}' as WKT is not supported; give a wkid.`);
  } catch (e) {
    if ((e as { code?: number }).code === 400) throw e;
  }
  throw invalidQuery(`'${name}' must be a wkid or {"wkid": n}.`);
}
