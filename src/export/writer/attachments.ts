/**
 * The attachments of exported features, after the layers are written. A GeoPackage and a File Geodatabase hold them
 * as ArcGIS and GDAL lay them out in a geodatabase: a `<layer>__ATTACH` table (ATTACHMENTID, GLOBALID, REL_OBJECTID,
 * REL_GLOBALID, CONTENT_TYPE, ATT_NAME, DATA_SIZE, DATA; in a GeoPackage an attributes table), which GDAL, QGIS and
 * ArcGIS list. Every other
 * format travels zipped with `attachments/<layer>/<objectId>/<attachmentId>-<name>` and `attachments/index.csv`.
 * One attachment is read at a time, so memory stays flat however many there are.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { Dataset } from 'gdal-async';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pipeline } from 'node:stream/promises';
import { OgrArgs } from '../../core/gdal/ogr-args';
import { addGpkgRelation, exec, sqlName, sqlText } from './gpkg/gpkg-relations';
import { relateGeodatabaseAttachments } from './relationships';
import { RunContext } from './engine';
import { Progress } from './progress';
import { ExportAttachment, ExportJob } from './types';

/** What writing attachments needs of the run: the job, where its layers went, and its folder. */
type Stage = Pick<RunContext, 'job' | 'plan' | 'stage'>;

const inTables = (job: Pick<ExportJob, 'format'>) => job.format === 'geopackage' || job.format === 'filegdb';
const any = (job: Pick<ExportJob, 'attachments'>) => !!job.attachments?.some((l) => l.length > 0);

/** Whether the export carries attachments as files in its zip (the plan then zips whatever the format). */
export function attachmentsAsFiles(job: Pick<ExportJob, 'format' | 'attachments'>): boolean {
  return any(job) && !inTables(job);
}

/** Only the base name's safe characters: the entry cannot leave its folder or confuse an unzipping shell. */
const entryName = (a: ExportAttachment) =>
  `${a.id}-${
    a.name
      .replace(/[^\p{L}\p{N}_.\- ()]/gu, '_')
      .replace(/^\.+/, '_')
      .slice(-120) || 'file'
  }`;

export async function writeAttachments(run: Stage, progress: Progress): Promise<void> {
  const { job } = run;
  if (!any(job)) return;
  progress.finishing(0.95, 'Writing attachments');
  if (job.format === 'geopackage') await intoGeoPackage(run);
  else if (job.format === 'filegdb') await intoGeodatabase(run);
  else await intoFolder(run);
}

async function intoFolder({ job, plan, stage }: Stage): Promise<void> {
  const root = join(stage, 'out', 'attachments');
  const index = ['layer,objectId,attachmentId,globalId,parentGlobalId,name,contentType,size,path'];
  for (const [i, list] of (job.attachments ?? []).entries()) {
    const layerName = plan.layers[i].layerName;
    for (const a of list) {
      job.signal?.throwIfAborted();
      const dir = join(root, layerName, String(a.objectId));
      await mkdir(dir, { recursive: true });
      const entry = entryName(a);
      await pipeline(await a.read(), createWriteStream(join(dir, entry)), { signal: job.signal });
      const path = `attachments/${layerName}/${a.objectId}/${entry}`;
      index.push(
        [
          layerName,
          a.objectId,
          a.id,
          `{${a.globalId.toUpperCase()}}`,
          a.parentGlobalId ? `{${a.parentGlobalId.toUpperCase()}}` : '',
          a.name,
          a.contentType,
          a.size,
          path,
        ]
          .map((v) => csvCell(String(v)))
          .join(','),
      );
    }
  }
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'index.csv'), `${index.join('\r\n')}\r\n`, 'utf8');
}

/** A CSV cell, quoted; text a spreadsheet would run as a formula gets a leading quote, as the CSV export does. */
const csvCell = (v: string) => `"${(/^[=+\-@\t\r]/.test(v) ? `'${v}` : v).replace(/"/g, '""')}"`;

/** Creates an empty `<layer>__ATTACH` attributes table in a GeoPackage open for update. */
function attachTable(ds: Dataset, table: string, description: string): void {
  exec(
    ds,
    `CREATE TABLE ${sqlName(table)} (ATTACHMENTID INTEGER PRIMARY KEY, GLOBALID TEXT NOT NULL, REL_OBJECTID INTEGER NOT NULL, ` +
      `REL_GLOBALID TEXT, CONTENT_TYPE TEXT NOT NULL, ATT_NAME TEXT NOT NULL, DATA_SIZE INTEGER NOT NULL, DATA BLOB)`,
  );
  exec(
    ds,
    `INSERT INTO gpkg_contents (table_name, data_type, identifier, description) VALUES (${sqlText(table)}, 'attributes', ${sqlText(table)}, ${sqlText(description)})`,
  );
}

