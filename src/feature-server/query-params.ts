import { Errors } from '../core/errors/arcgis-error';
import * as param from '../core/http/param-values';
import { QuerySpec } from './query/query-spec';
import { QueryDto } from './feature-server.dto';
import { normaliseWkid } from '../layers/layer-schema';

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
  const parts = t.startsWith('[')
    ? param.requiredJsonParam<unknown[]>(name, t, 'array', () => invalidQuery(`'${name}' is not a list of object ids.`))
    : t.split(',').map((s) => s.trim());
  if (parts.length > max) throw invalidQuery(`'${name}' lists more than ${max} ids.`);
  return parts.map((s) => {
    const n = typeof s === 'number' ? s : /^\d{1,10}$/.test(String(s)) ? Number(s) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > 2147483647)
      throw invalidQuery(`'${name}' holds '${String(s).slice(0, 32)}', which is not an object id.`);
    return n;
  });
}

/** Comma list or JSON array of GlobalIDs (braces and case as the caller likes), in lower case without braces. */
export function globalIdList(name: string, v: string | undefined, max = 100_000): string[] | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const t = v.trim();
  const parts = t.startsWith('[')
    ? param.requiredJsonParam<unknown[]>(name, t, 'array', () => invalidQuery(`'${name}' is not a list of global ids.`))
    : t.split(',');
  if (parts.length > max) throw invalidQuery(`'${name}' lists more than ${max} ids.`);
  return parts.map((s) => {
    const m = /^\{?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\}?$/i.exec(String(s).trim());
    if (!m) throw invalidQuery(`'${name}' holds '${String(s).slice(0, 40)}', which is not a global id.`);
    return m[1].toLowerCase();
  });
}

/** Like srParam, keeping the wkid the caller gave next to the srid PostGIS uses (102100 is answered as 102100). */
export function srRequest(name: string, v: string | undefined): { srid: number; wkid: number } | undefined {
  const srid = srParam(name, v);
  if (srid === undefined) return undefined;
  const t = v!.trim();
  const given = WKID.test(t) ? Number(t) : spatialReference(name, t)?.wkid;
  return { srid, wkid: Number.isInteger(given) ? (given as number) : srid };
}

const WKID = /^\d{1,9}$/;

type SpatialReferenceJson = { wkid?: unknown; latestWkid?: unknown; wkt?: unknown };

/** The JSON form of a spatial reference; undefined when the JSON is not an object (the caller says what it wanted). */
function spatialReference(name: string, t: string): SpatialReferenceJson | undefined {
  const o = param.requiredJsonParam<unknown>(name, t, 'any', () => invalidQuery(`'${name}' must be a wkid or {"wkid": n}.`));
  return o !== null && typeof o === 'object' ? (o as SpatialReferenceJson) : undefined;
}

/** A spatial reference as a wkid (`4326`), `{"wkid":..}` or `{"latestWkid":..}`; returns the PostGIS srid. */
export function srParam(name: string, v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const t = v.trim();
  if (WKID.test(t)) return normaliseWkid(Number(t));
  const o = spatialReference(name, t);
  const wkid = o?.latestWkid ?? o?.wkid;
  if (Number.isInteger(wkid) && (wkid as number) > 0) return normaliseWkid(wkid as number);
  if (o?.wkt !== undefined) throw invalidQuery(`'${name}' as WKT is not supported; give a wkid.`);
  throw invalidQuery(`'${name}' must be a wkid or {"wkid": n}.`);
}

type EnvelopeJson = { xmin?: unknown; ymin?: unknown; xmax?: unknown; ymax?: unknown; spatialReference?: unknown };

/** The query's spatial filter: an envelope as 'xmin,ymin,xmax,ymax' or JSON, in inSR, its own reference or the layer's. */
export function envelopeParam(
  p: Pick<QueryDto, 'geometry' | 'geometryType' | 'spatialRel' | 'inSR'>,
  layerSrid: number,
): QuerySpec['envelope'] {
  if (p.geometry === undefined || p.geometry.trim() === '') return undefined;
  const type = p.geometryType ?? 'esriGeometryEnvelope';
  if (type !== 'esriGeometryEnvelope') throw invalidQuery("Only 'geometryType=esriGeometryEnvelope' is supported for spatial filters.");
  if (p.spatialRel && p.spatialRel !== 'esriSpatialRelIntersects' && p.spatialRel !== 'esriSpatialRelEnvelopeIntersects') {
    throw invalidQuery("Only 'spatialRel=esriSpatialRelIntersects' is supported.");
  }
  const t = p.geometry.trim();
  let e: EnvelopeJson;
  if (/^[-\d.eE+]+(,[-\d.eE+]+){3}$/.test(t)) {
    const [xmin, ymin, xmax, ymax] = t.split(',').map(Number);
    e = { xmin, ymin, xmax, ymax };
  } else {
    e = param.requiredJsonParam<EnvelopeJson>('geometry', t, 'object', (problem) =>
      invalidQuery(
        problem.problem === 'syntax'
          ? "'geometry' is neither 'xmin,ymin,xmax,ymax' nor an envelope JSON object."
          : problem.problem === 'kind'
            ? "'geometry' must be an envelope object or 'xmin,ymin,xmax,ymax'."
            : problem.message,
      ),
    );
  }
  const nums = [e.xmin, e.ymin, e.xmax, e.ymax];
  if (!nums.every((n) => typeof n === 'number' && Number.isFinite(n)))
    throw invalidQuery("'geometry' envelope needs finite xmin, ymin, xmax, ymax.");
  const srid =
    srParam('inSR', p.inSR) ??
    (e.spatialReference ? srParam('geometry.spatialReference', JSON.stringify(e.spatialReference)) : undefined) ??
    layerSrid;
  const [xmin, ymin, xmax, ymax] = nums as number[];
  return { xmin, ymin, xmax, ymax, srid };
}
