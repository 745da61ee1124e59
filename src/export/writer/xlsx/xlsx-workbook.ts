/**
 * Excel as one workbook with a sheet per layer. Each sheet's XML is printed by PostgreSQL and streamed by COPY
 * into a folder laid out as the package (xlsx-sheet.ts, copy-layer.ts), large layers over parallel sessions; the
 * folder is then zipped into the .xlsx by the export's own zip writer, which deflates the sheets while they are
 * still being written (ZipAhead) on the core the COPY leaves. Memory stays flat at any row count: rows go from
 * the backend to the file in chunks, as CSV's do.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ResolvedSrs } from '../srs';
import { COPY_SESSION } from '../copy/copy-format';
import { copyDocument } from '../copy/copy-layer';
import { checkExcelRows } from '../limits';
import { ExportLayerSource } from '../types';
import { DEFAULT_ZIP_LEVEL, zipDirectory } from '../zip/zip';
import { ZipAhead } from '../zip/zip-ahead';
import { packageParts, sheetPart } from './xlsx-package';
import { SHEET_TAIL, sheetHead, sheetRowsSql } from './xlsx-sheet';

export interface SheetSource {
  layer: ExportLayerSource;
  sheetName: string;
  target: ResolvedSrs | null;
  /** Rows the layer holds (measured), to decide on parallel sessions. */
  rows: number;
}

export interface WorkbookJob {
  pg: string;
  sessionName: string;
  /** The .xlsx to write; its folder also holds the package while it is built. */
  path: string;
  sheets: SheetSource[];
  /** Deflate level of the package's parts. */
  zipLevel?: number;
  signal?: AbortSignal;
  /** Rows written so far in sheet `index`. */
  onRows?: (index: number, rows: number) => void;
}

/** Writes every layer into one workbook at job.path. */
export async function writeWorkbook(job: WorkbookJob): Promise<void> {
  const work = join(dirname(job.path), '.xlsx');
  const root = join(work, 'package');
  const level = job.zipLevel ?? DEFAULT_ZIP_LEVEL;
  await mkdir(join(root, 'xl', 'worksheets'), { recursive: true });
  await mkdir(join(work, 'parts'));
  const ahead = level > 0 ? new ZipAhead(root, join(work, 'ahead'), level) : undefined;
  try {
    for (const [i, source] of job.sheets.entries()) {
      job.signal?.throwIfAborted();
      job.onRows?.(i, 0);
      await copyDocument(
        {
          layer: source.layer,
          pg: job.pg,
          sessionName: job.sessionName,
          path: join(root, sheetPart(i)),
          partsDir: join(work, 'parts'),
          rows: source.rows,
          signal: job.signal,
          onRows: (n) => job.onRows?.(i, n),
        },
        {
          settings: COPY_SESSION,
          head: (rows) => {
            // The limit was checked on a count from before the snapshot: rows added since count too.
            checkExcelRows(source.sheetName, rows);
            return sheetHead(source.layer, source.target, rows);
          },
          tail: SHEET_TAIL,
          separator: '',
          counted: true,
          sql: (range, before) => sheetRowsSql(source.layer, source.target, before, range),
        },
      );
    }
    const parts = packageParts(job.sheets.map((s) => s.sheetName));
    for (const [name, text] of Object.entries(parts)) {
      await mkdir(dirname(join(root, name)), { recursive: true });
      await writeFile(join(root, name), text, 'utf8');
    }
    job.signal?.throwIfAborted();
    await zipDirectory(root, job.path, { level, signal: job.signal, ahead: await ahead?.finish() });
  } finally {
    await ahead?.close();
    await rm(work, { recursive: true, force: true });
  }
}