/**
 * Fills the tables attachTable made, in the GeoPackage at `file` once GDAL has closed it, one attachment in memory at
 * a time. SQLite's own binding takes each file as a bound blob; through GDAL it would be SQL text of twice its size
 * in hexadecimal, parsed on the event loop.
 */
async function fillAttachTables(file: string, job: ExportJob, tables: { table: string; list: ExportAttachment[] }[]): Promise<void> {
  const db = new DatabaseSync(file);
  try {
    db.exec('BEGIN');
    for (const { table, list } of tables) {
      const insert = db.prepare(`INSERT INTO ${sqlName(table)} VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
      for (const a of list) {
        job.signal?.throwIfAborted();
        // SQLite takes a BLOB whole: one file in memory at a time.
        const data = Buffer.concat(await (await a.read()).toArray());
        const parent = a.parentGlobalId ? `{${a.parentGlobalId.toUpperCase()}}` : null;
        insert.run(a.id, `{${a.globalId.toUpperCase()}}`, a.objectId, parent, a.contentType, a.name, data.length, data);
      }
    }
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

/**
 * The GeoPackage's own relation between a layer and its attachment table (the Related Tables Extension's `media`
 * relation, through a mapping table `<table>REL`), which GDAL reads as a relationship and QGIS as a relation.
 */
function relate(ds: Dataset, layer: string, fidColumn: string, table: string): void {
  addGpkgRelation(ds, {
    base: layer,
    basePrimaryColumn: fidColumn,
    related: table,
    relatedPrimaryColumn: 'ATTACHMENTID',
    relationName: 'media',
    mapping: `${table}REL`,
    pairs: `SELECT REL_OBJECTID, ATTACHMENTID FROM ${sqlName(table)}`,
  });
}

/** The GeoPackage itself takes the tables, each related to its layer. */
async function intoGeoPackage({ job, plan, stage }: Stage): Promise<void> {
  const gdal = await import('gdal-async');
  const file = join(stage, plan.layers[0].dataset);
  const tables = withAttachments(job, plan);
  const ds = await gdal.openAsync(file, 'r+');
  try {
    for (const t of tables) attachTable(ds, t.table, `Attachments of ${t.layerName}`);
  } finally {
    ds.close();
  }
  await fillAttachTables(file, job, tables);
  // The relation's mapping table is filled from the rows just written.
  const again = await gdal.openAsync(file, 'r+');
  try {
    for (const t of tables) relate(again, t.layerName, again.layers.get(t.layerName).fidColumn || 'fid', t.table);
  } finally {
    again.close();
  }
}

/** The layers that have attachments, with their `<layer>__ATTACH` table's name. */
function withAttachments(job: ExportJob, plan: Stage['plan']): { layerName: string; table: string; list: ExportAttachment[] }[] {
  return (job.attachments ?? []).flatMap((list, i) => {
    const layerName = plan.layers[i].layerName;
    return list.length ? [{ layerName, table: `${layerName}__ATTACH`, list }] : [];
  });
}

/**
 * A File Geodatabase gets the same tables, built in a scratch GeoPackage and copied in by GDAL's OpenFileGDB writer,
 * which keeps DATA a blob field (gdal-async cannot set a binary field itself).
 */
async function intoGeodatabase({ job, plan, stage }: Stage): Promise<void> {
  const gdal = await import('gdal-async');
  const scratch = join(stage, 'attachments.gpkg');
  const tables = withAttachments(job, plan);
  // A vector dataset: no raster bands (createAsync, unlike create, needs the sizes given).
  const src = await gdal.drivers.get('GPKG').createAsync(scratch, 0, 0, 0, gdal.GDT_Unknown);
  try {
    for (const t of tables) attachTable(src, t.table, `Attachments of ${t.layerName}`);
  } finally {
    src.close();
  }
  await fillAttachTables(scratch, job, tables);
  const gdb = join(stage, plan.layers[0].dataset);
  for (const { table } of tables) {
    job.signal?.throwIfAborted();
    const from = await gdal.openAsync(scratch);
    try {
      // ArcGIS's attachment tables have ATTACHMENTID as their object id: ours, kept.
      const args = new OgrArgs()
        .flag('-update')
        .flag('-preserve_fid')
        .option('-lco', 'FID=ATTACHMENTID')
        .option('-nln', table)
        .layer(table);
      const out = await gdal.vectorTranslateAsync(gdb, from, args.toArray());
      out.close();
    } finally {
      from.close();
    }
  }
  await rm(scratch, { force: true });
  await relateGeodatabaseAttachments(
    gdb,
    tables.map((t) => t.layerName),
  );
}
