import { GEOMETRY_COLUMN, ident } from '../../../layers/layer-schema';
import { layerFrom, layerWhere } from '../sql';
import { ExportLayerSource } from '../types';

const rtreeRows = (layer: ExportLayerSource) => {
  const shape = ident(GEOMETRY_COLUMN);
  return `${layerFrom(layer)} WHERE ${layerWhere(layer)} AND ${shape} IS NOT NULL AND NOT ST_IsEmpty(${shape})`;
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
 * deserialized the whole geometry.
 */
export function buildRtreeEntriesSql(layer: ExportLayerSource, oidColumn: string, perSlice: number): string {
  const [x0, x1, y0, y1] = ['ST_XMin', 'ST_XMax', 'ST_YMin', 'ST_YMax'].map((f) => `${f}(b)`);
  const value = ['int8send(fid)', ...[x0, x1, y0, y1].map((c) => `float8send(${c})`)].join(' || ');
  const boxes = `SELECT ${ident(oidColumn)}::int8 AS fid, Box2D(${ident(GEOMETRY_COLUMN)}) AS b FROM ${rtreeRows(layer)} OFFSET 0`;
  const entries = `SELECT ${value} AS v, fid, ${x0} + ${x1} AS cx, ${y0} + ${y1} AS cy FROM (${boxes}) r`;
  const sliced = `SELECT v, fid, cy, (row_number() OVER (ORDER BY cx, fid) - 1) / ${Math.max(1, Math.floor(perSlice))} AS slice FROM (${entries}) e`;
  return `SELECT v FROM (${sliced}) s ORDER BY slice, cy, fid`;
}
