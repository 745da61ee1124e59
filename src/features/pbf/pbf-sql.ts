/**
 * The columns of an f=pbf page. PostgreSQL does the geometry work: the reply's spatial reference, the clockwise
 * exterior rings ArcGIS JSON also has, the affine map onto the integer grid of the transform, and the snap to that
 * grid, which is ArcGIS's "view" generalization (a vertex on the same grid point as the one before is dropped; a part
 * left with too few vertices is dropped, a feature with no part left has no geometry). What comes back per feature is
 * GeoJSON with small whole numbers, which JavaScript parses faster than anything else it could be handed.
 */
import { SqlParams } from '../../core/database/sql-params';
import { QuerySpec } from '../feature-data.repository';
import { LayerRow } from '../features.repository';
import { GEOMETRY_COLUMN, ident, LayerField } from '../layer-schema';
import { PbfTransform } from './feature-collection';

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

/** The quantized geometry as GeoJSON text with whole-number coordinates, or NULL. */
function gridGeometry(l: LayerRow, q: QuerySpec, t: PbfTransform, p: SqlParams): string {
  let g = ident(GEOMETRY_COLUMN);
  if (q.outSrid !== l.srid) g = `ST_Transform(${g}, ${p.add(q.outSrid)}::int)`;
  if (l.geometry_type === 'esriGeometryPolygon') g = `ST_ForcePolygonCW(${g})`;
  const s = `${p.add(t.scale)}::float8`;
  const tx = `${p.add(t.xTranslate)}::float8`;
  const ty = `${p.add(t.yTranslate)}::float8`;
  // Rows down from the top edge when the origin is the upper left, up from the bottom edge otherwise.
  const flip = t.originPosition === 'upperLeft';
  const grid = `ST_Affine(${g}, 1 / ${s}, 0, 0, ${flip ? '-1' : '1'} / ${s}, -${tx} / ${s}, ${flip ? '' : '-'}${ty} / ${s})`;
  return `ST_AsGeoJSON(ST_SnapToGrid(${grid}, 1), 0)`;
}

/** The select list of a page: attributes a0…an in `outFields` order, then `g` when geometry is returned. */
export function pbfColumns(l: LayerRow, q: QuerySpec, t: PbfTransform | undefined): string[] {
  const cols = q.outFields.map(attributeColumn);
  if (t) cols.push(`${gridGeometry(l, q, t, q.p)} AS g`);
  return cols;
}
