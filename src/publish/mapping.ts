/**
 * Pure mapping rules from what GDAL/OGR reports about a source file to the service's layer definitions:
 * field types, field names, string lengths and geometry types. No GDAL calls here, so they are unit-tested alone.
 */
import { FieldType, GeometryType } from '../layers/layer-schema';
import { PublishError } from './errors';

/** Postgres identifier limit, and the layer-schema rule `^[A-Za-z_][A-Za-z0-9_]{0,62}$`. */
export const MAX_NAME_LENGTH = 63;
/** String fields whose width the source does not declare get at least this length (the ArcGIS default). */
export const MIN_INFERRED_STRING_LENGTH = 256;
/** layer-schema's MAX_STRING_LENGTH. */
export const MAX_STRING_LENGTH = 1_000_000;
/** parseLayerDefinition allows 1000 fields, one of which is the OBJECTID it adds. */
export const MAX_SOURCE_FIELDS = 999;

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Names a source field cannot keep: the OID and geometry columns the service adds, and Postgres system
 * columns (a table cannot have a column called xmin). Compared in lower case.
 */
const RESERVED = new Set(['objectid', 'shape', 'tableoid', 'xmin', 'xmax', 'cmin', 'cmax', 'ctid', 'oid']);

/**
 * gdal-async's OGR field type names to esri field types. Integer64 becomes esriFieldTypeBigInteger: the column
 * is bigint, so values beyond 2^31 (ids, phone numbers, DBF N(10..18,0) columns) are kept exactly, and the
 * where-clause compiler and attribute checks already support the type. Binary (BLOB) has no esri equivalent
 * that hosted layers offer, so it returns null and the field is left out; times and lists become strings.
 */
export function esriFieldType(ogrType: string): FieldType | null {
  switch (ogrType) {
    case 'integer':
      return 'esriFieldTypeInteger';
    case 'integer64':
      return 'esriFieldTypeBigInteger';
    case 'real':
      return 'esriFieldTypeDouble';
    case 'date':
    case 'dateTime':
      return 'esriFieldTypeDate';
    case 'binary':
      return null;
    default: // string, wideString, time, and the list types (GeoJSON arrays arrive as JSON text)
      return 'esriFieldTypeString';
  }
}

/**
 * A source field name made valid for the layer schema (valid names are returned as they are): accents dropped, other characters outside
 * [A-Za-z0-9_] replaced by '_', a leading digit prefixed with 'F' (as ArcGIS does), at most 63 characters.
 * Uniqueness and reserved names are assignColumnNames' job.
 */
export function sanitizeFieldName(raw: string, index: number): string {
  if (VALID_NAME.test(raw)) return raw;
  let s = raw.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const lead = s.startsWith('_') ? '_' : '';
  s = s
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/__+/g, '_');
  if (!s) return `field_${index + 1}`;
  s = lead + s;
  if (/^[0-9]/.test(s)) s = `F${s}`;
  return s.slice(0, MAX_NAME_LENGTH).replace(/_+$/, '') || `field_${index + 1}`;
}

/**
 * Field names for the target layer, one per source name, unique regardless of case and clear of the reserved
 * names. Names that are already valid keep priority over names that had to be changed, so a source with both
 * "a b" and "a_b" keeps "a_b" and renames the other to "a_b_1"; a source OBJECTID becomes OBJECTID_1.
 */
export function assignFieldNames(sourceNames: string[]): string[] {
  const taken = new Set(RESERVED);
  const out: (string | undefined)[] = new Array(sourceNames.length);
  const wanted = sourceNames.map((n, i) => sanitizeFieldName(n, i));
  // First pass: names that are valid as they are and free.
  sourceNames.forEach((n, i) => {
    const key = n.toLowerCase();
    if (wanted[i] === n && !taken.has(key)) {
      out[i] = n;
      taken.add(key);
    }
  });
  // Second pass: everything else gets the sanitized name, with _1, _2... until it is free.
  sourceNames.forEach((_, i) => {
    if (out[i] !== undefined) return;
    const base = wanted[i];
    let candidate = base;
    for (let k = 1; taken.has(candidate.toLowerCase()); k++) {
      const suffix = `_${k}`;
      candidate = base.slice(0, MAX_NAME_LENGTH - suffix.length) + suffix;
    }
    out[i] = candidate;
    taken.add(candidate.toLowerCase());
  });
  return out as string[];
}

/**
 * Length of a string field. `declared` is a width the format stores (DBF character width, GeoPackage TEXT(n));
 * `observed` the longest value in the data, when it was measured. Declared widths are kept (grown if the data is
 * longer); undeclared ones get 256, or the next power of two above the longest value, so values can be edited
 * later without hitting a tight limit. Values longer than 1,000,000 characters cannot be published.
 */
