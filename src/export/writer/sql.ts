import { GEOMETRY_COLUMN, ident } from '../../layers/layer-schema';
import { ExportWriteError } from './errors';
import { ResolvedSrs } from './srs';
import { FORMATS } from './formats';
import { ExportFormat, ExportLayerSource } from './types';
import { xyColumnNames, XyColumnsError } from '../xy-columns';
import { attributeColumns, AttributeColumn, ColumnsError } from '../export-columns';

/**
 * How a layer's geometry leaves PostGIS:
 * - 'gdal': the shape column, reprojected by GDAL (-t_srs);
 * - 'xy':   two numeric columns computed in SQL (CSV/Excel points), so their names are exactly what was asked;
 * - 'wkt':  the shape column written as WKT by the CSV driver (lines and polygons);
 * - 'none': no geometry at all (includeGeometry=false, tables, Excel lines/polygons).
 */
export type GeometryOutput = 'gdal' | 'xy' | 'wkt' | 'none';

export function geometryOutput(layer: ExportLayerSource, format: ExportFormat): GeometryOutput {
  if (!layer.includeGeometry || !layer.geometryType) return 'none';
  const mode = FORMATS[format].geometry;
  if (mode === 'gdal') return 'gdal';
  if (layer.geometryType === 'esriGeometryPoint') return 'xy';
  // A polygon's WKT easily passes Excel's 32,767 characters per cell, so Excel gets attributes only.
  return mode === 'csv' ? 'wkt' : 'none';
}

