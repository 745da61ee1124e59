/**
 * Excel as one workbook with a sheet per layer, streamed with exceljs's WorkbookWriter from a PostgreSQL cursor:
 * memory stays flat at Excel's row limit, where GDAL's XLSX driver holds the whole sheet (562 MB for 1M points).
 *
 * What a sheet holds is what GDAL's XLSX export held: a header row of field names, then numbers as numbers, dates
 * as dates (Excel serial days in UTC, with GDAL's display formats) and text as text; points get x/y columns, other
 * geometry is left out (sql.ts, geometryOutput).
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Writable } from 'node:stream';
import * as ExcelJS from 'exceljs';
import type { Client } from 'pg';
import { ident, type LayerField } from '../../features/layer-schema';
import type { ResolvedSrs } from './args';
import { closeSession, openSession } from './pg-session';
import { geometryOutput, transformed, xyColumns } from './sql';
import type { ExportLayerSource } from './types';

/** Rows per FETCH: large enough that the round trips vanish, small enough to hold two batches at once. */
const BATCH = 10_000;

/**
 * exceljs leaves about a hundred bytes of garbage per cell, and V8 lets it pile up: the worker's peak grew by
 * ~130 MB over a sheet, GC slack rather than live data. A full collection every GC_EVERY rows holds that to ~45 MB
 * (measured on 400k points; no measurable time). V8 offers the collector to contexts made after this flag is set.
 */
const GC_EVERY = 50_000;
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Excel's day 0 is 1899-12-30; dates are days since then. */
const EXCEL_EPOCH_DAYS = 25569;
const MS_PER_DAY = 86_400_000;

/** GDAL's display formats for date-times, with milliseconds only where a value has them. */
const DATE_STYLE: Partial<ExcelJS.Style> = { numFmt: 'DD/MM/YYYY\\ HH:MM:SS' };
const DATE_MS_STYLE: Partial<ExcelJS.Style> = { numFmt: 'DD/MM/YYYY\\ HH:MM:SS.000' };
/**
 * One style object per kind of cell: exceljs looks a cell's style up by identity before serialising it, so a
 * shared object costs a lookup where a fresh one per cell cost a quarter of the export.
 */
const PLAIN_STYLE: Partial<ExcelJS.Style> = {};

export interface SheetSource {
  layer: ExportLayerSource;
  sheetName: string;
  target: ResolvedSrs | null;
}