export function stringFieldLength(declared: number, observed: number | null, fieldName = 'a text field'): number {
  if (observed !== null && observed > MAX_STRING_LENGTH) {
    throw new PublishError(`Field '${fieldName}' holds values of ${observed} characters; at most ${MAX_STRING_LENGTH} are supported.`);
  }
  if (declared > 0) return Math.min(MAX_STRING_LENGTH, Math.max(declared, observed ?? 0));
  const n = observed ?? 0;
  if (n <= MIN_INFERRED_STRING_LENGTH) return MIN_INFERRED_STRING_LENGTH;
  return Math.min(MAX_STRING_LENGTH, 2 ** Math.ceil(Math.log2(n)));
}

export type GeometryFamily = 'point' | 'multipoint' | 'line' | 'polygon';

export type GeometryClass =
  | { kind: 'family'; family: GeometryFamily; curve: boolean }
  | { kind: 'none' }
  | { kind: 'unknown' }
  | { kind: 'unsupported'; name: string };

export const ESRI_GEOMETRY: Record<GeometryFamily, GeometryType> = {
  point: 'esriGeometryPoint',
  multipoint: 'esriGeometryMultipoint',
  line: 'esriGeometryPolyline',
  polygon: 'esriGeometryPolygon',
};

const WKB_NAMES: Record<number, string> = {
  0: 'GEOMETRY',
  1: 'POINT',
  2: 'LINESTRING',
  3: 'POLYGON',
  4: 'MULTIPOINT',
  5: 'MULTILINESTRING',
  6: 'MULTIPOLYGON',
  7: 'GEOMETRYCOLLECTION',
  8: 'CIRCULARSTRING',
  9: 'COMPOUNDCURVE',
  10: 'CURVEPOLYGON',
  11: 'MULTICURVE',
  12: 'MULTISURFACE',
  13: 'CURVE',
  14: 'SURFACE',
  15: 'POLYHEDRALSURFACE',
  16: 'TIN',
  17: 'TRIANGLE',
  100: 'NONE',
};

/** An OGR geometry type code (wkb25DBit or ISO 1000/2000/3000 offsets for Z/M) as its flat OGC name. */
export function wkbTypeName(code: number): string {
  const c = (code >>> 0) & 0x7fffffff;
  const base = c >= 100 && c < 1000 ? c : c % 1000;
  return WKB_NAMES[base] ?? `type ${code}`;
}

/** A geometry type name without dimension suffix: "POINT Z", "PointZM" -> "POINT" (OGR_GEOMETRY's spelling). */
export function flatGeometryName(name: string): string {
  const known = new Set(Object.values(WKB_NAMES));
  const n = name.toUpperCase().replace(/\s+/g, '');
  if (known.has(n)) return n;
  const flat = n.replace(/(ZM|Z|M)$/, '');
  return known.has(flat) ? flat : n;
}

/** Geometry class of an OGC type name, as OGR SQL's OGR_GEOMETRY or ST_GeometryType report it. */
export function classifyGeometryName(name: string | null): GeometryClass {
  if (name === null || name === '') return { kind: 'none' };
  const n = flatGeometryName(name);
  return NAME_CLASS[n] ?? { kind: 'unsupported', name: n };
}

/** Geometry class of a layer's declared OGR geometry type. */
export function classifyWkbType(code: number): GeometryClass {
  return classifyGeometryName(wkbTypeName(code));
}

const fam = (family: GeometryFamily, curve = false): GeometryClass => ({ kind: 'family', family, curve });
const NAME_CLASS: Record<string, GeometryClass> = {
  GEOMETRY: { kind: 'unknown' },
  NONE: { kind: 'none' },
  POINT: fam('point'),
  MULTIPOINT: fam('multipoint'),
  LINESTRING: fam('line'),
  MULTILINESTRING: fam('line'),
  CIRCULARSTRING: fam('line', true),
  COMPOUNDCURVE: fam('line', true),
  MULTICURVE: fam('line', true),
  CURVE: fam('line', true),
  POLYGON: fam('polygon'),
  MULTIPOLYGON: fam('polygon'),
  CURVEPOLYGON: fam('polygon', true),
  MULTISURFACE: fam('polygon', true),
  SURFACE: fam('polygon', true),
};

/** One target layer cut out of a source layer whose features mix geometry types. */
export interface GeometryPart {
  family: GeometryFamily;
  /** Some features are curves: load with -nlt CONVERT_TO_LINEAR. */
  curve: boolean;
  /** OGR_GEOMETRY values that go to this layer. */
  types: string[];
  /** Features without geometry go to the first part. */
  includeNull: boolean;
  count: number;
}

