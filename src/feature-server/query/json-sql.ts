/**
 * SQL expressions that print values as JSON text exactly as `JSON.stringify` printed them when query replies were built
 * in JavaScript from rows read with node-postgres: the reply must not change by a byte now that PostgreSQL writes it.
 *
 * Numbers are the delicate part: PostgreSQL's float8 text is JavaScript's only within [1e-4, 1e15). Values outside
 * that range, NaN and the infinities (null in JSON) go to arcgis_json_number, a database function (see the JsonNumbers
 * migration), so the rare cases are planned once rather than written out into every statement.
 */
import { GeometryType } from '../../layers/layer-schema';

/** A JSON string literal inside SQL (field names come from the validated definition; quoted all the same). */
export const sqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A float8 as JSON (`null` for NULL). `v` is evaluated more than once, so pass a column or a cheap expression. */
export function jsonNumber(v: string): string {
  return `CASE WHEN abs(${v}) >= 1e-4::float8 AND abs(${v}) < 1e15::float8 THEN (${v})::text WHEN ${v} IS NULL THEN 'null' ELSE arcgis_json_number(${v}) END`;
}

/**
 * A date as JSON, from `v`, its float8 epoch seconds (date_part), and `d`, the timestamptz itself (`null` for NULL).
 * The replies printed the double nearest the exact milliseconds, which extract() gives as numeric: a slow trip
 * through numeric to float8. Within ±4e9 s of 1970 it is taken from `v` instead: `v` is within a quarter microsecond
 * of the exact seconds, so `v * 1e6` rounds to the exact microseconds (a whole double), and dividing that by 1000 is
 * rounded once, to the same nearest double. Other dates take the exact route.
 */
export function jsonDate(v: string, d: string): string {
  return `CASE WHEN ${v} IS NULL THEN 'null' WHEN abs(${v}) < 4e9::float8 THEN (round(${v} * 1e6::float8) / 1000::float8)::text
    ELSE arcgis_json_number((extract(epoch from ${d}) * 1000)::float8) END`;
}

/**
 * A point's coordinate as the replies printed it: PostGIS's GeoJSON text with 15 decimals, parsed and printed by
 * JavaScript. From 10 up to 1e15 a double has at most 15 decimals, and below 10 it may show no more than 15, so PostGIS
 * printed float8's own shortest text, which is JavaScript's too; other coordinates go to arcgis_json_ordinate (see
 * the JsonOrdinate migration). `v` is evaluated more than once.
 */
export function jsonOrdinate(v: string): string {
  return `CASE WHEN abs(${v}) >= 10::float8 AND abs(${v}) < 1e15::float8 THEN ${v}::text
    WHEN abs(${v}) >= 1e-4::float8 AND abs(${v}) < 10::float8 AND length(${v}::text) - strpos(${v}::text, '.') <= 15 THEN ${v}::text
    ELSE arcgis_json_ordinate(${v}) END`;
}

/**
 * PostGIS's GeoJSON coordinate text as JavaScript printed the numbers after parsing it. PostGIS prints the shortest
 * digits rounded to the requested decimals; within [1e-6, 1e15) that is also JavaScript's text for the double it
 * reads as, so only a text with a very small number (`0.000000…`) or an exponent (`1e-9`, `1e+15`) is rewritten.
 */
export function jsCoordinates(coords: string): string {
  return `CASE WHEN strpos(${coords}, 'e') = 0 AND strpos(${coords}, '.000000') = 0 THEN ${coords} ELSE arcgis_json_coordinates(${coords}) END`;
}

/** The coordinates member of PostGIS's GeoJSON text (written with options 0: no crs or bbox member before it). */
export function coordinatesOf(geojson: string): string {
  return `substr(${geojson}, strpos(${geojson}, '"coordinates":') + 14, length(${geojson}) - strpos(${geojson}, '"coordinates":') - 14)`;
}

/**
 * ArcGIS JSON geometry from GeoJSON coordinate text, as geoJsonToEsri shaped it: a point's x and y (an empty point
 * has neither), a multipoint's points, a polyline's paths, and a multipolygon's rings flattened into one list, in
 * the winding PostGIS was asked for.
 */
export function esriGeometry(type: GeometryType, coords: string): string {
  switch (type) {
    case 'esriGeometryPoint':
      return `CASE WHEN ${coords} = '[]' THEN '{}' ELSE '{"x":' || replace(substr(${coords}, 2, length(${coords}) - 2), ',', ',"y":') || '}' END`;
    case 'esriGeometryMultipoint':
      return `'{"points":' || ${coords} || '}'`;
    case 'esriGeometryPolyline':
      return `'{"paths":' || ${coords} || '}'`;
    case 'esriGeometryPolygon':
      // Between two polygons the text reads ']]],[[[' and nowhere else, so dropping one bracket level there and at
      // both ends lists the rings. An empty part ('[]') would break that; such rare texts are split by PostgreSQL.
      return `'{"rings":' || CASE
        WHEN ${coords} = '[]' THEN '[]'
        WHEN strpos(${coords}, '[]') > 0 THEN (SELECT '[' || coalesce(string_agg(ring::text, ',' ORDER BY i, j), '') || ']'
          FROM json_array_elements((${coords})::json) WITH ORDINALITY AS a(polygon, i),
               json_array_elements(a.polygon) WITH ORDINALITY AS b(ring, j))
        ELSE '[' || replace(substr(${coords}, 3, length(${coords}) - 4), ']]],[[[', ']],[[') || ']' END || '}'`;
  }
}
