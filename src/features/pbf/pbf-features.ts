/**
 * Rows of an f=pbf page (pbf-sql.ts) as FeatureCollection features: typed attribute values and geometries as part
 * lengths plus coordinates, each part's first vertex as it is and the rest as differences from the vertex before,
 * which is how the ArcGIS Maps SDK reads them back (it starts every part from zero).
 */
import { FieldType, GeometryType } from '../layer-schema';
import { PbfFeature, PbfGeometry, PbfValue } from './feature-collection';

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

type Xy = [number, number];

/** Appends one part (none when it has no vertex). */
function addPart(out: PbfGeometry, part: Xy[]): void {
  if (!part.length) return;
  let [px, py] = part[0];
  out.coords.push(px, py);
  for (let i = 1; i < part.length; i++) {
    const [x, y] = part[i];
    out.coords.push(x - px, y - py);
    px = x;
    py = y;
  }
  out.lengths.push(part.length);
}

/** The quantized GeoJSON of one feature (Point, MultiPoint, MultiLineString or MultiPolygon) as a pbf geometry. */
export function pbfGeometry(type: GeometryType, geojson: string | null): PbfGeometry | undefined {
  if (geojson === null) return undefined;
  const c = (JSON.parse(geojson) as { coordinates: unknown }).coordinates;
  const out: PbfGeometry = { lengths: [], coords: [] };
  switch (type) {
    case 'esriGeometryPoint': {
      const xy = c as number[];
      if (xy.length < 2) return undefined;
      out.coords.push(xy[0], xy[1]);
      return out;
    }
    case 'esriGeometryMultipoint':
      addPart(out, c as Xy[]);
      break;
    case 'esriGeometryPolyline':
      for (const path of c as Xy[][]) addPart(out, path);
      break;
    case 'esriGeometryPolygon':
      for (const polygon of c as Xy[][][]) for (const ring of polygon) addPart(out, ring);
      break;
  }
  return out.lengths.length ? out : undefined;
}

/** Features from rows holding attributes `a0…an` in `fields` order and, when `geometryType` is given, `g`. */
export function pbfFeatures(rows: Record<string, unknown>[], fields: { type: FieldType }[], geometryType?: GeometryType): PbfFeature[] {
  const toValue = fields.map((f) => VALUE[f.type]);
  const keys = fields.map((_, i) => `a${i}`);
  return rows.map((r) => {
    const attributes = new Array<PbfValue>(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const v = r[keys[i]];
      attributes[i] = v === null || v === undefined ? NULL : toValue[i](v);
    }
    if (!geometryType) return { attributes };
    const geometry = pbfGeometry(geometryType, r.g as string | null);
    return geometry ? { attributes, geometry } : { attributes };
  });
}
