/**
 * SQL expressions that print values as JSON text exactly as `JSON.stringify` printed them when query replies were built
 * in JavaScript from rows read with node-postgres: the reply must not change by a byte now that PostgreSQL writes it.
 *
 * Numbers are the delicate part. PostgreSQL's float8 output and V8 both print the shortest digits that read back as
 * the same double, but they switch to exponent notation at different magnitudes: PostgreSQL outside [1e-4, 1e15),
 * JavaScript outside [1e-6, 1e21), and JavaScript writes `1e-7` where PostgreSQL writes `1e-07`. Values outside the
 * common range are rewritten from PostgreSQL's digits; NaN and the infinities, which JSON cannot hold, become null.
 */
import { GeometryType } from '../layer-schema';

/** A JSON string literal inside SQL (field names come from the validated definition; quoted all the same). */
export const sqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * Beyond 2^53 PostgreSQL's digits can be one longer than V8's: PostgreSQL never prints a midpoint to the neighbouring
 * double, V8 does when the significand is even (the midpoint then reads back as this double, as PostgreSQL's own
 * input confirms). Such a midpoint is an integer ending in zero, so it is the digits with the last one dropped or
 * raised; whichever reads back as the same double is what JavaScript prints.
 */
function beyond2p53(v: string): string {
  const t = `(${v})::text`;
  const digits = `(length(split_part(${t}, 'e', 1)) - (CASE WHEN ${v} < 0 THEN 1 ELSE 0 END) - (CASE WHEN strpos(${t}, '.') > 0 THEN 1 ELSE 0 END))`;
  const scale = `(split_part(${t}, 'e', 2)::int - ${digits} + 2)`;
  const down = `trunc(${t}::numeric, -${scale})`;
  const up = `(${down} + sign(${v})::numeric * ('1e' || ${scale})::numeric)`;
  // Raised past the largest double, the digits would not read back at all (PostgreSQL refuses rather than overflow).
  const shorter = `CASE WHEN ${down}::float8 = ${v} THEN ${down} WHEN abs(${up}) < 1.797693134862316e308 AND ${up}::float8 = ${v} THEN ${up} END`;
  const fixed = `coalesce(${shorter}, ${t}::numeric)::text`;
  // From 1e21 on JavaScript writes d.ddde+x: the shorter integer's digits without its trailing zeros.
  const c = `abs(${shorter})::text`;
  const exponent = `(CASE WHEN ${v} < 0 THEN '-' ELSE '' END || left(${c}, 1)
      || CASE WHEN length(rtrim(${c}, '0')) > 1 THEN '.' || substr(rtrim(${c}, '0'), 2) ELSE '' END || 'e+' || (length(${c}) - 1))`;
  return `CASE WHEN abs(${v}) < 1e21::float8 THEN ${fixed} ELSE coalesce(${exponent}, ${t}) END`;
}

/**
 * A float8 as JSON (`null` for NULL). `v` is evaluated more than once, so pass a column or a cheap expression.
 * Within [1e-4, 1e15) PostgreSQL's text already is JavaScript's; that common case costs two comparisons.
 */
export function jsonNumber(v: string): string {
  return `CASE
    WHEN abs(${v}) >= 1e-4::float8 AND abs(${v}) < 1e15::float8 THEN (${v})::text
    WHEN ${v} IS NULL THEN 'null'
    WHEN ${v} = 0 THEN '0'
    WHEN NOT abs(${v}) < 'Infinity'::float8 THEN 'null'
    WHEN abs(${v}) < 1e-6::float8 THEN replace((${v})::text, 'e-0', 'e-')
    WHEN abs(${v}) < 9007199254740992::float8 THEN (${v})::text::numeric::text
    ELSE ${beyond2p53(v)} END`;
}

/**
 * Rewrites every number in PostGIS's GeoJSON coordinate text as JavaScript prints the double it reads as. PostGIS
 * prints the shortest digits rounded to the requested decimals; within [1e-6, 1e15) that text is what
 * `JSON.stringify(JSON.parse(text))` gives back, so only texts with a very small number (`0.000000…`) or an
 * exponent (`1e-9`, `1e+15`) take the per-number rewrite.
 */
export function jsCoordinates(coords: string): string {
  return `CASE WHEN strpos(${coords}, 'e') = 0 AND strpos(${coords}, '.000000') = 0 THEN ${coords} ELSE
    (SELECT string_agg(CASE WHEN tok ~ '^[-0-9]' THEN ${jsonNumber('tok::float8')} ELSE tok END, '' ORDER BY i)
       FROM regexp_matches(${coords}, '[^][,]+|[][,]+', 'g') WITH ORDINALITY AS m(parts, i), LATERAL (SELECT parts[1] AS tok) p) END`;
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
