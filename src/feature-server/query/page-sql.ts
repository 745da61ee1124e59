/**
 * The statement that writes one page of a query reply as JSON text: the features array's contents, comma-separated,
 * plus the number of rows read (one more than the page when more remain). Replies used to be built in JavaScript
 * from rows; this writes the same bytes in PostgreSQL, so rows never cross into the event loop one by one. An f=pbf
 * page comes as one row too, of binary columns that feature-writer.ts encodes from (page-columns.ts): read as one row
 * per feature, node-postgres spent a noticeable share of the page on them, and as JSON text, printing the numbers and
 * parsing them back cost more than the encoding.
 */
import { GEOMETRY_COLUMN, GeometryType, ident, LayerField } from '../../layers/layer-schema';
import { LayerRow } from '../../layers/types';
import { QuerySpec } from './query-spec';
import { gridGeoJson } from '../pbf/grid';
import { COLUMN_KIND, ColumnKind } from '../pbf/page-columns';
import { centroidGeometry, outputGeometry, withCentroid } from './geometry-sql';
import { coordinatesOf, esriGeometry, jsCoordinates, jsonDate, jsonNumber, jsonOrdinate, sqlText } from './json-sql';

export type PageFormat = 'esri' | 'geojson' | 'pbf';

/**
 * What the page reads for a field, as the old row reader did: GUIDs braced, big integers as doubles; dates as
 * float8 epoch seconds (jsonDate prints the milliseconds from them).
 */
function prepared(f: LayerField, c: string, format: PageFormat): string {
  switch (f.type) {
    case 'esriFieldTypeDate':
      // pbf carries whole milliseconds, rounded from the exact value.
      return format === 'pbf' ? `round(extract(epoch from ${c}) * 1000)::float8` : `date_part('epoch', ${c})`;
    case 'esriFieldTypeBigInteger':
      return `${c}::float8`;
    case 'esriFieldTypeSingle':
      // node-postgres read real through its text; the double nearest that text is what JavaScript printed.
      return `${c}::text::float8`;
    case 'esriFieldTypeGUID':
    case 'esriFieldTypeGlobalID':
      return format === 'pbf' ? `textsend('{' || upper(${c}::text) || '}')` : `'"{' || upper(${c}::text) || '}"'`;
    case 'esriFieldTypeString':
      return format === 'pbf' ? `textsend(${c})` : c;
    default:
      return c;
  }
}

