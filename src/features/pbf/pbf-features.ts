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

/**
 * Features from rows holding attributes `a0…an` in `fields` order, `g` when `geometryType` is given, and the grid
 * centroid `c` when `centroids` is.
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
    const geometry = geometryType ? pbfGeometry(geometryType, r.g as string | null) : undefined;
    if (geometry) feature.geometry = geometry;
    const centroid = centroids ? pbfGeometry('esriGeometryPoint', r.c as string | null) : undefined;
    if (centroid) feature.centroid = centroid;
    return feature;
  });
}
