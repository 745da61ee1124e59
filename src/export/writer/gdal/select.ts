import { GEOMETRY_COLUMN, ident } from '../../../layers/layer-schema';
import { describedSql, geometryOutput, layerColumns, layerFrom, layerWhere, sqlText, transformed, xyColumns } from '../sql';
import { ResolvedSrs } from '../srs';
import { ExportFormat, ExportLayerSource } from '../types';

/**
 * The single SELECT GDAL runs for a layer: every field aliased to its ArcGIS name, the where applied and the
 * geometry shaped for the format. `target` is used only for x/y columns computed here; 'gdal' geometry is
 * reprojected by GDAL's -t_srs. Rows come in OID order, as ArcGIS lists them.
 */
export function buildSelectSql(layer: ExportLayerSource, format: ExportFormat, target: ResolvedSrs | null): string {
  const cols = layerColumns(layer).map(({ field: f, header, value }) => {
    const col = ident(f.column);
    // ArcGIS JSON carries dates as epoch milliseconds; computing them here keeps the conversion exact.
    const expr = format === 'featurecollection' && f.type === 'esriFieldTypeDate' ? `(extract(epoch from ${col}) * 1000)::bigint` : col;
    // Descriptions (CSV and Excel written by GDAL, the reference): the text, else the value as text or nothing.
    const described = () => describedSql({ field: f, header, value }, sqlText, layer.domainValues === 'both' ? 'NULL' : `${col}::text`);
    return `${value === 'description' ? described() : expr} AS ${ident(header)}`;
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
  return `SELECT ${cols.join(', ')} FROM ${layerFrom(layer)} WHERE ${layerWhere(layer)}${order}`;
}
