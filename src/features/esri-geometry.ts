import { GeometryType } from './layer-schema';

/** GeoJSON geometry as PostGIS reads and writes it. */
export type GeoJson =
  | { type: 'Point'; coordinates: number[] }
  | { type: 'MultiPoint' | 'LineString'; coordinates: number[][] }
  | { type: 'MultiLineString' | 'Polygon'; coordinates: number[][][] }
  | { type: 'MultiPolygon'; coordinates: number[][][][] };

export class GeometryError extends Error {}

const MAX_VERTICES = 1_000_000;

function coord(v: unknown, where: string): number[] {
  if (!Array.isArray(v) || v.length < 2 || !Number.isFinite(v[0]) || !Number.isFinite(v[1])) {
    throw new GeometryError(`${where}: each vertex must be [x, y] with finite numbers.`);
  }
  return [v[0], v[1]];
}

function coords(v: unknown, where: string, min: number): number[][] {
  if (!Array.isArray(v) || v.length < min) throw new GeometryError(`${where} needs at least ${min} vertices.`);
  if (v.length > MAX_VERTICES) throw new GeometryError(`${where} has more than ${MAX_VERTICES} vertices.`);
  return v.map((c) => coord(c, where));
}

/** Shoelace sum; positive means clockwise with y up, which is how ArcGIS marks exterior rings. */
export function isClockwise(ring: number[][]): boolean {
  let sum = 0;
  for (let i = 0; i < ring.length - 1; i++) sum += (ring[i + 1][0] - ring[i][0]) * (ring[i + 1][1] + ring[i][1]);
  return sum > 0;
}

function contains(ring: number[][], [x, y]: number[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** ArcGIS rings → polygons: clockwise rings are exteriors, the others holes of the exterior that contains them. */
function ringsToMultiPolygon(rawRings: unknown): number[][][][] {
  if (!Array.isArray(rawRings) || !rawRings.length) throw new GeometryError("A polygon needs a non-empty 'rings' array.");
  const rings = rawRings.map((r, i) => {
    const ring = coords(r, `Ring ${i}`, 3);
    const [f, l] = [ring[0], ring[ring.length - 1]];
    if (f[0] !== l[0] || f[1] !== l[1]) ring.push([f[0], f[1]]);
    if (ring.length < 4) throw new GeometryError(`Ring ${i} needs at least 3 distinct vertices.`);
    return ring;
  });
  const cw = rings.map(isClockwise);
  // Rings written with the other convention (all counter-clockwise) are read as exteriors too.
  const exteriorIsCw = cw.some(Boolean);
  const polygons: number[][][][] = [];
  const holes: number[][][] = [];
  rings.forEach((r, i) => (cw[i] === exteriorIsCw ? polygons.push([r]) : holes.push(r)));
  for (const hole of holes) {
    const owner = polygons.find((p) => contains(p[0], hole[0])) ?? polygons[polygons.length - 1];
    owner.push(hole);
  }
  return polygons;
}

/** ArcGIS JSON geometry → GeoJSON for ST_GeomFromGeoJSON; throws GeometryError with a message for the caller. */
export function esriToGeoJson(g: unknown, type: GeometryType): GeoJson {
  if (!g || typeof g !== 'object') throw new GeometryError('Geometry must be a JSON object.');
  const o = g as Record<string, unknown>;
  switch (type) {
    case 'esriGeometryPoint':
      return { type: 'Point', coordinates: coord([o.x, o.y], 'Point') };
    case 'esriGeometryMultipoint':
      return { type: 'MultiPoint', coordinates: coords(o.points, "Multipoint 'points'", 1) };
    case 'esriGeometryPolyline': {
      if (!Array.isArray(o.paths) || !o.paths.length) throw new GeometryError("A polyline needs a non-empty 'paths' array.");
      return { type: 'MultiLineString', coordinates: o.paths.map((p, i) => coords(p, `Path ${i}`, 2)) };
    }
    case 'esriGeometryPolygon':
      return { type: 'MultiPolygon', coordinates: ringsToMultiPolygon(o.rings) };
  }
}

const orient = (ring: number[][], clockwise: boolean) => (isClockwise(ring) === clockwise ? ring : [...ring].reverse());
/** ArcGIS winding: the exterior clockwise, holes counter-clockwise. */
const esriRings = (polygon: number[][][]) => polygon.map((ring, i) => orient(ring, i === 0));

/**
 * GeoJSON → ArcGIS JSON geometry. PostGIS output forced clockwise (ST_ForcePolygonCW) is already in ArcGIS winding;
 * GeoJSON from elsewhere (RFC 7946 winds the other way) needs `fixWinding`.
 */
export function geoJsonToEsri(g: GeoJson, fixWinding = false): Record<string, unknown> {
  const rings = (polygon: number[][][]) => (fixWinding ? esriRings(polygon) : polygon);
  switch (g.type) {
    case 'Point':
      return { x: g.coordinates[0], y: g.coordinates[1] };
    case 'MultiPoint':
      return { points: g.coordinates };
    case 'LineString':
      return { paths: [g.coordinates] };
    case 'MultiLineString':
      return { paths: g.coordinates };
    case 'Polygon':
      return { rings: rings(g.coordinates) };
    case 'MultiPolygon':
      return { rings: g.coordinates.flatMap(rings) };
  }
}

/** The spatial reference a geometry names for itself, if any. */
export function geometryWkid(g: unknown): number | undefined {
  const sr = (g as { spatialReference?: { wkid?: unknown; latestWkid?: unknown } } | null)?.spatialReference;
  const wkid = sr?.latestWkid ?? sr?.wkid;
  return Number.isInteger(wkid) ? (wkid as number) : undefined;
}
