/**
 * The statement that writes one page of a query reply as JSON text: the features array's contents, comma-separated,
 * plus the number of rows read (one more than the page when more remain). Replies used to be built in JavaScript
 * from rows; this writes the same bytes in PostgreSQL, so rows never cross into the event loop one by one.
 */
import { GEOMETRY_COLUMN, ident, LayerField } from '../layer-schema';
import type { LayerRow } from '../features.repository';
import type { QuerySpec } from '../feature-data.repository';
import { coordinatesOf, esriGeometry, jsCoordinates, jsonNumber, sqlText } from './json-sql';

export type PageFormat = 'esri' | 'geojson';

/** What the page reads from the table for a field, as the old row reader did: dates as epoch ms, GUIDs braced. */
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
 * Text pieces joined with concat() rather than a chain of ||, which copies the growing row once per piece; concat()
 * takes at most 100 arguments, so wide layers nest it.
 */
function joined(parts: string[]): string {
  if (parts.length === 1) return parts[0];
  if (parts.length <= 90) return `concat(${parts.join(', ')})`;
  const chunks: string[] = [];
  for (let i = 0; i < parts.length; i += 90) chunks.push(joined(parts.slice(i, i + 90)));
  return joined(chunks);
}

/** `"name":value,...` for the page's fields, in outFields order, as an object's members. */
function members(fields: LayerField[]): string[] {
  return fields.flatMap((f, i) => [sqlText(`${i ? ',' : ''}${JSON.stringify(f.name)}:`), json(f, `v${i}`)]);
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
    // The GeoJSON text the replies were built from before: 15 decimals, exteriors clockwise for ArcGIS and
    // counter-clockwise for GeoJSON. PostGIS's counter-clockwise also reverses lines, and GeoJSON replies always carried
    // polylines that way; points are left alone by both. Options 0 leave out the crs member, which no reply carried.
    const winds = l.geometry_type === 'esriGeometryPolygon' || l.geometry_type === 'esriGeometryPolyline';
    const orient = !winds ? '' : q.orientation === 'cw' ? 'ST_ForcePolygonCW' : 'ST_ForcePolygonCCW';
    const geom = q.outSrid === l.srid ? ident(GEOMETRY_COLUMN) : `ST_Transform(${ident(GEOMETRY_COLUMN)}, ${q.p.add(q.outSrid)}::int)`;
    values.push(`ST_AsGeoJSON(${orient}(${geom}), 15, 0) AS gj`);
  }
  const attributes = joined([`'{'`, ...members(q.outFields), `'}'`]);
  let feature: string;
  if (format === 'geojson') {
    const geometry = withGeometry ? `coalesce(left(gj, strpos(gj, '"coordinates":') + 13) || coords || '}', 'null')` : `'null'`;
    feature = joined([`'{"type":"Feature","id":'`, `oid::text`, `',"geometry":'`, geometry, `',"properties":'`, attributes, `'}'`]);
  } else if (withGeometry) {
    const geometry = `coalesce(${esriGeometry(l.geometry_type!, 'coords')}, 'null')`;
    feature = joined([`'{"attributes":'`, attributes, `',"geometry":'`, geometry, `'}'`]);
  } else {
    feature = joined([`'{"attributes":'`, attributes, `'}'`]);
  }
  // Every level is fenced with OFFSET 0, so its columns are computed once per row and only for the rows of the page:
  // unfenced, the planner would copy the GeoJSON text's expression into every expression that reads it.
  let rows = `(SELECT ${values.join(', ')} FROM (SELECT ${read.join(', ')} ${from} ORDER BY ${order} LIMIT ${q.p.add(q.limit + 1)} OFFSET ${q.p.add(q.offset)}) p OFFSET 0) p`;
  if (withGeometry) {
    rows = `(SELECT *, ${jsCoordinates('c')} AS coords FROM (SELECT *, ${coordinatesOf('gj')} AS c FROM ${rows} OFFSET 0) p OFFSET 0) p`;
  }
  return `SELECT count(*)::int AS n, coalesce(string_agg(f, ',' ORDER BY ord) FILTER (WHERE ord <= ${q.p.add(q.limit)}), '') AS features
    FROM (SELECT row_number() OVER () AS ord, ${feature} AS f FROM ${rows}) x`;
}
