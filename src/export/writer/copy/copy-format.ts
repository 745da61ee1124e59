/**
 * The SELECTs whose rows are the export file, one piece per feature, for COPY (copy-rows.ts): a CSV line, or a
 * GeoJSON feature. They format every value as GDAL writes it (GDAL 3.6: the CSV driver with STRING_QUOTING=IF_NEEDED,
 * and the GeoJSON driver with RFC7946=YES), so users get the same files as before, only sooner; except that doubles
 * keep every digit they have (COPY_SESSION), and CSV text a spreadsheet would run as a formula is escaped (csvText).
 * Each rule below was read off GDAL's output for the same rows.
 *
 * Number formatting depends on the session (extra_float_digits): COPY_SESSION must be set on the connection that runs the COPY, and the connection must run in UTC (exportConnection does that for GDAL).
 */
import { GEOMETRY_COLUMN, ident, LayerField } from '../../../layers/layer-schema';
import { ResolvedSrs } from '../srs';
import { describedSql, geometryOutput, layerColumns, sqlText, transformed, xyColumns } from '../sql';
import { ExportLayerSource } from '../types';

/**
 * The session of every COPY export (CSV, GeoJSON, Excel's sheets): doubles in their shortest exact form, so a reader
 * gets the very double that is stored. GDAL printed CSV doubles as %.15g, rounding away up to two digits
 * (3.6666666666666665 as 3.66666666666667), and PostgreSQL prints that through glibc's printf, a third of a CSV
 * export's CPU. No parallel workers: the export already runs one session per core
 * over OID ranges, and the planner, seeing the costly formatting, gave each range's COPY two workers behind a Gather
 * Merge (six processes on two cores, every formatted row passed through a tuple queue). No JIT: the formatting
 * expressions are costly enough for PostgreSQL to compile them before the first row, and the rows came no faster
 * compiled.
 */
export const COPY_SESSION = ['SET extra_float_digits = 1', 'SET max_parallel_workers_per_gather = 0', 'SET jit = off'];

/** The rows between two OIDs (inclusive); COPY streams of one layer run in parallel over disjoint ranges. */
export interface OidRange {
  from: number;
  to: number;
}

const lit = (s: string) => sqlText(s);

