/**
 * Rows of an f=pbf page (pbf-sql.ts) as FeatureCollection features: typed attribute values, and geometries and
 * centroids on the transform's grid as part lengths plus coordinates (grid.ts).
 */
import { FieldType, GeometryType } from '../layer-schema';
import { PbfFeature, PbfGeometry, PbfValue } from './feature-collection';
import { gridPoint, gridParts } from './grid';

type ToValue = (v: unknown) => PbfValue;

const NULL: PbfValue = {};

const VALUE: Record<FieldType, ToValue> = {
  esriFieldTypeOID: (v) => ({ uintValue: v as number }),
  esriFieldTypeSmallInteger: (v) => ({ sintValue: v as number }),
  esriFieldTypeInteger: (v) => ({ sintValue: v as number }),
  esriFieldTypeBigInteger: (v) => ({ sint64Value: v as number }),
  esriFieldTypeSingle: (v) => ({ floatValue: v as number }),
  esriFieldTypeDouble: (v) => ({ doubleValue: v as number }),
  esriFieldTypeString: (v) => ({ stringValue: v as string }),
  esriFieldTypeDate: (v) => ({ sint64Value: v as number }),
  esriFieldTypeGUID: (v) => ({ stringValue: v as string }),
  esriFieldTypeGlobalID: (v) => ({ stringValue: v as string }),
};

/** The quantized GeoJSON of one feature (gridGeoJson's) as a pbf geometry: part lengths and the parts' coordinates. */
export function pbfGeometry(type: GeometryType, geojson: string | null): PbfGeometry | undefined {
  if (type === 'esriGeometryPoint') {
    // A point has no lengths: its one vertex is the geometry.
    const xy = geojson === null ? undefined : gridPoint(geojson);
    return xy && { lengths: [], coords: xy };
  }
  const parts = gridParts(type, geojson);
  if (!parts) return undefined;
  const out: PbfGeometry = { lengths: [], coords: [] };
  for (const part of parts) {
    out.lengths.push(part.length);
    for (const [x, y] of part) out.coords.push(x, y);
  }
  return out;
}

/** A grid point read as its two numbers (pbf-sql.ts), or undefined when it is null or empty (PostGIS gives no x then). */
function pbfPoint(x: unknown, y: unknown): PbfGeometry | undefined {
  return typeof x === 'number' && typeof y === 'number' ? { lengths: [], coords: [x, y] } : undefined;
}

/**
 * Features from rows holding attributes `a0…an` in `fields` order; when `geometryType` is given, the geometry: `gx` and
 * `gy` for a point, grid GeoJSON `g` for the others; the grid centroid's `cx` and `cy` when `centroids` is set.
 */
export function pbfFeatures(
  rows: Record<string, unknown>[],
  fields: { type: FieldType }[],
  geometryType?: GeometryType,
  centroids = false,
): PbfFeature[] {
  const toValue = fields.map((f) => VALUE[f.type]);
  const keys = fields.map((_, i) => `a${i}`);
  return rows.map((r) => {
    const attributes = new Array<PbfValue>(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const v = r[keys[i]];
      attributes[i] = v === null || v === undefined ? NULL : toValue[i](v);
    }
    const feature: PbfFeature = { attributes };
    const geometry =
      geometryType === 'esriGeometryPoint'
        ? pbfPoint(r.gx, r.gy)
        : geometryType
          ? pbfGeometry(geometryType, r.g as string | null)
          : undefined;
    if (geometry) feature.geometry = geometry;
    const centroid = centroids ? pbfPoint(r.cx, r.cy) : undefined;
    if (centroid) feature.centroid = centroid;
    return feature;
  });
}
