import { GEOMETRY_COLUMN, ident } from '../../layers/layer-schema';
import { ExportWriteError } from './errors';
import type { ResolvedSrs } from './args';
import { FORMATS } from './formats';
import type { ExportFormat, ExportLayerSource } from './types';
import { xyColumnNames, XyColumnsError } from './xy-columns';

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

/** The x/y column names (CSV/Excel points), refused when they clash with a field or with each other (xy-columns.ts). */
export function xyColumns(layer: ExportLayerSource): [string, string] {
  try {
    return xyColumnNames(
      layer.fields.map((f) => f.name),
      layer.xColumnName,
      layer.yColumnName,
    );
  } catch (e) {
    if (e instanceof XyColumnsError) throw new ExportWriteError(`Layer '${layer.name}': ${e.message}`);
    throw e;
  }
}

const from = (layer: ExportLayerSource) => `${ident(layer.schema)}.${ident(layer.table)}`;
const where = (layer: ExportLayerSource) => `(${layer.where?.trim() || '1=1'})`;

/**
 * ST_Transform to the target for x/y columns. A wkid uses PostGIS's cached integer form; WKT uses the
 * from/to text form (the two-argument text form builds a PROJ transformation per row: 3.6 s for 300 points).
 */
export function transformed(shape: string, layer: ExportLayerSource, target: ResolvedSrs): string {
  if (target.wkid !== undefined) return `ST_Transform(${shape}, ${Math.trunc(target.wkid)})`;
  const from = `(SELECT srtext FROM spatial_ref_sys WHERE srid = ${Math.trunc(layer.srid)})`;
  return `ST_Transform(${shape}, ${from}, ${sqlText(target.srs)})`;
}

/**
 * The single SELECT GDAL runs for a layer: every field aliased to its ArcGIS name, the where applied and the
 * geometry shaped for the format. `target` is used only for x/y columns computed here; 'gdal' geometry is
 * reprojected by GDAL's -t_srs. Rows come in OID order, as ArcGIS lists them.
 */
export function buildSelectSql(layer: ExportLayerSource, format: ExportFormat, target: ResolvedSrs | null): string {
  const cols = layer.fields.map((f) => {
    const col = ident(f.column);
    // ArcGIS JSON carries dates as epoch milliseconds; computing them here keeps the conversion exact.
    const expr = format === 'featurecollection' && f.type === 'esriFieldTypeDate' ? `(extract(epoch from ${col}) * 1000)::bigint` : col;
    return `${expr} AS ${ident(f.name)}`;
  });
  const shape = ident(GEOMETRY_COLUMN);
  switch (geometryOutput(layer, format)) {
    case 'gdal':
    case 'wkt':
      cols.push(shape);
      break;
    case 'xy': {
      const [x, y] = xyColumns(layer);
      const g = target ? transformed(shape, layer, target) : shape;
      cols.push(`ST_X(${g}) AS ${ident(x)}`, `ST_Y(${g}) AS ${ident(y)}`);
      break;
    }
    case 'none':
      break;
  }
  const oid = layer.fields.find((f) => f.type === 'esriFieldTypeOID');
  const order = oid ? ` ORDER BY ${ident(oid.column)}` : '';
  return `SELECT ${cols.join(', ')} FROM ${from(layer)} WHERE ${where(layer)}${order}`;
}

/** Run only after a failed translate: errors ("transform: ...") when some feature cannot be reprojected. */
export function buildReprojectionProbeSql(layer: ExportLayerSource, target: ResolvedSrs): string {
  return `SELECT count(${transformed(ident(GEOMETRY_COLUMN), layer, target)})::bigint AS n FROM ${from(layer)} WHERE ${where(layer)}`;
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
 * of lines or polygons is first bounded by `ST_MemSize`, which reads each value's length without decoding it (100,000
 * polygons of 33 vertices: 27 ms, where counting vertices and rings decoded every one: 190 ms); `exact` counts them.
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
  return `SELECT ${cols.join(', ')} FROM ${from(layer)} WHERE ${where(layer)}`;
}

/** The planner's estimate of the rows the export selects: EXPLAIN, no scan (estimateLayers). */
export function buildEstimateSql(layer: ExportLayerSource): string {
  return `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${from(layer)} WHERE ${where(layer)}`;
}

const rtreeRows = (layer: ExportLayerSource) => {
  const shape = ident(GEOMETRY_COLUMN);
  return `${from(layer)} WHERE ${where(layer)} AND ${shape} IS NOT NULL AND NOT ST_IsEmpty(${shape})`;
};

/** How many R-tree entries buildRtreeEntriesSql returns and their fid range (run in the same snapshot: the tree's numbering follows from it). */
export function buildRtreeCountSql(layer: ExportLayerSource, oidColumn: string): string {
  const fid = `${ident(oidColumn)}::int8`;
  return `SELECT count(*)::bigint AS n, min(${fid}) AS min, max(${fid}) AS max FROM ${rtreeRows(layer)}`;
}

/**
 * The R-tree entries of a GeoPackage layer written from buildSelectSql without reprojection (gpkg-rtree.ts): per
 * row with a non-empty shape one 40-byte value, the fid (the OID column, which GDAL's FID option makes the GeoPackage
 * fid) as int8 and the bounding box as four float8, big-endian. Rows GDAL's own index leaves out are left out here.
 * In sort-tile-recursive leaf order, so the caller holds a leaf at a time: slices of `perSlice` rows by box centre
 * x, each ordered by centre y (the fid breaks ties, so the order is the same on every run). The box is computed once
 * per row (Box2D: the exact double box, as ST_XMin and the others give it): each of the eight reads of the shape
 * deserialized the whole geometry, twice the PostgreSQL CPU for 100,000 polygons (0.44 → 0.22 s).
 */
export function buildRtreeEntriesSql(layer: ExportLayerSource, oidColumn: string, perSlice: number): string {
  const [x0, x1, y0, y1] = ['ST_XMin', 'ST_XMax', 'ST_YMin', 'ST_YMax'].map((f) => `${f}(b)`);
  const value = ['int8send(fid)', ...[x0, x1, y0, y1].map((c) => `float8send(${c})`)].join(' || ');
  const boxes = `SELECT ${ident(oidColumn)}::int8 AS fid, Box2D(${ident(GEOMETRY_COLUMN)}) AS b FROM ${rtreeRows(layer)} OFFSET 0`;
  const entries = `SELECT ${value} AS v, fid, ${x0} + ${x1} AS cx, ${y0} + ${y1} AS cy FROM (${boxes}) r`;
  const sliced = `SELECT v, fid, cy, (row_number() OVER (ORDER BY cx, fid) - 1) / ${Math.max(1, Math.floor(perSlice))} AS slice FROM (${entries}) e`;
  return `SELECT v FROM (${sliced}) s ORDER BY slice, cy, fid`;
}
