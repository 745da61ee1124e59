/**
 * ArcGIS JSON edits → WKB (through GeoJSON's shapes), run on the geometry threads (see GeometryPool). Sizes are checked from array lengths
 * before any vertex is read, so an oversized geometry is refused at the cost of counting it.
 */
import { jsonParam } from '../../core/http/param-values';
import { GeoJson, GeometryError, geometryWkid } from '../../layers/esri-geometry';
import { GeometryType } from '../../layers/layer-schema';
import { assemblePolygons } from './rings';
import { toWkb } from './wkb';
import { EditsTask, EditsTaskResult, GeometryLimits, ParsedFeature, ParsedGeometry } from './types';

/** The request as a whole is refused with a 400 (a list is not JSON, or over a limit); nothing is written. */
class Refused extends Error {
  constructor(
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

/** Vertices left for the rest of the request. */
interface Allowance {
  vertices: number;
}

function coord(v: unknown, where: string): number[] {
  if (!Array.isArray(v) || v.length < 2 || !Number.isFinite(v[0]) || !Number.isFinite(v[1])) {
    throw new GeometryError(`${where}: each vertex must be [x, y] with finite numbers.`);
  }
  return [v[0], v[1]];
}

function coords(v: unknown, where: string, min: number): number[][] {
  if (!Array.isArray(v) || v.length < min) throw new GeometryError(`${where} needs at least ${min} vertices.`);
  return v.map((c) => coord(c, where));
}

/** Counts a geometry's vertices against the limits before they are read; `parts` are rings or paths. */
function measure(vertices: number, limits: GeometryLimits, allowance: Allowance): void {
  if (vertices > limits.maxVertices)
    throw new GeometryError(`The geometry has more than ${limits.maxVertices} vertices (the server's limit per geometry).`);
  allowance.vertices -= vertices;
  if (allowance.vertices < 0)
    throw new Refused('Unable to complete operation.', [
      `The request has more than ${limits.maxRequestVertices} vertices in all (the server's limit per request).`,
    ]);
}

function measureParts(parts: unknown[], what: 'rings' | 'paths', limits: GeometryLimits, allowance: Allowance): void {
  if (parts.length > limits.maxParts)
    throw new GeometryError(`The geometry has more than ${limits.maxParts} ${what} (the server's limit per geometry).`);
  let n = 0;
  for (const p of parts) n += Array.isArray(p) ? p.length : 0;
  measure(n, limits, allowance);
}

function rings(raw: unknown, limits: GeometryLimits, allowance: Allowance): number[][][][] {
  if (!Array.isArray(raw) || !raw.length) throw new GeometryError("A polygon needs a non-empty 'rings' array.");
  measureParts(raw, 'rings', limits, allowance);
  const closed = raw.map((r, i) => {
    const ring = coords(r, `Ring ${i}`, 3);
    const [f, l] = [ring[0], ring[ring.length - 1]];
    if (f[0] !== l[0] || f[1] !== l[1]) ring.push([f[0], f[1]]);
    if (ring.length < 4) throw new GeometryError(`Ring ${i} needs at least 3 distinct vertices.`);
    return ring;
  });
  return assemblePolygons(closed);
}

/** ArcGIS JSON geometry → GeoJSON shapes (written as WKB); throws GeometryError with a message for the caller. */
export function esriToGeoJson(g: unknown, type: GeometryType, limits: GeometryLimits, allowance: Allowance): GeoJson {
  if (!g || typeof g !== 'object') throw new GeometryError('Geometry must be a JSON object.');
  const o = g as Record<string, unknown>;
  switch (type) {
    case 'esriGeometryPoint':
      measure(1, limits, allowance);
      return { type: 'Point', coordinates: coord([o.x, o.y], 'Point') };
    case 'esriGeometryMultipoint':
      if (!Array.isArray(o.points) || !o.points.length) throw new GeometryError("Multipoint 'points' needs at least 1 vertices.");
      measure(o.points.length, limits, allowance);
      return { type: 'MultiPoint', coordinates: coords(o.points, "Multipoint 'points'", 1) };
    case 'esriGeometryPolyline': {
      if (!Array.isArray(o.paths) || !o.paths.length) throw new GeometryError("A polyline needs a non-empty 'paths' array.");
      measureParts(o.paths, 'paths', limits, allowance);
      return { type: 'MultiLineString', coordinates: o.paths.map((p, i) => coords(p, `Path ${i}`, 2)) };
    }
    case 'esriGeometryPolygon':
      return { type: 'MultiPolygon', coordinates: rings(o.rings, limits, allowance) };
  }
}

function geometry(raw: unknown, type: GeometryType | null, limits: GeometryLimits, allowance: Allowance): ParsedGeometry {
  if (raw === undefined) return { kind: 'absent' };
  if (raw === null) return { kind: 'null' };
  try {
    if (!type) throw new GeometryError('This is a table; features have no geometry.');
    return { kind: 'ok', wkb: toWkb(esriToGeoJson(raw, type, limits, allowance)).toString('base64'), wkid: geometryWkid(raw) };
  } catch (e) {
    if (e instanceof GeometryError) return { kind: 'error', message: e.message };
    throw e;
  }
}

function parseList(name: string, text: string | undefined, maxFeatures: number): unknown[] {
  // Details as this operation has always given them: the syntax error, none for JSON that is not an array.
  const v =
    jsonParam<unknown[]>(name, text, 'array', (p) => new Refused(p.message, p.problem !== 'kind' && p.reason ? [p.reason] : [])) ?? [];
  if (v.length > maxFeatures) throw new Refused(`Too many features in '${name}'.`, [`At most ${maxFeatures} per request.`]);
  return v;
}

/** The geometry thread's task: parse each list, convert every geometry; per-feature problems stay per feature. */
export function convertEdits(task: EditsTask): EditsTaskResult {
  const allowance: Allowance = { vertices: task.limits.maxRequestVertices };
  try {
    const lists = task.lists.map(({ name, text }) =>
      parseList(name, text, task.maxFeatures).map((f): ParsedFeature => {
        const object = typeof f === 'object' && f !== null && !Array.isArray(f);
        const o = (object ? f : {}) as { attributes?: unknown; geometry?: unknown };
        return {
          object,
          attributes: o.attributes,
          geometry: object ? geometry(o.geometry, task.geometryType, task.limits, allowance) : { kind: 'absent' },
        };
      }),
    );
    return { ok: true, lists };
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    return { ok: false, message: e.message, details: e.details };
  }
}
