/**
 * Rows of an f=pbf page (page-sql.ts) as FeatureCollection features: typed attribute values, and geometries and
 * centroids on the transform's grid as part lengths plus coordinates (grid.ts).
 */
import { FieldType, GeometryType } from '../../layers/layer-schema';
import { GridGeoJson, gridParts } from './grid';

/** One attribute: exactly one member, or none for null. */
export type PbfValue =
  | { stringValue: string }
  | { floatValue: number }
  | { doubleValue: number }
  | { sintValue: number }
  | { uintValue: number }
  | { sint64Value: number }
  | Record<string, never>;

export interface PbfGeometry {
  lengths: number[];
  coords: number[];
}

/** The reference form of a feature (tests compare feature-writer.ts's bytes with protobufjs's encoding of it). */
export interface PbfFeature {
  attributes: PbfValue[];
  geometry?: PbfGeometry;
  /** returnCentroid: a point on the same grid as the geometry. */
  centroid?: PbfGeometry;
}

type ToValue = (v: unknown) => PbfValue;

const NULL: PbfValue = {};

/** A number from an f=pbf page's JSON, where NaN and the infinities come as strings (page-sql.ts, pbfValue). */
const num = (v: unknown) => (typeof v === 'number' ? v : Number(v));

const VALUE: Record<FieldType, ToValue> = {
  esriFieldTypeOID: (v) => ({ uintValue: v as number }),
  esriFieldTypeSmallInteger: (v) => ({ sintValue: v as number }),
  esriFieldTypeInteger: (v) => ({ sintValue: v as number }),
  esriFieldTypeBigInteger: (v) => ({ sint64Value: num(v) }),
  esriFieldTypeSingle: (v) => ({ floatValue: num(v) }),
  esriFieldTypeDouble: (v) => ({ doubleValue: num(v) }),
  esriFieldTypeString: (v) => ({ stringValue: v as string }),
  esriFieldTypeDate: (v) => ({ sint64Value: num(v) }),
  esriFieldTypeGUID: (v) => ({ stringValue: v as string }),
  esriFieldTypeGlobalID: (v) => ({ stringValue: v as string }),
};

/** The grid GeoJSON of one feature (gridGeoJson's) as a pbf geometry: part lengths and the parts' coordinates. */
export function pbfGeometry(type: GeometryType, geojson: GridGeoJson | null): PbfGeometry | undefined {
  const parts = gridParts(type, geojson);
  if (!parts) return undefined;
  // A point has no lengths: its one vertex is the geometry.
  if (type === 'esriGeometryPoint') return { lengths: [], coords: parts[0][0] };
  const out: PbfGeometry = { lengths: [], coords: [] };
  for (const part of parts) {
    out.lengths.push(part.length);
    for (const [x, y] of part) out.coords.push(x, y);
  }
  return out;
}

/** A point page's [x, y] on the grid (page-sql.ts), or undefined for null (no geometry, or an empty one) or off it. */
function pbfPoint(xy: unknown): PbfGeometry | undefined {
  if (!Array.isArray(xy)) return undefined;
  const coords = [num(xy[0]), num(xy[1])];
  return coords.every(Number.isFinite) ? { lengths: [], coords } : undefined;
}

/**
 * Features from an f=pbf page's rows (page-sql.ts): each an array of the values in `fields` order; then, when
 * `geometryType` is given, the geometry ([x, y] for a point, grid GeoJSON for the others, null for none); then the
 * grid centroid's GeoJSON when `centroids` is set.
 */
export function pbfFeatures(
  rows: unknown[][],
  fields: { type: FieldType }[],
  geometryType?: GeometryType,
  centroids = false,
): PbfFeature[] {
  const toValue = fields.map((f) => VALUE[f.type]);
  const n = fields.length;
  return rows.map((r) => {
    const attributes = new Array<PbfValue>(n);
    for (let i = 0; i < n; i++) {
      const v = r[i];
      attributes[i] = v === null || v === undefined ? NULL : toValue[i](v);
    }
    const feature: PbfFeature = { attributes };
    const g = r[n];
    const geometry =
      geometryType === 'esriGeometryPoint' ? pbfPoint(g) : geometryType ? pbfGeometry(geometryType, g as GridGeoJson | null) : undefined;
    if (geometry) feature.geometry = geometry;
    const centroid = centroids ? pbfGeometry('esriGeometryPoint', r[geometryType ? n + 1 : n] as GridGeoJson | null) : undefined;
    if (centroid) feature.centroid = centroid;
    return feature;
  });
}
