/**
 * An Excel sheet's XML built by PostgreSQL: one `<row>` per feature, for COPY (copy-rows.ts), between the head and
 * tail written here. What a sheet holds is what the service wrote before (GDAL's XLSX driver, then exceljs): a
 * header row of field names, numbers as numbers, dates as dates (Excel serial days in UTC, shown with GDAL's display
 * formats) and text as text; points get x/y columns, other geometry is left out (sql.ts, geometryOutput).
 *
 * Why not a JavaScript writer: exceljs built every cell in JavaScript and took longer than GDAL, and GDAL's own writer
 * holds the whole sheet in memory (README.md). Here no feature crosses into
 * JavaScript: the backend prints the rows, the worker appends bytes, and the zip deflates them in chunks.
 *
 * Numbers are printed in their shortest exact form (COPY_SESSION's extra_float_digits), which Excel reads back
 * as the very double that is stored. Every cell carries its reference (r="B7"): some readers require it, and a
 * cell left out for a null would otherwise shift the cells after it.
 */
import { GEOMETRY_COLUMN, ident, LayerField } from '../../../layers/layer-schema';
import { ResolvedSrs } from '../srs';
import { OidRange, rowsInOrder } from '../copy/copy-format';
import { describedSql, geometryOutput, layerColumns, sqlText, transformed, xyColumns } from '../sql';
import { AttributeColumn } from '../../export-columns';
import { ExportLayerSource } from '../types';

/** The spreadsheet namespaces every part uses. */
export const SPREADSHEET_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
export const RELATIONSHIPS_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Style indexes in styles.xml (xlsx-package.ts): a date with whole seconds, and one with milliseconds. */
export const DATE_STYLE = 1;
export const DATE_MS_STYLE = 2;

/** Excel's day 0 is 1899-12-30, 25,569 days before 1970-01-01. */
const EXCEL_EPOCH_DAYS = 25569;
const MS_PER_DAY = 86_400_000;
/** Excel's serial of 1900-02-29, a day that never was; from 1900-03-01 on its serials count right. */
const LEAP_DAY_SERIAL = 60;
const LEAP_DAY_MISSED = '1900-03-01';

