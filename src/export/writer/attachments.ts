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

/** Creates `<layer>__ATTACH` in a GeoPackage open for update and fills it, one attachment at a time. */
async function attachTable(ds: Dataset, job: ExportJob, table: string, description: string, list: ExportAttachment[]): Promise<void> {
  const q = `"${table.replace(/"/g, '""')}"`;
  exec(
    ds,
    `CREATE TABLE ${q} (ATTACHMENTID INTEGER PRIMARY KEY, GLOBALID TEXT NOT NULL, REL_OBJECTID INTEGER NOT NULL, REL_GLOBALID TEXT, ` +
      `CONTENT_TYPE TEXT NOT NULL, ATT_NAME TEXT NOT NULL, DATA_SIZE INTEGER NOT NULL, DATA BLOB)`,
  );
  exec(
    ds,
    `INSERT INTO gpkg_contents (table_name, data_type, identifier, description) VALUES (${sqlText(table)}, 'attributes', ${sqlText(table)}, ${sqlText(description)})`,
  );
  for (const a of list) {
    job.signal?.throwIfAborted();
    // SQLite takes a BLOB whole: one file in memory at a time.
    const data = Buffer.concat(await (await a.read()).toArray());
    exec(
      ds,
      `INSERT INTO ${q} VALUES (${a.id}, ${sqlText(`{${a.globalId.toUpperCase()}}`)}, ${a.objectId}, ` +
        `${a.parentGlobalId ? sqlText(`{${a.parentGlobalId.toUpperCase()}}`) : 'NULL'}, ${sqlText(a.contentType)}, ${sqlText(a.name)}, ${data.length}, X'${data.toString('hex')}')`,
    );
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
  const ds = await gdal.openAsync(join(stage, plan.layers[0].dataset), 'r+');
  try {
    for (const [i, list] of (job.attachments ?? []).entries()) {
      const layerName = plan.layers[i].layerName;
      if (!list.length) continue;
      const table = `${layerName}__ATTACH`;
      await attachTable(ds, job, table, `Attachments of ${layerName}`, list);
      relate(ds, layerName, ds.layers.get(layerName).fidColumn || 'fid', table);
    }
  } finally {
    ds.close();
  }
}

/**
 * A File Geodatabase gets the same tables, built in a scratch GeoPackage and copied in by GDAL's OpenFileGDB writer,
 * which keeps DATA a blob field (gdal-async cannot set a binary field itself).
 */
async function intoGeodatabase({ job, plan, stage }: Stage): Promise<void> {
  const gdal = await import('gdal-async');
  const scratch = join(stage, 'attachments.gpkg');
  const tables: string[] = [];
  // A vector dataset: no raster bands (createAsync, unlike create, needs the sizes given).
  const src = await gdal.drivers.get('GPKG').createAsync(scratch, 0, 0, 0, gdal.GDT_Unknown);
  try {
    for (const [i, list] of (job.attachments ?? []).entries()) {
      const table = `${plan.layers[i].layerName}__ATTACH`;
      if (list.length) await attachTable(src, job, table, `Attachments of ${plan.layers[i].layerName}`, list);
      if (list.length) tables.push(table);
    }
  } finally {
    src.close();
  }
  const gdb = join(stage, plan.layers[0].dataset);
  for (const table of tables) {
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
    (job.attachments ?? []).flatMap((list, i) => (list.length ? [plan.layers[i].layerName] : [])),
  );
}