/** The prepared value `v<i>` as JSON text, never SQL NULL; a date's column is also read as `d<i>`. */
function json(f: LayerField, i: number): string {
  const v = `v${i}`;
  switch (f.type) {
    case 'esriFieldTypeDate':
      return jsonDate(v, `d${i}`);
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
  const members = fields.flatMap((f, i) => [sqlText(`${i ? ',' : ''}${JSON.stringify(f.name)}:`), json(f, i)]);
  return joined([`'{'`, ...members, `'}'`]);
}

/**
 * The geometry as the reply carries it, or SQL NULL. Points are written from their coordinates `x` and `y` (NULL for
 * an empty point, which carried no members); other shapes, and points with fewer decimals (geometryPrecision), from
 * PostGIS's GeoJSON text `gj`, with 15 decimals unless fewer were asked for, which the replies were built from,
 * reshaped as text with numbers rewritten only where JavaScript prints them differently.
 */
function geometry(type: GeometryType, format: PageFormat, fromXy: boolean): string {
  if (fromXy) {
    const [x, y] = [jsonOrdinate('x'), jsonOrdinate('y')];
    return format === 'esri'
      ? `CASE WHEN x IS NOT NULL THEN '{"x":' || ${x} || ',"y":' || ${y} || '}' WHEN g IS NOT NULL THEN '{}' END`
      : `CASE WHEN x IS NOT NULL THEN '{"type":"Point","coordinates":[' || ${x} || ',' || ${y} || ']}'
          WHEN g IS NOT NULL THEN '{"type":"Point","coordinates":[]}' END`;
  }
  return format === 'esri' ? esriGeometry(type, 'coords') : `left(gj, strpos(gj, '"coordinates":') + 13) || coords || '}'`;
}

/** The `centroid` member (with its leading comma) from the centroid's coordinates, or nothing for an empty polygon. */
const centroidMember = `CASE WHEN ccoords IS NULL OR ccoords = '[]' THEN '' ELSE ',"centroid":' || ${esriGeometry('esriGeometryPoint', 'ccoords')} END`;

/** What pageRows hands on besides the rows: whether they carry the geometry, and the centroid, and how. */
interface PageShape {
  rows: string;
  withGeometry: boolean;
  centroids: boolean;
  /** Points read as `x` and `y` (no geometryPrecision, not quantized). */
  fromXy: boolean;
}

/**
 * The page's rows, with the prepared fields `v0…vn`, `oid`, the reply's geometry `g` and centroid `ct` when returned,
 * and what they are printed from: `gq`/`cq` on the quantization grid, `x`/`y` for points, or the GeoJSON text and
 * its coordinates (`gj`, `c`, `coords`; `cgj`, `cc`, `ccoords` for the centroid).
 */
function pageRows(l: LayerRow, q: QuerySpec, window: string, oid: string, format: PageFormat, carry?: string): PageShape {
  const withGeometry = q.returnGeometry && !!l.geometry_type;
  const centroid = withCentroid(l, q);
  // Read under names no field can have ('#' is not allowed in one), so ORDER BY always means the table's columns.
  const read = [...q.outFields.map((f, i) => `${ident(f.column)} AS "#${i}"`), `${oid} AS "#oid"`];
  const values = [...q.outFields.map((f, i) => `${prepared(f, `"#${i}"`, format)} AS v${i}`), '"#oid" AS oid'];
  if (carry) {
    read.push(`${carry} AS "#carry"`);
    values.push('"#carry" AS carry');
  }
  // Only the JSON replies print a date from its column (pbf carries the prepared milliseconds).
  if (format !== 'pbf') q.outFields.forEach((f, i) => f.type === 'esriFieldTypeDate' && values.push(`"#${i}" AS d${i}`));
  if (withGeometry || centroid) read.push(ident(GEOMETRY_COLUMN));
  if (withGeometry) values.push(`${outputGeometry(l, q)} AS g`);
  if (centroid) values.push(`${centroidGeometry(l, q)} AS ct`);
  // Each level is fenced with OFFSET 0 so what it adds is computed once per row, and only for the rows of the page.
  const page = `SELECT ${read.join(', ')} ${window}`;
  const levels = [values.join(', ')];
  const fromXy = withGeometry && l.geometry_type === 'esriGeometryPoint' && !q.quantize && q.decimals === undefined;
  if (q.quantize) {
    const grid: string[] = [];
    // f=pbf reads a point as its two numbers in the reply's reference, which feature-writer.ts puts on the grid as
    // PostGIS would (grid.ts, pointOnGrid): printing it as GeoJSON, or moving and snapping it here, costs more.
    const xy = format === 'pbf' && withGeometry && l.geometry_type === 'esriGeometryPoint';
    if (xy && q.outSrid === l.srid) levels[0] += `, ST_X(${ident(GEOMETRY_COLUMN)}) AS gx, ST_Y(${ident(GEOMETRY_COLUMN)}) AS gy`;
    else if (xy) grid.push('ST_X(g) AS gx, ST_Y(g) AS gy');
    else if (withGeometry) grid.push(`${gridGeoJson('g', q.quantize, q.p)} AS gq`);
    if (centroid) grid.push(`${gridGeoJson('ct', q.quantize, q.p)} AS cq`);
    if (grid.length) levels.push(`*, ${grid.join(', ')}`);
  } else if (fromXy) {
    // Points in the layer's own reference are read where the shape is; a reprojected one is reprojected once.
    if (q.outSrid === l.srid) levels[0] += `, ST_X(${ident(GEOMETRY_COLUMN)}) AS x, ST_Y(${ident(GEOMETRY_COLUMN)}) AS y`;
    else levels.push('*, ST_X(g) AS x, ST_Y(g) AS y');
  } else {
    const digits = q.decimals === undefined ? '15' : `${q.p.add(q.decimals)}::int`;
    const texts = [...(withGeometry ? [['g', 'gj', 'c', 'coords']] : []), ...(centroid ? [['ct', 'cgj', 'cc', 'ccoords']] : [])];
    if (texts.length)
      levels.push(
        `*, ${texts.map(([g, gj]) => `ST_AsGeoJSON(${g}, ${digits}, 0) AS ${gj}`).join(', ')}`,
        `*, ${texts.map(([, gj, c]) => `${coordinatesOf(gj)} AS ${c}`).join(', ')}`,
        `*, ${texts.map(([, , c, coords]) => `${jsCoordinates(c)} AS ${coords}`).join(', ')}`,
      );
  }
  const rows = levels.reduce((inner, cols) => `(SELECT ${cols} FROM ${inner} OFFSET 0) p`, `(${page}) p`);
  return { rows, withGeometry, centroids: centroid, fromXy };
}

/**
 * @param window the page's rows, `FROM … WHERE … ORDER BY … LIMIT …` reading `limit + 1`, parameters already in `q.p`
 * @param oid    the object id column
 */
export function pageSql(l: LayerRow, q: QuerySpec, format: PageFormat, window: string, oid: string): string {
  const { rows, withGeometry, centroids, fromXy } = pageRows(l, q, window, oid, format);
  if (format === 'pbf') return pbfPageSql(l, q, rows, withGeometry, centroids);
  const shape = withGeometry ? `coalesce(${geometry(l.geometry_type!, format, fromXy)}, 'null')` : `'null'`;
  const feature =
    format === 'geojson'
      ? joined([`'{"type":"Feature","id":'`, `oid::text`, `',"geometry":'`, shape, `',"properties":'`, attributes(q.outFields), `'}'`])
      : esriFeature(q, withGeometry ? shape : undefined, centroids);
  // The levels hand the rows on in the page's order, with no join or sort between them and the aggregate, which
  // takes them as they come (an ORDER BY ord here cost a sort of the texts); row_number() counts them in that order,
  // and the one past the page is left out of the text and only counted, and its object id is where the next page
  // starts (query/resume-points.ts).
  const limit = q.p.add(q.limit);
  return `SELECT count(*)::int AS n, coalesce(string_agg(f, ',') FILTER (WHERE ord <= ${limit}), '') AS features,
      min(oid) FILTER (WHERE ord > ${limit}) AS next
    FROM (SELECT row_number() OVER () AS ord, oid, ${feature} AS f FROM ${rows}) x`;
}

/** An f=json feature's text: its attributes, its geometry's text (`shape`) when returned, its centroid when asked for. */
function esriFeature(q: QuerySpec, shape: string | undefined, centroids: boolean): string {
  return joined([
    `'{"attributes":'`,
    attributes(q.outFields),
    ...(shape ? [`',"geometry":'`, shape] : []),
    ...(centroids ? [centroidMember] : []),
    `'}'`,
  ]);
}

/**
 * The f=json features of `window` one row each, in its order (`ord`), each with the value of the window's column
 * `carry` (queryRelatedRecords: the object id the feature is related to, which groups the reply).
 */
export function featureRowsSql(l: LayerRow, q: QuerySpec, window: string, oid: string, carry: string): string {
  const { rows, withGeometry, centroids, fromXy } = pageRows(l, q, window, oid, 'esri', carry);
  const shape = withGeometry ? `coalesce(${geometry(l.geometry_type!, 'esri', fromXy)}, 'null')` : undefined;
  return `SELECT row_number() OVER () AS ord, carry, ${esriFeature(q, shape, centroids)} AS f FROM ${rows}`;
}

/**
 * An f=pbf page as page-columns.ts describes it: a binary column per field, the geometry and the centroid, each the
 * values of the page's features in order (string_agg skips nulls), and the nulls column for the features that have one.
 */
function pbfPageSql(l: LayerRow, q: QuerySpec, rows: string, withGeometry: boolean, centroids: boolean): string {
  const kinds = q.outFields.map((f) => COLUMN_KIND[f.type]);
  const slots = kinds.map((kind, i) => ({ read: `v${i}`, value: pbfColumn(kind, `v${i}`), isNull: `v${i} IS NULL` }));
  if (withGeometry)
    slots.push(
      l.geometry_type === 'esriGeometryPoint'
        ? { read: 'gx, gy', value: 'float8send(gx) || float8send(gy)', isNull: 'gx IS NULL' }
        : { read: 'gq', value: pbfText('gq'), isNull: 'gq IS NULL' },
    );
  if (centroids) slots.push({ read: 'cq', value: pbfText('cq'), isNull: 'cq IS NULL' });
  const limit = q.p.add(q.limit);
  const columns = slots.map((s, i) => `string_agg(${s.value}, ''::bytea) FILTER (WHERE ord <= ${limit}) AS c${i}`);
  const flags = joined(slots.map((s) => `CASE WHEN ${s.isNull} THEN '01' ELSE '00' END`));
  const nulls = slots.length
    ? `string_agg(int4send(ord::int) || decode(${flags}, 'hex'), ''::bytea) FILTER (WHERE ord <= ${limit} AND (${slots.map((s) => s.isNull).join(' OR ')}))`
    : 'NULL::bytea';
  return `SELECT count(*)::int AS n, ${[...columns, `${nulls} AS nulls`].join(', ')}, min(oid) FILTER (WHERE ord > ${limit}) AS next
    FROM (SELECT row_number() OVER () AS ord, ${['oid', ...slots.map((s) => s.read)].join(', ')} FROM ${rows}) x`;
}

/** A prepared value's bytes in its column (page-columns.ts); text fields are prepared as their bytes (textsend). */
function pbfColumn(kind: ColumnKind, v: string): string {
  switch (kind) {
    case 'int4':
      return `int4send(${v}::int4)`;
    case 'float8':
      return `float8send(${v})`;
    case 'text':
      return `int4send(length(${v})) || ${v}`;
  }
}

/** Text (grid GeoJSON, which is ASCII) as its length and bytes. */
const pbfText = (t: string) => `int4send(octet_length(${t})) || textsend(${t})`;

/**
 * A quantized f=json page: per row, in the page's order, the feature's text up to its attributes (`f`) and its
 * geometry `g` and centroid `c` as GeoJSON on the grid, which gridEsriJson turns into the differences ArcGIS writes.
 */
export function quantizedPageSql(l: LayerRow, q: QuerySpec, window: string, oid: string): string {
  const { rows, withGeometry, centroids } = pageRows(l, q, window, oid, 'esri');
  const head = joined([`'{"attributes":'`, attributes(q.outFields)]);
  return `SELECT ${head} AS f, ${withGeometry ? 'gq' : 'NULL'} AS g, ${centroids ? 'cq' : 'NULL'} AS c FROM ${rows}`;
}