/** GDAL's quoting (CPLES_CSV): only values holding a quote, comma, semicolon, tab or line break are quoted. */
const CSV_SPECIAL = /[",;\t\r\n]/;
export function csvQuote(s: string): string {
  return CSV_SPECIAL.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** csvText's rule in JavaScript, for text known before the rows (aliases as headers, coded values' descriptions). */
export function csvCell(s: string, escapeFormulas: boolean): string {
  if (escapeFormulas && FORMULA_START.includes(s.charAt(0))) return `"'${s.replace(/"/g, '""')}"`;
  return csvQuote(s);
}

/**
 * Whether text `c` holds one of CSV_SPECIAL's characters, as six strpos() calls: a regular expression converts each
 * value to wide characters first, and cost the backend more.
 */
function csvSpecialSql(c: string): string {
  return `(${[`','`, `'"'`, `';'`, `E'\\t'`, `E'\\r'`, `E'\\n'`].map((ch) => `strpos(${c}, ${ch}) > 0`).join(' OR ')})`;
}

/** The first characters that make a spreadsheet read a cell as a formula (OWASP's CSV injection list). */
export const FORMULA_START = ['=', '+', '-', '@', '\t', '\r'];

/**
 * A text value in CSV: GDAL's quoting; with `escapeFormulas`, OWASP's rule for a value a spreadsheet would run as a
 * formula (FORMULA_START): quoted, with a single quote in front, so it is shown as the text it is. ascii() reads the
 * first character only, which keeps the escaping nearly free.
 */
function csvText(c: string, escapeFormulas: boolean): string {
  const quoted = (lead: string) => `'"${lead}' || replace(${c}, '"', '""') || '"'`;
  const formula = escapeFormulas
    ? `WHEN ascii(${c}) IN (${FORMULA_START.map((ch) => ch.charCodeAt(0)).join(', ')}) THEN ${quoted("''")} `
    : '';
  return `CASE ${formula}WHEN ${csvSpecialSql(c)} THEN ${quoted('')} ELSE ${c}::text END`;
}

/**
 * A double (shortest exact form, COPY_SESSION), with GDAL's spelling of the values that are not numbers ("nan",
 * "inf"). A CASE, not replace() on the text: reading the value twice costs less than two string scans.
 */
function csvDouble(v: string): string {
  return `CASE WHEN ${v} - ${v} = 0 THEN ${v}::text WHEN ${v} = 'Infinity' THEN 'inf' WHEN ${v} = '-Infinity' THEN '-inf' WHEN ${v} IS NOT NULL THEN 'nan' END`;
}

/**
 * printf's %.Ng for each N of `ns`, as columns g{N} of a subquery over `value` (a float8 expression): to_char's %e
 * form is exactly rounded, and %g takes it as it stands for exponents below -4 or from N on, else in fixed notation;
 * trailing zeros go either way. Each level of the subquery builds its strings once per value (OFFSET 0 keeps
 * PostgreSQL from folding them back into every use).
 */
function printfG(value: string, ns: number[]): string {
  const e = ns.map((n) => `trim(to_char(${value}, '9.${'9'.repeat(n - 1)}EEEE')) AS e${n}`);
  const x = ns.map((n) => `e${n}, split_part(e${n}, 'e', 2)::int AS x${n}`);
  const g = ns.map((n) => {
    // Fixed notation has N - 1 - x decimals: none when x = N - 1, and then no zeros may go.
    const fixed = `CASE WHEN x${n} = ${n - 1} THEN e${n}::numeric::text ELSE rtrim(rtrim(e${n}::numeric::text, '0'), '.') END`;
    const exponent = `rtrim(rtrim(split_part(e${n}, 'e', 1), '0'), '.') || 'e' || split_part(e${n}, 'e', 2)`;
    return `CASE WHEN x${n} < -4 OR x${n} >= ${n} THEN ${exponent} ELSE ${fixed} END AS g${n}`;
  });
  return `SELECT ${g.join(', ')} FROM (SELECT ${x.join(', ')} FROM (SELECT ${e.join(', ')} OFFSET 0) AS e OFFSET 0) AS x`;
}

/**
 * A real (float4) in CSV as GDAL writes it: GDAL reads PostgreSQL's shortest text for the float ("0.9975278") as
 * a double and prints that with %.8g. The shortest text is the first of %.6g .. %.9g that reads back as the same
 * float (fewer digits than 6 print the same after %.8g); extra_float_digits does not matter here.
 */
function csvReal(v: string): string {
  // A candidate exactly halfway between two floats reads back as v only by the ties-to-even rule, and PostgreSQL's
  // shortest form (Ryu) leaves it out. Halfway decimals of 9 digits or fewer exist only from 2^22 on.
  const tie = (n: number) => `(abs(${v}) >= 4194304 AND (g${n}::numeric * (1 + 1e-60))::real <> (g${n}::numeric * (1 - 1e-60))::real)`;
  const reads = (n: number) => `g${n}::real = ${v} AND NOT ${tie(n)}`;
  const shortest = `CASE WHEN ${reads(6)} THEN g6 WHEN ${reads(7)} THEN g7 WHEN ${reads(8)} THEN g8 ELSE g9 END`;
  const g8 = `(SELECT g8 FROM (${printfG(`(${shortest})::float8`, [8])}) AS s)`;
  return `CASE WHEN ${v} = 'Infinity' THEN 'inf' WHEN ${v} = '-Infinity' THEN '-inf' WHEN ${v} = 'NaN' THEN 'nan'
    WHEN ${v} IS NOT NULL THEN (SELECT ${g8} FROM (${printfG(`${v}::float8`, [6, 7, 8, 9])}) AS c) END`;
}

/**
 * A real (float4) in GeoJSON as GDAL writes it (OGRFormatFloat): %.8g of the float; if its decimals show "99999"
 * or "00000" (0.15000001), the first of %.7g, %.6g, %.5g that still has a decimal point, shows neither and reads
 * back as the same float; then ".0" when it looks like an integer.
 */
function jsonReal(v: string): string {
  const decimals = (n: number) => `substr(g${n}, strpos(g${n}, '.'))`;
  const clean = (n: number) => `strpos(g${n}, '.') > 0 AND ${decimals(n)} !~ '99999|00000' AND g${n}::real = ${v}`;
  const pick = `CASE WHEN strpos(g8, '.') = 0 OR ${decimals(8)} !~ '99999|00000' THEN g8
    WHEN ${clean(7)} THEN g7 WHEN ${clean(6)} THEN g6 WHEN ${clean(5)} THEN g5 ELSE g8 END`;
  return `(SELECT regexp_replace(${pick}, '^(-?[0-9]+)$', '\\1.0') FROM (${printfG(`${v}::float8`, [8, 7, 6, 5])}) AS g)`;
}

/**
 * How GDAL 3.6 rounds a date's seconds, which it holds as a float (real), to milliseconds: the CSV writer prints the
 * float with %06.3f ('printf', exact binary rounding); the GeoJSON writer computes (int)(seconds * 1000 + 0.5) in float
 * arithmetic ('float'), so 42.1815 s is ".181" in a CSV and ".182" in a GeoJSON file. Both print whole seconds when
 * the float's milliseconds round to zero, and neither carries into the minute (59.9996 s is "60.000").
 */
type MsRounding = 'printf' | 'float';

/**
 * A date-time as GDAL prints it, with `sep` between date and time: whole seconds, or three decimals when the
 * milliseconds are not zero. GDAL's own steps (gdalDateTime) are needed only near a rounding boundary: a float's error
 * on seconds below 60 is under 2 µs, and under 8 µs once multiplied by 1000 in float, so unless the stored microseconds
 * lie within 10 µs of half a millisecond, or the rounding would reach the next second, GDAL's milliseconds are the
 * stored value's own, rounded: to_char of the value, or of the value rounded by timestamptz(3). Checked against
 * ogr2ogr's CSV and GeoJSON for 1.5 million dates (every near-tie microsecond around 21,000 milliseconds, years
 * 1 to 9999): the same text, at about half the cost of GDAL's steps for every date.
 */
/** to_char's pattern up to the minute and its colon: CSV's "2024/01/02 03:04:", GeoJSON's "2024-01-02T03:04:". */
const minutePattern = (sep: string) => `YYYY-MM-DD"${sep}"HH24:MI:`.replace(/-/g, sep === ' ' ? '/' : '-');

function dateTime(v: string, sep: string, rounding: MsRounding): string {
  const format = `${minutePattern(sep)}SS`;
  const ms = `${v}::timestamptz(3)`;
  // How far rounding to milliseconds moved the value, within ±500 µs, as an interval: reading the microseconds
  // instead (date_part, three times) cost half as much again.
  const moved = `(${v} - ${ms})`;
  const gdal = gdalDateTime(v, sep, rounding);
  // Near half a millisecond, GDAL's way; a value rounded to a whole second is whole seconds when rounded down, and
  // GDAL's way when rounded up into the next second. Infinities cannot be subtracted: GDAL's way, which gives NULL.
  return `CASE WHEN NOT isfinite(${v}) OR ${moved} >= '490 microseconds' OR ${moved} <= '-490 microseconds' THEN ${gdal}
    WHEN ${ms} <> ${v}::timestamptz(0) THEN to_char(${ms}, '${format}.MS')
    WHEN ${moved} >= '0' THEN to_char(${v}, '${format}')
    ELSE ${gdal} END`;
}

/** GDAL's way, step by step, from the seconds as a float. */
function gdalDateTime(v: string, sep: string, rounding: MsRounding): string {
  const ymdhm = minutePattern(sep);
  const s = `date_part('second', ${v})::real`;
  // Whether the float's milliseconds are zero (OGR_GET_MS; real arithmetic is float arithmetic in PostgreSQL).
  const frac = `(${s} - trunc(${s})::real) * 1000::real`;
  const whole = rounding === 'printf' ? `floor((${frac})::float8 + 0.5) = 0` : `trunc(${frac} + 0.5::real) = 0`;
  // printf: 1000 × a float is exact as a double, and round() is rint(), ties to even as printf's exact rounding.
  // Printed as integers because to_char of a number costs more.
  const thousandths = rounding === 'printf' ? `round(${s}::float8 * 1000)::int` : `trunc(${s} * 1000::real + 0.5::real)::int`;
  return `to_char(${v}, '${ymdhm}') || CASE WHEN ${whole} THEN lpad(trunc(${s})::int::text, 2, '0')
    ELSE lpad((${thousandths} / 1000)::text, 2, '0') || '.' || lpad((${thousandths} % 1000)::text, 3, '0') END`;
}

/** A field's value as CSV text (NULL for an empty cell). Only text fields can hold a formula: numbers stay numbers. */
function csvValue(f: LayerField, escapeFormulas: boolean): string {
  const c = ident(f.column);
  switch (f.type) {
    case 'esriFieldTypeDouble':
      return csvDouble(c);
    case 'esriFieldTypeSingle':
      return csvReal(c);
    case 'esriFieldTypeString':
      return csvText(c, escapeFormulas);
    case 'esriFieldTypeDate':
      return `${dateTime(c, ' ', 'printf')} || '+00'`;
    default:
      // Integers and GUIDs: PostgreSQL's text is GDAL's.
      return `${c}::text`;
  }
}

/**
 * When a field's member is left out of a feature (null: never): GDAL skips NaN and infinite numbers, and dates at
 * ±infinity.
 */
function leftOutWhen(f: LayerField, c: string): string | null {
  if (f.type === 'esriFieldTypeDate') return `NOT isfinite(${c})`;
  if (f.type === 'esriFieldTypeDouble' || f.type === 'esriFieldTypeSingle') return `${c} - ${c} <> 0 OR ${c} = 'NaN'`;
  return null;
}
const skippable = (f: LayerField) => leftOutWhen(f, ident(f.column)) !== null;

/**
 * A field's value as a JSON member, or '' to leave the member out, after `lead` (", " between members).
 */
function jsonMember(f: LayerField, lead = ', '): string {
  const c = ident(f.column);
  const key = lit(`${lead}${JSON.stringify(f.name)}: `);
  const value = (() => {
    switch (f.type) {
      case 'esriFieldTypeDouble':
        // An integral double keeps its ".0", as GDAL writes it: GDAL (and others) then read the field as real.
        return `CASE WHEN ${c} = trunc(${c}) AND abs(${c}) < 1e15 THEN ${c}::text || '.0' ELSE ${c}::text END`;
      case 'esriFieldTypeSingle':
        return jsonReal(c);
      case 'esriFieldTypeString':
      case 'esriFieldTypeGUID':
      case 'esriFieldTypeGlobalID':
        return `to_json(${c}::text)::text`;
      case 'esriFieldTypeDate':
        return `'"' || ${dateTime(c, 'T', 'float')} || 'Z"'`;
      default:
        return `${c}::text`;
    }
  })();
  const out = leftOutWhen(f, c);
  return `CASE WHEN ${c} IS NULL THEN ${key} || 'null'${out ? ` WHEN ${out} THEN ''` : ''} ELSE ${key} || ${value} END`;
}

const from = (layer: ExportLayerSource) => `${ident(layer.schema)}.${ident(layer.table)}`;
const oidField = (layer: ExportLayerSource) => layer.fields.find((f) => f.type === 'esriFieldTypeOID');
const filter = (layer: ExportLayerSource) => `(${layer.where?.trim() || '1=1'})`;

/** The name rowsOf gives a geometry computed per row; the space keeps it clear of every field's column. */
const GEOMETRY = ident('export geometry');

/**
 * FROM, WHERE (with the range) and ORDER BY: rows in OID order, as ArcGIS lists them and GDAL wrote them. A
 * geometry the line reads several times (projected, rewound) is computed once per row in a subquery, which
 * OFFSET 0 keeps PostgreSQL from folding back into every place that reads it.
 */
function rowsOf(layer: ExportLayerSource, range: OidRange | undefined, geometry: string | null): string {
  const rows = ` FROM ${from(layer)} WHERE ${rangeFilter(layer, range)}${orderOf(layer)}`;
  return geometry === null ? rows : ` FROM (SELECT *, ${geometry} AS ${GEOMETRY}${rows} OFFSET 0) AS r${orderOf(layer)}`;
}

const orderOf = (layer: ExportLayerSource) => {
  const oid = oidField(layer);
  return oid ? ` ORDER BY ${ident(oid.column)}` : '';
};

/** The layer's where clause, and the range's OIDs when there is a range. */
export function rangeFilter(layer: ExportLayerSource, range: OidRange | undefined): string {
  const oid = oidField(layer);
  const where = [filter(layer)];
  if (oid && range) where.push(`${ident(oid.column)} BETWEEN ${Math.trunc(range.from)} AND ${Math.trunc(range.to)}`);
  return where.join(' AND ');
}

/**
 * Like rowsOf, with each row's number in OID order plus `offset`, as text in column `name` (a sheet's row
 * references). The window sorts nothing: the rows come from the OID index in that order, and leave it so.
 */
export function rowsInOrder(
  layer: ExportLayerSource,
  range: OidRange | undefined,
  geometry: string | null,
  name: string,
  offset: number,
): string {
  const geom = geometry === null ? '' : `, ${geometry} AS ${GEOMETRY}`;
  const number = `(row_number() OVER (${orderOf(layer).trim()}) + ${Math.trunc(offset)})::text AS ${name}`;
  return ` FROM (SELECT *${geom}, ${number} FROM ${from(layer)} WHERE ${rangeFilter(layer, range)}) AS r${orderOf(layer)}`;
}

/** How many of the filtered rows a range holds (all of them when there is no range), to number rows across ranges. */
export function rangeCountSql(layer: ExportLayerSource, range: OidRange | undefined): string {
  return `SELECT count(*)::float8 AS n FROM ${from(layer)} WHERE ${rangeFilter(layer, range)}`;
}

/**
 * The CSV header line: WKT first for lines and polygons, x/y last for points, as GDAL lays them out. Headers are
 * field names, or aliases, which are escaped as text is (csvCell).
 */
export function csvHeader(layer: ExportLayerSource, escapeFormulas = true): string {
  const names = layerColumns(layer).map((c) => c.header);
  const geom = geometryOutput(layer, 'csv');
  if (geom === 'wkt') names.unshift('WKT');
  if (geom === 'xy') names.push(...xyColumns(layer));
  return `${names.map((n) => csvCell(n, escapeFormulas)).join(',')}\n`;
}

/**
 * One CSV line per row. WKT comes from PostGIS with GDAL's spacing ("MULTIPOLYGON (((..."), quoted when it holds a
 * comma (more than one vertex); its coordinates are the shortest form that reads back exactly, where GDAL rounds
 * them to 15 significant digits. Text is escaped against formulas unless `escapeFormulas` is false (csvText).
 */
export function csvLinesSql(layer: ExportLayerSource, target: ResolvedSrs | null, range?: OidRange, escapeFormulas = true): string {
  const shape = ident(GEOMETRY_COLUMN);
  const geom = geometryOutput(layer, 'csv');
  const projected = target && geom !== 'none' ? transformed(shape, layer, target) : null;
  const g = projected ? GEOMETRY : shape;
  // A code's description is its CSV text, made once per coded value; a value outside the domain is written as itself
  // where it stands alone ('description') and left empty beside its code ('both').
  const cells = layerColumns(layer).map((c) =>
    c.value === 'code'
      ? csvValue(c.field, escapeFormulas)
      : describedSql(c, (d) => lit(csvCell(d, escapeFormulas)), layer.domainValues === 'both' ? 'NULL' : csvValue(c.field, escapeFormulas)),
  );
  if (geom === 'wkt') {
    const wkt = `regexp_replace(ST_AsText(${g}), '^([A-Z]+)\\(', '\\1 (')`;
    cells.unshift(`CASE WHEN ST_NPoints(${g}) > 1 THEN '"' || ${wkt} || '"' ELSE ${wkt} END`);
  }
  if (geom === 'xy') cells.push(csvDouble(`ST_X(${g})`), csvDouble(`ST_Y(${g})`));
  const line = cells.map((c) => `coalesce(${c}, '')`).join(` || ',' || `);
  return `SELECT ${line || "''"} || E'\\n'${rowsOf(layer, range, projected)}`;
}

/** The GeoJSON document around the features, spaced as GDAL writes it. */
export function geojsonHead(layerName: string): string {
  return `{\n"type": "FeatureCollection",\n"name": ${JSON.stringify(layerName)},\n"features": [\n`;
}
export const GEOJSON_TAIL = '\n]\n}\n';
/** Every feature starts with the separator from the one before; the first feature of the file drops it. */
export const GEOJSON_SEPARATOR = ',\n';

/**
 * The geometry as RFC 7946 wants it, and GDAL's RFC7946 mode writes it: WGS84 with exterior rings counter-clockwise
 * (here), 7 decimals and a multi-part geometry of one part written as that part (geojsonFeaturesSql). GDAL also
 * cuts geometries at the antimeridian; layers where that could happen are left to GDAL (antimeridianSql).
 */
function rfc7946Geometry(layer: ExportLayerSource): string {
  const g = layer.srid === 4326 ? ident(GEOMETRY_COLUMN) : `ST_Transform(${ident(GEOMETRY_COLUMN)}, 4326)`;
  return layer.geometryType === 'esriGeometryPolygon' ? `ST_ForcePolygonCCW(${g})` : g;
}

/** One GeoJSON feature per row, properties in field order. */
export function geojsonFeaturesSql(layer: ExportLayerSource, range?: OidRange): string {
  const [first, ...rest] = layer.fields;
  // Members are separated by ", ". A first member that is always written (an OBJECTID, say) goes without; when it
  // can be left out, every member starts with ", " and the first one written gives it up: substr, which scans the
  // whole text character by character, which costs.
  const fixedFirst = first && !skippable(first);
  const members = fixedFirst ? [jsonMember(first, ''), ...rest.map((f) => jsonMember(f))] : layer.fields.map((f) => jsonMember(f));
  const joined = members.join(' || ');
  const properties = !members.length ? `'{ }'` : fixedFirst ? `'{ ' || ${joined} || ' }'` : `'{ ' || substr(${joined}, 3) || ' }'`;
  const withGeometry = geometryOutput(layer, 'geojson') !== 'none';
  const point = layer.geometryType === 'esriGeometryPoint';
  const wgs84 = rfc7946Geometry(layer);
  // A stored WGS84 point is written as it is: no per-row subquery.
  const computed = withGeometry && !(point && wgs84 === ident(GEOMETRY_COLUMN)) ? wgs84 : null;
  const g0 = computed ? GEOMETRY : wgs84;
  const g = point ? g0 : `CASE WHEN ST_NumGeometries(${g0}) = 1 THEN ST_GeometryN(${g0}, 1) ELSE ${g0} END`;
  const geometry = withGeometry ? `coalesce(ST_AsGeoJSON(${g}, 7, 0), 'null')` : `'null'`;
  const head = lit(`${GEOJSON_SEPARATOR}{ "type": "Feature", "properties": `);
  return `SELECT ${head} || ${properties} || ', "geometry": ' || ${geometry} || ' }'${rowsOf(layer, range, computed)}`;
}

/** Web Mercator's x at ±180°: its x scales linearly with longitude. */
const MERCATOR_HALF_WORLD = 20037508.342789244;

/**
 * Whether some feature lies outside [-180, 180] x [-90, 90] or spans more than 180° of longitude once in WGS84:
 * where GDAL's RFC 7946 writer cuts the geometry at the antimeridian (or refuses it), which PostGIS does not do.
 * Such a layer is written by GDAL. WGS84 and Web Mercator layers are checked on their stored coordinates, through
 * the spatial index: only boxes beyond the limits, or across the prime meridian (a geometry wider than 180° within
 * the limits spans it), are candidates. Other SRs are checked after projecting every feature.
 */
export function antimeridianSql(layer: ExportLayerSource): string {
  const shape = ident(GEOMETRY_COLUMN);
  const projected = layer.srid !== 4326 && layer.srid !== 3857;
  const g = projected ? `ST_Transform(${shape}, 4326)` : shape;
  const xMax = layer.srid === 3857 ? MERCATOR_HALF_WORLD : 180;
  // Web Mercator cannot hold a latitude beyond ±85.06°.
  const yMax = layer.srid === 3857 ? null : 90;
  const y = yMax === null ? '' : ` OR ST_YMin(${g}) < -${yMax} OR ST_YMax(${g}) > ${yMax}`;
  const crosses = `ST_XMin(${g}) < -${xMax} OR ST_XMax(${g}) > ${xMax} OR ST_XMax(${g}) - ST_XMin(${g}) > ${xMax}${y}`;
  let indexed = '';
  if (!projected) {
    const far = 1e15;
    const box = (x0: number, y0: number, x1: number, y1: number) =>
      `${shape} && ST_MakeEnvelope(${x0}, ${y0}, ${x1}, ${y1}, ${layer.srid})`;
    const boxes = [box(xMax, -far, far, far), box(-far, -far, -xMax, far), box(0, -far, 0, far)];
    if (yMax !== null) boxes.push(box(-far, yMax, far, far), box(-far, -far, far, -yMax));
    indexed = ` AND (${boxes.join(' OR ')})`;
  }
  return `SELECT EXISTS (SELECT 1 FROM ${from(layer)} WHERE ${filter(layer)}${indexed} AND (${crosses})) AS crosses`;
}

/** The layer's first and last OID among the filtered rows, to split it into ranges. */
export function oidBoundsSql(layer: ExportLayerSource): string | null {
  const oid = oidField(layer);
  if (!oid) return null;
  const c = ident(oid.column);
  return `SELECT min(${c})::float8 AS lo, max(${c})::float8 AS hi FROM ${from(layer)} WHERE ${filter(layer)}`;
}
