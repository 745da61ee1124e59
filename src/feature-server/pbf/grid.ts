/**
 * Geometry on the integer grid of a quantization transform, shared by f=pbf and quantized f=json replies so both
 * write the same integers. PostgreSQL maps the reply's geometry onto the grid and snaps it there, which is ArcGIS's
 * "view" generalization (a vertex on the same grid point as the one before is dropped; a part left with too few
 * vertices is dropped, a feature with no part left has no geometry); what comes back is GeoJSON with whole numbers,
 * turned here into parts whose first vertex is as it is and the rest differences from the vertex before, which is
 * how ArcGIS clients read quantized coordinates in both formats (they start every part from zero).
 */
import { SqlParams } from '../../core/database/sql-params';
import { GeometryType } from '../../layers/layer-schema';

/** How a client turns the integer coordinates back into the reply's spatial reference. */
export interface PbfTransform {
  originPosition: 'upperLeft' | 'lowerLeft';
  scale: number;
  xTranslate: number;
  yTranslate: number;
}

/** `g` (in the transform's spatial reference) on the grid: a geometry whose coordinates are whole numbers. */
export function gridSnapped(g: string, t: PbfTransform, p: SqlParams): string {
  const s = `${p.add(t.scale)}::float8`;
  const tx = `${p.add(t.xTranslate)}::float8`;
  const ty = `${p.add(t.yTranslate)}::float8`;
  // Rows down from the top edge when the origin is the upper left, up from the bottom edge otherwise.
  const flip = t.originPosition === 'upperLeft';
  const grid = `ST_Affine(${g}, 1 / ${s}, 0, 0, ${flip ? '-1' : '1'} / ${s}, -${tx} / ${s}, ${flip ? '' : '-'}${ty} / ${s})`;
  return `ST_SnapToGrid(${grid}, 1)`;
}

/**
 * A point (`x`, `y` in the transform's spatial reference) on the grid as gridSnapped puts it, for f=pbf pages of
 * points, which PostgreSQL hands over unmoved because moving and snapping each there cost more than the arithmetic
 * here: the same operations in the same order as PostGIS's ST_Affine (a·x + b·y + xoff, with the coefficients the SQL
 * computes) and ST_SnapToGrid (rint), so every double comes out the same. `out` receives the column and the row.
 */
export function pointOnGrid(t: PbfTransform): (x: number, y: number, out: Float64Array) => void {
  const flip = t.originPosition === 'upperLeft';
  const a = 1 / t.scale;
  const e = (flip ? -1 : 1) / t.scale;
  const xoff = -t.xTranslate / t.scale;
  const yoff = flip ? t.yTranslate / t.scale : -t.yTranslate / t.scale;
  return (x, y, out) => {
    out[0] = rint(a * x + 0 * y + xoff);
    out[1] = rint(0 * x + e * y + yoff);
  };
}

/** C's rint, which ST_SnapToGrid rounds with: halves to the even neighbour, where Math.round takes them up. */
export function rint(v: number): number {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** GeoJSON text of `g` on the grid (gridSnapped), or NULL when nothing is left of it. */
export function gridGeoJson(g: string, t: PbfTransform, p: SqlParams): string {
  return `ST_AsGeoJSON(${gridSnapped(g, t, p)}, 0)`;
}

export type Xy = [number, number];

/** One part with every vertex after the first as the difference from the one before. */
function deltas(part: Xy[]): Xy[] {
  const out: Xy[] = [];
  let [px, py] = part[0] ?? [0, 0];
  for (const [i, [x, y]] of part.entries()) {
    out.push(i ? [x - px, y - py] : [x, y]);
    px = x;
    py = y;
  }
  return out;
}

/**
 * The vertex of a point's grid GeoJSON, `{"type":"Point","coordinates":[x,y]}`, or undefined when it is empty (`[]`)
 * or off the grid (gridCoordinates).
 * Read by position rather than JSON.parse, which a page of points would call thousands of times; PostGIS writes the
 * coordinates as JSON numbers, which Number reads as JSON.parse does. A third ordinate, if any, is left out.
 */
export function gridPoint(geojson: string): Xy | undefined {
  const open = geojson.indexOf('[');
  const comma = open < 0 ? -1 : geojson.indexOf(',', open);
  if (comma < 0) return undefined;
  const close = geojson.indexOf(']', comma);
  const next = geojson.indexOf(',', comma + 1);
  const end = next >= 0 && next < close ? next : close;
  const x = Number(geojson.slice(open + 1, comma));
  const y = Number(geojson.slice(comma + 1, end));
  return Number.isFinite(x) && Number.isFinite(y) ? [x, y] : undefined;
}

/**
 * The coordinates of grid GeoJSON text, or undefined when a vertex fell off the grid: a tolerance far finer than the
 * data (the caller's quantizationParameters) or coordinates far outside their spatial reference put it past the
 * largest double, which PostGIS writes as Infinity (or NaN), and JSON has no such number. Such a feature is drawn
 * without geometry rather than with a vertex moved, and the page is not lost to a parse error.
 */
function gridCoordinates(geojson: string): unknown {
  try {
    return (JSON.parse(geojson) as { coordinates: unknown }).coordinates;
  } catch (e) {
    if (/Infinity|NaN/.test(geojson)) return undefined;
    throw e;
  }
}

/** Grid GeoJSON as PostgreSQL's text, or already parsed (f=pbf pages arrive as one JSON document). */
export type GridGeoJson = string | { coordinates: unknown };

/**
 * The grid GeoJSON of one feature (Point, MultiPoint, MultiLineString or MultiPolygon, from gridGeoJson) as parts:
 * a point is one part of one vertex, a multipoint one part, and a multipolygon's rings are listed one after another.
 * Undefined when no part has a vertex.
 */
export function gridParts(type: GeometryType, geojson: GridGeoJson | null): Xy[][] | undefined {
  if (geojson === null) return undefined;
  if (type === 'esriGeometryPoint') {
    const xy = typeof geojson === 'string' ? gridPoint(geojson) : (geojson.coordinates as number[]);
    return xy?.length ? [[[xy[0], xy[1]]]] : undefined;
  }
  const c = typeof geojson === 'string' ? gridCoordinates(geojson) : geojson.coordinates;
  if (c === undefined) return undefined;
  let parts: Xy[][];
  switch (type) {
    case 'esriGeometryMultipoint':
      parts = [c as Xy[]];
      break;
    case 'esriGeometryPolyline':
      parts = c as Xy[][];
      break;
    case 'esriGeometryPolygon':
      parts = (c as Xy[][][]).flat();
      break;
  }
  parts = parts.filter((part) => part.length).map(deltas);
  return parts.length ? parts : undefined;
}

/** ArcGIS JSON for quantized f=json replies: the same integers as f=pbf, nested as the geometry type is. */
export function gridEsriJson(type: GeometryType, geojson: string | null): object | null {
  const parts = gridParts(type, geojson);
  if (!parts) return null;
  switch (type) {
    case 'esriGeometryPoint':
      return { x: parts[0][0][0], y: parts[0][0][1] };
    case 'esriGeometryMultipoint':
      return { points: parts[0] };
    case 'esriGeometryPolyline':
      return { paths: parts };
    case 'esriGeometryPolygon':
      return { rings: parts };
  }
}
