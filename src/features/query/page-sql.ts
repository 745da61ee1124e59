/**
 * The statement that writes one page of a query reply as JSON text: the features array's contents, comma-separated,
 * plus the number of rows read (one more than the page when more remain). Replies used to be built in JavaScript
 * from rows; this writes the same bytes in PostgreSQL, so rows never cross into the event loop one by one.
 */
import { GEOMETRY_COLUMN, GeometryType, ident, LayerField } from '../layer-schema';
import type { LayerRow } from '../features.repository';
import type { QuerySpec } from '../feature-data.repository';
import { coordinatesOf, esriGeometry, jsCoordinates, jsonNumber, jsonOrdinate, sqlText } from './json-sql';

export type PageFormat = 'esri' | 'geojson';

/** What the page reads for a field, as the old row reader did: dates in epoch ms, GUIDs braced, big integers as doubles. */
function prepared(f: LayerField, c: string): string {
  switch (f.type) {
    case 'esriFieldTypeDate':
      return `(extract(epoch from ${c}) * 1000)::float8`;
    case 'esriFieldTypeBigInteger':
      return `${c}::float8`;
    case 'esriFieldTypeSingle':
      // node-postgres read real through its text; the double nearest that text is what JavaScript printed.
      return `${c}::text::float8`;
    case 'esriFieldTypeGUID':
    case 'esriFieldTypeGlobalID':
      return `'"{' || upper(${c}::text) || '}"'`;
    default:
      return c;
  }
}

/** A prepared value as JSON text, never SQL NULL. */
function json(f: LayerField, v: string): string {
  switch (f.type) {
    case 'esriFieldTypeDate':
    case 'esriFieldTypeBigInteger':
    case 'esriFieldTypeSingle':
    case 'esriFieldTypeDouble':
      return jsonNumber(v);
    case 'esriFieldTypeString':
      return `coalesce(to_json(${v})::text, 'null')`;
    default:
      return `coalesce(${v}::text, 'null')`;
  }
}

/**
 * Text pieces joined: || is the cheapest, but a long chain copies the growing row once per piece, so wide layers
 * join groups of 32 with concat() (at most 100 arguments, nested beyond).
 */
function joined(parts: string[]): string {
  if (parts.length <= 32) return parts.length === 1 ? parts[0] : `(${parts.join(' || ')})`;
  const groups: string[] = [];
  for (let i = 0; i < parts.length; i += 32) groups.push(joined(parts.slice(i, i + 32)));
  while (groups.length > 90) groups.splice(0, 90, `concat(${groups.slice(0, 90).join(', ')})`);
  return `concat(${groups.join(', ')})`;
}

/** `{"name":value,...}` for the page's fields, in outFields order. */
function attributes(fields: LayerField[]): string {
  const members = fields.flatMap((f, i) => [sqlText(`${i ? ',' : ''}${JSON.stringify(f.name)}:`), json(f, `v${i}`)]);
  return joined([`'{'`, ...members, `'}'`]);
}

/**
 * The geometry as the reply carries it, or SQL NULL. Points are written from their coordinates `x` and `y` (NULL for
 * an empty point, which carried no members); other shapes from PostGIS's GeoJSON text `gj` with 15 decimals, which the
 * replies were built from, reshaped as text with numbers rewritten only where JavaScript prints them differently.
 */
function geometry(type: GeometryType, format: PageFormat): string {
  if (type === 'esriGeometryPoint') {
    const [x, y] = [jsonOrdinate('x'), jsonOrdinate('y')];
    return format === 'esri'
      ? `CASE WHEN x IS NOT NULL THEN '{"x":' || ${x} || ',"y":' || ${y} || '}' WHEN g IS NOT NULL THEN '{}' END`
      : `CASE WHEN x IS NOT NULL THEN '{"type":"Point","coordinates":[' || ${x} || ',' || ${y} || ']}'
          WHEN g IS NOT NULL THEN '{"type":"Point","coordinates":[]}' END`;
  }
  return format === 'esri' ? esriGeometry(type, 'coords') : `left(gj, strpos(gj, '"coordinates":') + 13) || coords || '}'`;
}

/**
 * @param from  the filtered table, `FROM … WHERE …`, whose parameters are already in `q.p`
 * @param order the ORDER BY list, ending with the object id so pages are stable
 * @param oid   the object id column
 */
export function pageSql(l: LayerRow, q: QuerySpec, format: PageFormat, from: string, order: string, oid: string): string {
  const withGeometry = q.returnGeometry && !!l.geometry_type;
  // Read under names no field can have ('#' is not allowed in one), so ORDER BY always means the table's columns.
  const read = [...q.outFields.map((f, i) => `${ident(f.column)} AS "#${i}"`), `${oid} AS "#oid"`];
  const values = [...q.outFields.map((f, i) => `${prepared(f, `"#${i}"`)} AS v${i}`), '"#oid" AS oid'];
  if (withGeometry) {
    read.push(ident(GEOMETRY_COLUMN));
    // Exteriors clockwise for ArcGIS, counter-clockwise for GeoJSON. PostGIS's counter-clockwise also reverses lines,
    // and GeoJSON replies always carried polylines that way; points are left alone by both.
    const winds = l.geometry_type === 'esriGeometryPolygon' || l.geometry_type === 'esriGeometryPolyline';
    const orient = !winds ? '' : q.orientation === 'cw' ? 'ST_ForcePolygonCW' : 'ST_ForcePolygonCCW';
    const g = q.outSrid === l.srid ? ident(GEOMETRY_COLUMN) : `ST_Transform(${ident(GEOMETRY_COLUMN)}, ${q.p.add(q.outSrid)}::int)`;
    values.push(`${orient}(${g}) AS g`);
  }
  // Each level is fenced with OFFSET 0 so what it adds is computed once per row, and only for the rows of the page.
  const page = `SELECT ${read.join(', ')} ${from} ORDER BY ${order} LIMIT ${q.p.add(q.limit + 1)} OFFSET ${q.p.add(q.offset)}`;
  const levels = [values.join(', ')];
  if (withGeometry && l.geometry_type === 'esriGeometryPoint') levels.push('*, ST_X(g) AS x, ST_Y(g) AS y');
  else if (withGeometry)
    levels.push('*, ST_AsGeoJSON(g, 15, 0) AS gj', `*, ${coordinatesOf('gj')} AS c`, `*, ${jsCoordinates('c')} AS coords`);
  const rows = levels.reduce((inner, cols) => `(SELECT ${cols} FROM ${inner} OFFSET 0) p`, `(${page}) p`);
  const shape = withGeometry ? `coalesce(${geometry(l.geometry_type!, format)}, 'null')` : `'null'`;
  const feature =
    format === 'geojson'
      ? joined([`'{"type":"Feature","id":'`, `oid::text`, `',"geometry":'`, shape, `',"properties":'`, attributes(q.outFields), `'}'`])
      : joined([`'{"attributes":'`, attributes(q.outFields), ...(withGeometry ? [`',"geometry":'`, shape] : []), `'}'`]);
  // row_number() counts the rows as the levels hand them on, in the page's order; the one past the page is left out
  // of the text and only counted.
  return `SELECT count(*)::int AS n, coalesce(string_agg(f, ',' ORDER BY ord) FILTER (WHERE ord <= ${q.p.add(q.limit)}), '') AS features
    FROM (SELECT row_number() OVER () AS ord, ${feature} AS f FROM ${rows}) x`;
}