export interface GeometryPlan {
  parts: GeometryPart[];
  /** Features whose geometry cannot be published (collections, TINs...), by type. */
  skipped: { type: string; count: number }[];
  nullCount: number;
}

/**
 * Splits a layer of mixed geometry types (counts per OGR_GEOMETRY value) into one part per family, in the order
 * points, lines, polygons; ArcGIS Online does the same for GeoJSON. Points and multipoints share a part, which is
 * a multipoint layer when any feature is a multipoint. No part at all means the layer has no usable geometry.
 */
export function planGeometry(counts: { type: string | null; count: number }[]): GeometryPlan {
  const groups = new Map<'points' | 'line' | 'polygon', { types: string[]; count: number; curve: boolean; multi: boolean }>();
  const skipped: { type: string; count: number }[] = [];
  let nullCount = 0;
  for (const { type, count } of counts) {
    if (count <= 0) continue;
    const c = classifyGeometryName(type);
    if (c.kind === 'none') {
      nullCount += count;
      continue;
    }
    if (c.kind !== 'family') {
      skipped.push({ type: c.kind === 'unsupported' ? c.name : 'GEOMETRY', count });
      continue;
    }
    const key = c.family === 'point' || c.family === 'multipoint' ? 'points' : c.family;
    const g = groups.get(key) ?? { types: [], count: 0, curve: false, multi: false };
    g.types.push(type as string);
    g.count += count;
    g.curve ||= c.curve;
    g.multi ||= c.family === 'multipoint';
    groups.set(key, g);
  }
  const parts: GeometryPart[] = [];
  for (const key of ['points', 'line', 'polygon'] as const) {
    const g = groups.get(key);
    if (!g) continue;
    const family: GeometryFamily = key === 'points' ? (g.multi ? 'multipoint' : 'point') : key;
    parts.push({
      family,
      curve: g.curve,
      types: g.types,
      includeNull: parts.length === 0 && nullCount > 0,
      count: g.count + (parts.length === 0 ? nullCount : 0),
    });
  }
  return { parts, skipped, nullCount };
}

/** OGR SQL condition selecting a part's features (OGR_GEOMETRY is OGR SQL's geometry-type pseudo field). */
export function partCondition(part: Pick<GeometryPart, 'types' | 'includeNull'>): string {
  const list = part.types.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ');
  return `(OGR_GEOMETRY IN (${list})${part.includeNull ? ' OR OGR_GEOMETRY IS NULL' : ''})`;
}

/** Layer name of a part when a source layer is split: "roads (lines)". */
export function partLayerName(base: string, family: GeometryFamily): string {
  const suffix = { point: 'points', multipoint: 'points', line: 'lines', polygon: 'polygons' }[family];
  return `${base.slice(0, 128 - suffix.length - 3)} (${suffix})`;
}

/** Coordinate column pairs recognised in CSV headers when none are named, in order of preference. */
export const CSV_COORDINATE_PAIRS: [string, string][] = [
  ['longitude', 'latitude'],
  ['lon', 'lat'],
  ['lng', 'lat'],
  ['long', 'lat'],
  ['x', 'y'],
  ['point_x', 'point_y'],
];

/**
 * The CSV columns holding x and y: the ones named (matched case-insensitively), else the first common pair found
 * in the header. Returns the header's own spelling, or null when no pair is present.
 */
export function pickCoordinateColumns(header: string[], xField?: string, yField?: string): { x: string; y: string } | null {
  const find = (name: string) => header.find((h) => h.trim().toLowerCase() === name.trim().toLowerCase());
  if (xField || yField) {
    if (!xField || !yField) throw new PublishError('Name both the x (longitude) and the y (latitude) column, or neither.');
    const x = find(xField);
    const y = find(yField);
    const missing = [!x && xField, !y && yField].filter(Boolean);
    if (missing.length) {
      throw new PublishError(
        `The CSV file has no column named ${missing.map((m) => `'${m}'`).join(' or ')}. Its columns are: ${listColumns(header)}.`,
      );
    }
    if (x === y) throw new PublishError('The x and y coordinates must come from two different columns.');
    return { x: x!, y: y! };
  }
  for (const [xn, yn] of CSV_COORDINATE_PAIRS) {
    const x = find(xn);
    const y = find(yn);
    if (x && y) return { x, y };
  }
  return null;
}

export function listColumns(header: string[]): string {
  const shown = header
    .slice(0, 20)
    .map((h) => `'${h}'`)
    .join(', ');
  return header.length > 20 ? `${shown} and ${header.length - 20} more` : shown || '(none)';
}