export interface WorkbookJob {
  pg: string;
  sessionName: string;
  path: string;
  sheets: SheetSource[];
  /** Deflate level of the workbook's parts. */
  zipLevel: number;
  signal?: AbortSignal;
  /** Rows written so far in sheet `index`. */
  onRows?: (index: number, rows: number) => void;
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

/** The SELECT of one sheet: values typed for the cells, dates as epoch milliseconds, rows in OID order. */
export function sheetSql(layer: ExportLayerSource, target: ResolvedSrs | null): { sql: string; header: string[]; kinds: Kind[] } {
  const cols = layer.fields.map((f) => {
    const c = ident(f.column);
    if (f.type === 'esriFieldTypeDate') return `date_part('epoch', ${c}) * 1000`;
    return kindOf(f) === 'text' ? `${c}::text` : c;
  });
  const header = layer.fields.map((f) => f.name);
  const kinds = layer.fields.map(kindOf);
  if (geometryOutput(layer, 'excel') === 'xy') {
    const shape = ident('shape');
    const g = target ? transformed(shape, layer, target) : shape;
    cols.push(`ST_X(${g})`, `ST_Y(${g})`);
    header.push(...xyColumns(layer));
    kinds.push('number', 'number');
  }
  const oid = layer.fields.find((f) => f.type === 'esriFieldTypeOID');
  const order = oid ? ` ORDER BY ${ident(oid.column)}` : '';
  const where = layer.where?.trim() || '1=1';
  return {
    sql: `SELECT ${cols.join(', ') || 'NULL'} FROM ${ident(layer.schema)}.${ident(layer.table)} WHERE (${where})${order}`,
    header,
    kinds,
  };
}

/**
 * exceljs (4.4) hands each sheet's XML to its zip stream without waiting for it (upstream issues #464, #1894): left
 * alone, the whole sheet piles up in memory before it is compressed. Waiting for the zip's input to drain after
 * each batch keeps it to one batch. The stream is reached through exceljs's internals, as those issues describe;
 * should that change, the export still works, without the wait.
 */
async function zipCaughtUp(sheet: ExcelJS.Worksheet): Promise<void> {
  // The zip's input is a readable-stream (v3) PassThrough, which predates `writableNeedDrain`.
  const zipInput = (sheet as unknown as { stream?: { pipes?: (Writable & { _writableState?: { needDrain?: boolean } })[] } }).stream
    ?.pipes?.[0];
  if (zipInput?._writableState?.needDrain) await once(zipInput, 'drain');
}

async function writeSheet(
  client: Client,
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  source: SheetSource,
  signal: AbortSignal | undefined,
  onRows: (rows: number) => void,
): Promise<void> {
  const { sql, header, kinds } = sheetSql(source.layer, source.target);
  const sheet = workbook.addWorksheet(source.sheetName);
  await client.query('BEGIN');
  await client.query(`DECLARE sheet NO SCROLL CURSOR FOR ${sql}`);
  const fetch = () => client.query<unknown[]>({ text: `FETCH ${BATCH} FROM sheet`, rowMode: 'array' });
  const dates = kinds.flatMap((k, i) => (k === 'date' ? [i] : []));
  const bigints = kinds.flatMap((k, i) => (k === 'bigint' ? [i] : []));
  // Shared by all rows: a date cell's style is set per row, the others keep the plain one.
  const styles = kinds.map(() => PLAIN_STYLE);
  let rows = 0;
  // The next batch is fetched while this one is written: the backend reads on one core, exceljs on the other.
  let next = fetch();
  for (;;) {
    const batch = await next;
    if (!batch.rows.length) break;
    next = fetch();
    // Rich text makes the header an inline string, which readers such as GDAL take as the header row (exceljs
    // writes plain strings as formula results, t="str"). An empty layer gets an empty sheet, as from GDAL: a
    // lone header row would read back as one row of data.
    if (rows === 0) sheet.addRow(header.map((text) => ({ richText: [{ text }] }))).commit();
    next.catch(() => undefined); // awaited on the next turn; an abort in between must not leave it unhandled
    for (const values of batch.rows) {
      for (const i of dates) {
        const v = values[i];
        // A null cell with a plain style is left out of the sheet, as GDAL leaves it out.
        styles[i] = PLAIN_STYLE;
        if (v === null) continue;
        const ms = Math.round(Number(v));
        values[i] = ms / MS_PER_DAY + EXCEL_EPOCH_DAYS;
        styles[i] = ms % 1000 === 0 ? DATE_STYLE : DATE_MS_STYLE;
      }
      for (const i of bigints) if (values[i] !== null) values[i] = Number(values[i]);
      const row = sheet.addRow(values);
      for (let i = 0; i < styles.length; i++) row.getCell(i + 1).style = styles[i];
      row.commit();
    }
    rows += batch.rows.length;
    if (rows % GC_EVERY === 0) collectGarbage();
    onRows(rows);
    signal?.throwIfAborted();
    await zipCaughtUp(sheet);
  }
  await client.query('COMMIT');
  await sheet.commit();
}

/** Writes every layer into one workbook at job.path. */
export async function writeWorkbook(job: WorkbookJob): Promise<void> {
  const client = await openSession(job.pg, job.sessionName);
  const out = createWriteStream(job.path);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: true,
    // Shared strings are kept in memory until the end: every distinct text of the export.
    useSharedStrings: false,
    zip: { zlib: { level: job.zipLevel } },
  });
  try {
    for (const [i, source] of job.sheets.entries()) {
      job.signal?.throwIfAborted();
      job.onRows?.(i, 0);
      await writeSheet(client, workbook, source, job.signal, (n) => job.onRows?.(i, n));
    }
    // Resolves once the file stream has finished.
    await workbook.commit();
  } catch (e) {
    out.destroy();
    throw e;
  } finally {
    await closeSession(client);
  }
}
