import { SqlParams } from '../core/database/sql-params';
import { LayerRow } from '../layers/types';
import { GEOMETRY_COLUMN, ident } from '../layers/layer-schema';

/** Tables up to this size (rows and TOAST) get an exact extent; a scan of it takes a few milliseconds. */
export const EXACT_EXTENT_BYTES = 1024 * 1024;

/**
 * A layer's extent as a box2d expression in its own spatial reference. Layer info is read by every client that adds
 * the layer, so a large table's extent is ST_EstimatedExtent's: with the layer's GiST index it is the union of the
 * index root's boxes, a read of one page, exact but for float4 rounding outwards; it does not shrink when features
 * are deleted or moved until the index is rebuilt, so a large layer's extent may cover more than its data. Small
 * tables, and a large one the estimate has nothing for (no index and no statistics), are scanned with ST_Extent.
 */
export function layerBoxSql(schema: string, l: LayerRow, p: SqlParams): string {
  const table = `${ident(schema)}.${ident(l.table_name)}`;
  const exact = `(SELECT ST_Extent(${ident(GEOMETRY_COLUMN)}) FROM ${table})`;
  const estimated = `ST_EstimatedExtent(${p.add(schema)}::text, ${p.add(l.table_name)}::text, ${p.add(GEOMETRY_COLUMN)}::text)`;
  return `(CASE WHEN pg_table_size(${p.add(table)}::regclass) <= ${p.add(EXACT_EXTENT_BYTES)}::bigint THEN ${exact} ELSE coalesce(${estimated}, ${exact}) END)`;
}

/**
 * The union of the layers' extents in `outSrid`: each box is reprojected densified (100 steps along its longer
 * side) so its edges follow the curve, as the query extent is.
 */
export function layersBoxSql(schema: string, layers: LayerRow[], outSrid: number, p: SqlParams): string {
  const out = `${p.add(outSrid)}::int`;
  const rows = layers.map((l) => `(${layerBoxSql(schema, l, p)}, ${p.add(l.srid)}::int)`).join(', ');
  const step = `greatest(ST_XMax(b) - ST_XMin(b), ST_YMax(b) - ST_YMin(b), 1e-9) / 100`;
  const geom = `CASE WHEN srid = ${out} THEN ST_SetSRID(b::geometry, srid) ELSE ST_Transform(ST_Segmentize(ST_SetSRID(b::geometry, srid), ${step}), ${out}) END`;
  return `(SELECT ST_Extent(${geom}) FROM (VALUES ${rows}) v(b, srid) WHERE b IS NOT NULL)`;
}