/** The column letters of 0-based column i: A … Z, AA … */
export function columnName(i: number): string {
  let n = i + 1;
  let s = '';
  while (n > 0) {
    const m = (n - 1) % 26;
    s = String.fromCharCode(65 + m) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

/**
 * Characters XML 1.0 cannot carry at all (C0 controls but tab, line feed and carriage return; DEL; the two
 * non-characters): dropped, as exceljs dropped them.
 */
// eslint-disable-next-line no-control-regex -- these controls are what is matched
const XML_INVALID = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]/g;

/** Text as XML element content (JavaScript side: the header row, sheet names). */
export function xmlText(s: string): string {
  return s
    .replace(XML_INVALID, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r/g, '&#13;');
}

/**
 * Excel reads _xHHHH_ in a cell's text as the character U+HHHH (ECMA-376's escaped string, ST_Xstring), and
 * openpyxl and GDAL do not: text that holds such a sequence gets the underscore opening it written as _x005F_, as
 * Excel itself saves it. A lookahead, since one sequence's closing underscore may open the next (_x0041_x0042_).
 */
const X_ESCAPED = '_(?=x[0-9A-Fa-f]{4}_)';
const X_UNDERSCORE = '_x005F_';

/** Text as a cell's content (JavaScript side: the header row). */
export function cellText(s: string): string {
  return xmlText(s).replace(new RegExp(X_ESCAPED, 'g'), X_UNDERSCORE);
}

/** An inline string cell: text kept as it is, leading and trailing spaces included. */
function textCell(ref: string, text: string): string {
  return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${text}</t></is></c>`;
}

type Kind = 'number' | 'bigint' | 'date' | 'text';

function kindOf(f: LayerField): Kind {
  switch (f.type) {
    case 'esriFieldTypeDate':
      return 'date';
    case 'esriFieldTypeString':
    case 'esriFieldTypeGUID':
    case 'esriFieldTypeGlobalID':
      return 'text';
    case 'esriFieldTypeBigInteger':
      return 'bigint';
    default:
      return 'number';
  }
}

/** The name the row number goes by in the row query; the space keeps it clear of every field's column. */
const ROW = ident('export row');

/**
 * The characters a cell holds, in UTF-16 units as Excel counts them (an emoji is two). Longer text makes Excel
 * report the workbook as damaged and cut it there on repair: it is cut here instead.
 */
export const EXCEL_MAX_CELL_TEXT = 32_767;
/** Characters beyond the BMP (two UTF-16 units each), as an E'' string's regular expression. */
const ASTRAL = '[\\U00010000-\\U0010FFFF]';

/**
 * The first EXCEL_MAX_CELL_TEXT UTF-16 units of `v`, which holds no U+FFFF (sqlXmlText drops it): each character
 * beyond the BMP gets a U+FFFF after it to count as two, the text is cut, a character whose mark fell beyond the
 * cut goes too, and the marks go.
 */
function fitSql(v: string): string {
  const marked = `regexp_replace(${v}, E'(${ASTRAL})', E'\\\\1\\uFFFF', 'g')`;
  const cut = `regexp_replace(left(${marked}, ${EXCEL_MAX_CELL_TEXT}), E'${ASTRAL}$', '')`;
  return `replace(${cut}, E'\\uFFFF', '')`;
}

/**
 * A text value as cell content, in SQL: cellText's rules. Most values need no escaping, and one regular expression
 * tells which; the others go through the replacements. A carriage return is written as a reference, since XML
 * readers turn a literal one into a line feed. Controls are dropped first (what is left may read as an escape), and
 * long text is cut before it is escaped (Excel counts the characters the escapes stand for).
 */
function sqlXmlText(v: string): string {
  const invalid = `[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f\\ufffe\\uffff]`;
  const pairs: [string, string][] = [
    ["'&'", "'&amp;'"],
    ["'<'", "'&lt;'"],
    ["'>'", "'&gt;'"],
    [`'"'`, "'&quot;'"],
    ["E'\\r'", "'&#13;'"],
  ];
  const kept = `regexp_replace(${v}, E'${invalid}', '', 'g')`;
  // Text of no more bytes than the limit has no more UTF-16 units either.
  const long = `octet_length(${v}) > ${EXCEL_MAX_CELL_TEXT}`;
  const fitted = `CASE WHEN ${long} THEN ${fitSql(kept)} ELSE ${kept} END`;
  const underscores = `regexp_replace(${fitted}, '${X_ESCAPED}', '${X_UNDERSCORE}', 'g')`;
  const escaped = pairs.reduce((text, [from, to]) => `replace(${text}, ${from}, ${to})`, underscores);
  return `CASE WHEN ${long} OR ${v} ~ E'[&<>"\\r]|_x[0-9A-Fa-f]{4}_|${invalid}' THEN ${escaped} ELSE ${v} END`;
}

/**
 * One cell of the row (empty text for an empty cell, as a null leaves it out): `value` is the SQL expression, `ref`
 * the column's letters. Numbers that are not finite (NaN, ±infinity) cannot be held by a cell and are left out.
 */
function cellSql(kind: Kind, value: string, ref: string): string {
  const open = (attrs: string) => `'<c r="${ref}' || ${ROW} || '"${attrs}>'`;
  switch (kind) {
    case 'number':
      return `CASE WHEN ${value} - ${value} = 0 THEN ${open('')} || '<v>' || ${value}::text || '</v></c>' ELSE '' END`;
    case 'bigint':
      // A cell holds a double, as Excel does: beyond 2^53 the nearest one.
      return `CASE WHEN ${value} IS NULL THEN '' ELSE ${open('')} || '<v>' || ${value}::float8::text || '</v></c>' END`;
    case 'date': {
      // Milliseconds rounded half up, then days as a double: the arithmetic exceljs did, in the same IEEE doubles.
      const ms = `floor(date_part('epoch', ${value}) * 1000 + 0.5)`;
      const style = `CASE WHEN ${ms}::bigint % 1000 = 0 THEN '${DATE_STYLE}' ELSE '${DATE_MS_STYLE}' END`;
      const days = `(${ms} / ${MS_PER_DAY} + ${EXCEL_EPOCH_DAYS})`;
      // Excel takes 1900 for a leap year: its serial 60 is a 29 February that never was, so from 1899-12-31 until
      // March 1900 a serial is one less than the days since day 0 (GDAL and exceljs wrote those dates a day late).
      const early = `${value} < '${LEAP_DAY_MISSED}' AND ${days} >= 1 AND ${days} < ${LEAP_DAY_SERIAL + 1}`;
      const serial = `CASE WHEN ${early} THEN ${days} - 1 ELSE ${days} END::text`;
      // ±infinity has no serial (and no milliseconds to cast): left out, as GDAL left it.
      return `CASE WHEN isfinite(${value}) THEN '<c r="${ref}' || ${ROW} || '" s="' || ${style} || '"><v>' || ${serial} || '</v></c>' ELSE '' END`;
    }
    case 'text':
      return `CASE WHEN ${value} IS NULL THEN '' ELSE ${open(' t="inlineStr"')} || '<is><t xml:space="preserve">' || ${sqlXmlText(`${value}::text`)} || '</t></is></c>' END`;
  }
}

/**
 * The cell of a code's description: each description's cell is made once per coded value in JavaScript (cellText);
 * a value outside the domain is written as itself where it stands alone, and left out beside its code ('both').
 */
function describedCellSql(column: AttributeColumn, ref: string, both: boolean): string {
  const open = (d: string) =>
    `${sqlText(`<c r="${ref}`)} || ${ROW} || ${sqlText(`" t="inlineStr"><is><t xml:space="preserve">${cellText(d)}</t></is></c>`)}`;
  return describedSql(column, open, both ? "''" : cellSql(kindOf(column.field), ident(column.field.column), ref));
}

interface SheetColumns {
  header: string[];
  cells: { kind: Kind; value: string; described?: AttributeColumn }[];
  /** The per-row geometry the cells read, computed once in the row query (null: the stored shape, or none). */
  projected: string | null;
}

function columns(layer: ExportLayerSource, target: ResolvedSrs | null): SheetColumns {
  const attributes = layerColumns(layer);
  const header = attributes.map((c) => c.header);
  const cells: SheetColumns['cells'] = attributes.map((c) => ({
    kind: kindOf(c.field),
    value: ident(c.field.column),
    ...(c.value === 'description' ? { described: c } : {}),
  }));
  let projected: string | null = null;
  if (geometryOutput(layer, 'excel') === 'xy') {
    const shape = ident(GEOMETRY_COLUMN);
    projected = target ? transformed(shape, layer, target) : null;
    const g = projected ? ident('export geometry') : shape;
    header.push(...xyColumns(layer));
    cells.push({ kind: 'number', value: `ST_X(${g})` }, { kind: 'number', value: `ST_Y(${g})` });
  }
  return { header, cells, projected };
}

/**
 * The sheet up to its first data row: the used range (when there are rows) and the header row. An empty layer
 * gets an empty sheet, as GDAL wrote it: a lone header row would read back as one row of data.
 */
export function sheetHead(layer: ExportLayerSource, target: ResolvedSrs | null, rows: number): string {
  const { header } = columns(layer, target);
  const last = `${columnName(Math.max(header.length, 1) - 1)}${rows + 1}`;
  const dimension = rows > 0 ? `<dimension ref="A1:${last}"/>` : '';
  const head = rows > 0 ? `<row r="1">${header.map((h, i) => textCell(`${columnName(i)}1`, cellText(h))).join('')}</row>` : '';
  return `${XML_DECLARATION}<worksheet xmlns="${SPREADSHEET_NS}" xmlns:r="${RELATIONSHIPS_NS}">${dimension}<sheetData>${head}`;
}

export const SHEET_TAIL = '</sheetData></worksheet>';

/**
 * One `<row>` per feature of the range, in OID order, numbered from `rowsBefore` + 2 (row 1 is the header, and
 * the rows before are the earlier ranges' rows, counted in the same snapshot).
 */
export function sheetRowsSql(layer: ExportLayerSource, target: ResolvedSrs | null, rowsBefore: number, range?: OidRange): string {
  const { cells, projected } = columns(layer, target);
  const both = layer.domainValues === 'both';
  const line = cells
    .map((c, i) => (c.described ? describedCellSql(c.described, columnName(i), both) : cellSql(c.kind, c.value, columnName(i))))
    .join(' || ');
  const first = Math.trunc(rowsBefore) + 1;
  return `SELECT '<row r="' || ${ROW} || '">' || ${line || "''"} || '</row>'${rowsInOrder(layer, range, projected, ROW, first)}`;
}
