/**
 * The geometry a query reply writes, shared by every format: the layer's shape in the reply's spatial reference,
 * generalized when the client asked for it (maxAllowableOffset), wound as the format wants; and the centroid
 * (returnCentroid) next to it.
 */
import { QuerySpec } from './query-spec';
import { LayerRow } from '../../layers/types';
import { GEOMETRY_COLUMN, ident } from '../../layers/layer-schema';

/** `g` (in the layer's reference) in the reply's spatial reference. */
function projected(l: LayerRow, q: QuerySpec, g: string): string {
  return q.outSrid === l.srid ? g : `ST_Transform(${g}, ${q.p.add(q.outSrid)}::int)`;
}

/**
 * maxAllowableOffset: Douglas-Peucker with the tolerance in the reply's units, as ArcGIS generalizes (the result
 * keeps a subset of the vertices). Collapsed parts are kept, so a polygon or a line smaller than the tolerance is
 * still drawn rather than vanishing from the map; a hole that collapses is dropped. Points are left alone.
 */
function generalized(l: LayerRow, q: QuerySpec, g: string): string {
  const lines = l.geometry_type === 'esriGeometryPolygon' || l.geometry_type === 'esriGeometryPolyline';
  return q.generalize && lines ? `ST_Simplify(${g}, ${q.p.add(q.generalize)}::float8, true)` : g;
}

/** The reply's geometry of the layer's shape column. */
export function outputGeometry(l: LayerRow, q: QuerySpec): string {
  // Exteriors clockwise for ArcGIS, counter-clockwise for GeoJSON, on polygons only: PostGIS 3.3's
  // ST_ForcePolygonCCW also reverses every line it is given (a line's direction is data: the way a river flows, a
  // one-way street), and GeoJSON replies carried polylines reversed until it was kept to polygons.
  const winds = l.geometry_type === 'esriGeometryPolygon';
  const orient = !winds ? '' : q.orientation === 'cw' ? 'ST_ForcePolygonCW' : 'ST_ForcePolygonCCW';
  return `${orient}(${generalized(l, q, projected(l, q, ident(GEOMETRY_COLUMN)))})`;
}

/** Whether the reply carries centroids: returnCentroid on a polygon layer (QueryService refuses it for others). */
export const withCentroid = (l: LayerRow, q: QuerySpec) => !!q.centroid && l.geometry_type === 'esriGeometryPolygon';

/**
 * returnCentroid: ArcGIS's label point, a point inside the polygon (a true centroid can fall in a hole or outside a
 * bent shape, where a label or a symbol standing for the polygon would be wrong). Found on the stored shape, so a
 * generalized or quantized geometry cannot move it, then projected: a point costs nothing to reproject.
 */
export function centroidGeometry(l: LayerRow, q: QuerySpec): string {
  return projected(l, q, `ST_PointOnSurface(${ident(GEOMETRY_COLUMN)})`);
}