/** A SQL string literal; E'' reads backslash escapes whatever standard_conforming_strings says. */
export function sqlText(v: string): string {
  // eslint-disable-next-line no-control-regex -- NUL is the character refused here
  if (/[\x00]/.test(v)) throw new ExportWriteError('Text passed to SQL must not contain NUL characters.');
  return `E'${v.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The layer's attribute columns (export-columns.ts): each field's value, or its code's description, and the header. */
export function layerColumns(layer: ExportLayerSource): AttributeColumn[] {
  try {
    return attributeColumns(layer.fields, { domainValues: layer.domainValues, fieldAliases: layer.fieldAliases });
  } catch (e) {
    if (e instanceof ColumnsError) throw new ExportWriteError(`Layer '${layer.name}': ${e.message}`);
    throw e;
  }
}

/** The x/y column names (CSV/Excel points), refused when they clash with a column or with each other (xy-columns.ts). */
export function xyColumns(layer: ExportLayerSource): [string, string] {
  try {
    return xyColumnNames(
      layerColumns(layer).map((c) => c.header),
      layer.xColumnName,
      layer.yColumnName,
    );
  } catch (e) {
    if (e instanceof XyColumnsError) throw new ExportWriteError(`Layer '${layer.name}': ${e.message}`);
    throw e;
  }
}

/** The layer's table, and its where clause in parentheses. */
export const layerFrom = (layer: ExportLayerSource) => `${ident(layer.schema)}.${ident(layer.table)}`;
export const layerWhere = (layer: ExportLayerSource) => `(${layer.where?.trim() || '1=1'})`;

/**
 * ST_Transform to the target for x/y columns. A wkid uses PostGIS's cached integer form; WKT uses the
 * from/to text form (the two-argument text form builds a PROJ transformation per row).
 */
export function transformed(shape: string, layer: ExportLayerSource, target: ResolvedSrs): string {
  if (target.wkid !== undefined) return `ST_Transform(${shape}, ${Math.trunc(target.wkid)})`;
  const from = `(SELECT srtext FROM spatial_ref_sys WHERE srid = ${Math.trunc(layer.srid)})`;
  return `ST_Transform(${shape}, ${from}, ${sqlText(target.srs)})`;
}

/** Run only after a failed translate: errors ("transform: ...") when some feature cannot be reprojected. */
export function buildReprojectionProbeSql(layer: ExportLayerSource, target: ResolvedSrs): string {
  return `SELECT count(${transformed(ident(GEOMETRY_COLUMN), layer, target)})::bigint AS n FROM ${layerFrom(layer)} WHERE ${layerWhere(layer)}`;
}

export interface LayerMeasure {
  /** Rows the export gets, or the planner's estimate of them when `estimated`. */
  rows: number;
  estimated?: boolean;
  /** Rows without geometry (only measured when the format cannot hold them). */
  nullGeometries: number;
  /** Total vertices and parts (rings or paths), for the shapefile size estimate of non-point layers (exact measure). */
  vertices: number;
  parts: number;
  /**
   * Instead of vertices and parts (the first measure): the geometries' size in PostGIS's own form, at least 16 bytes
   * per vertex and 4 per part (each point is two or more doubles and each ring or path carries its point count), so
   * a bound of what they add to the .shp (see estimateShapefile).
   */
  geometryBytes?: number;
}

/**
 * One pass over the filtered rows before writing: the row count, plus what the format's checks need. A shapefile
 * of lines or polygons is first bounded by `ST_MemSize`, which reads each value's length without decoding it (counting
 * vertices and rings decodes every one); `exact` counts them.
 */
export function buildMeasureSql(layer: ExportLayerSource, format: ExportFormat, exact = false): string {
  const shape = ident(GEOMETRY_COLUMN);
  const cols = ['count(*)::bigint AS rows'];
  const geom = geometryOutput(layer, format) !== 'none';
  if (geom && FORMATS[format].needsGeometry) cols.push(`count(*) FILTER (WHERE ${shape} IS NULL)::bigint AS null_geometries`);
  if (geom && format === 'shapefile' && layer.geometryType !== 'esriGeometryPoint') {
    const parts = layer.geometryType === 'esriGeometryPolygon' ? `ST_NRings(${shape})` : `ST_NumGeometries(${shape})`;
    if (exact) cols.push(`coalesce(sum(ST_NPoints(${shape})), 0)::bigint AS vertices`, `coalesce(sum(${parts}), 0)::bigint AS parts`);
    else cols.push(`coalesce(sum(ST_MemSize(${shape})), 0)::bigint AS geometry_bytes`);
  }
  return `SELECT ${cols.join(', ')} FROM ${layerFrom(layer)} WHERE ${layerWhere(layer)}`;
}

/** The planner's estimate of the rows the export selects: EXPLAIN, no scan (estimateLayers). */
export function buildEstimateSql(layer: ExportLayerSource): string {
  return `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${layerFrom(layer)} WHERE ${layerWhere(layer)}`;
}

/** A coded value's code as a SQL literal of the field's type (codes were checked against the field: field-domain.ts). */
function codeSql(type: string, code: string | number): string {
  if (typeof code === 'string') return sqlText(code);
  if (type === 'esriFieldTypeDate') return `${sqlText(new Date(code).toISOString())}::timestamptz`;
  // A real column holds the code rounded to a float, and compared as a double it would not match 0.1.
  if (type === 'esriFieldTypeSingle') return `${String(code)}::real`;
  return String(code);
}

/**
 * The description of a field's code as SQL: `CASE col WHEN code THEN <described> ... ELSE <otherwise> END`, where
 * each description is turned into its cell text in JavaScript (`described`, once per coded value, not per row) and
 * a value outside the domain gets `otherwise` (the value itself, or NULL).
 */
export function describedSql(column: AttributeColumn, described: (text: string) => string, otherwise: string): string {
  const f = column.field;
  const list = f.domain?.type === 'codedValue' ? f.domain.codedValues : [];
  const whens = list.map((cv) => `WHEN ${codeSql(f.type, cv.code)} THEN ${described(cv.name)}`);
  return whens.length ? `CASE ${ident(f.column)} ${whens.join(' ')} ELSE ${otherwise} END` : otherwise;
}
