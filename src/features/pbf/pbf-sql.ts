/**
 * The columns of an f=pbf page. PostgreSQL does the geometry work: the geometry ArcGIS JSON also has (the reply's
 * spatial reference, clockwise exterior rings, maxAllowableOffset), then the grid of the transform (grid.ts). What
 * comes back per feature is GeoJSON with small whole numbers, which JavaScript parses faster than anything else it
 * could be handed.
 */
import { QuerySpec } from '../feature-data.repository';
import { LayerRow } from '../features.repository';
import { ident, LayerField } from '../layer-schema';
import { centroidGeometry, outputGeometry, withCentroid } from '../query/geometry-sql';
import { PbfTransform } from './feature-collection';
import { gridGeoJson } from './grid';

/** Each field as the typed value its pbf Value carries: dates as whole epoch milliseconds, GUIDs braced upper-case. */
function attributeColumn(f: LayerField, i: number): string {
  const c = ident(f.column);
  const alias = `a${i}`;
  switch (f.type) {
    case 'esriFieldTypeDate':
      return `round(extract(epoch from ${c}) * 1000)::float8 AS ${alias}`;
    case 'esriFieldTypeGUID':
    case 'esriFieldTypeGlobalID':
      return `('{' || upper(${c}::text) || '}') AS ${alias}`;
    case 'esriFieldTypeBigInteger':
      return `${c}::float8 AS ${alias}`;
    default:
      return `${c} AS ${alias}`;
  }
}

/**
 * The select list of a page: attributes a0…an in `outFields` order, then, on the transform's grid, `g` when geometry
 * is returned and `c` when centroids are.
 */
export function pbfColumns(l: LayerRow, q: QuerySpec, t: PbfTransform | undefined): string[] {
  const cols = q.outFields.map(attributeColumn);
  if (t && q.returnGeometry) cols.push(`${gridGeoJson(outputGeometry(l, q), t, q.p)} AS g`);
  if (t && withCentroid(l, q)) cols.push(`${gridGeoJson(centroidGeometry(l, q), t, q.p)} AS c`);
  return cols;
}
