/**
 * Export writer benchmark: writeExport against the ogr2ogr command line given the very same argv
 * (buildTranslateArgs), for Shapefile, CSV and GeoPackage, on 1,000,000 points and 100,000 polygons
 * (33 vertices each) loaded into a scratch database that is dropped afterwards; and writeExport of a hosted feature
 * layer view of the same rows beside it.
 *
 *   npx ts-node --transpile-only bench/export.bench.ts      (POINTS=1000000 POLYGONS=100000 by default)
 *
 * Each run is its own process so peak RSS is per run: writeExport in a Node child, ogr2ogr under
 * /usr/bin/time. Also timed: writeExport with an onProgress listener (the polling ticker's cost) and one
 * vectorTranslateAsync with a GDAL progress_cb (the per-feature callback writeExport avoids).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { gdalPgConnection } from '../src/core/database/gdal-pg';
import { buildTranslateArgs } from '../src/export/writer/gdal/args';
import { ExportFormat, ExportLayerSource } from '../src/export/writer';
import { layerField } from '../test/support/layer-field';
import { createViewSql } from '../src/layers/view-schema';
import { renderWhereSql } from '../src/where/compile';

const POINTS = Number(process.env.POINTS ?? 1_000_000);
const POLYGONS = Number(process.env.POLYGONS ?? 100_000);
const FORMATS: ExportFormat[] = ['shapefile', 'csv', 'geopackage'];

const field = layerField;
const LAYERS: Record<'points' | 'polygons', ExportLayerSource> = {
  points: {
    id: 0,
    name: 'Points',
    schema: 'hosted',
    table: 'pts',
    srid: 4326,
    geometryType: 'esriGeometryPoint',
    where: '1=1',
    includeGeometry: true,
    fields: [
      field('OBJECTID', 'esriFieldTypeOID'),
      field('Name', 'esriFieldTypeString', 50),
      field('Pop', 'esriFieldTypeInteger'),
      field('Area', 'esriFieldTypeDouble'),
      field('Density', 'esriFieldTypeDouble'),
      field('Founded', 'esriFieldTypeDate'),
    ],
  },
  polygons: {
    id: 1,
    name: 'Polygons',
    schema: 'hosted',
    table: 'polys',
    srid: 4326,
    geometryType: 'esriGeometryPolygon',
    where: '1=1',
    includeGeometry: true,
    fields: [field('OBJECTID', 'esriFieldTypeOID'), field('Label', 'esriFieldTypeString', 20), field('Value', 'esriFieldTypeDouble')],
  },
};

/**
 * Each layer's hosted feature layer view with the same rows (its filter passes them all), made by the same code as a
 * view layer's relation: the view column exports it, side by side with the table.
 */
const VIEWS: Record<keyof typeof LAYERS, string> = { points: 'pts_view', polygons: 'polys_view' };
const viewSql = (layer: keyof typeof LAYERS) =>
  createViewSql('hosted', VIEWS[layer], {
    sourceSchema: 'hosted',
    sourceTable: LAYERS[layer].table,
    fields: LAYERS[layer].fields,
    hasGeometry: true,
    whereSql: renderWhereSql('OBJECTID > 0', LAYERS[layer].fields),
    filter: undefined,
    srid: 4326,
  });

type Mode = 'writeExport' | 'writeExport+onProgress' | 'gdal progress_cb';
interface ChildCase {
  mode: Mode;
  format: ExportFormat;
  layer: keyof typeof LAYERS;
  pg: string;
  /** Export the layer's view instead of its table. */
  view?: boolean;
}

/** Runs in a child process: one export, prints {ms, rss, progressCalls}. */
async function child(c: ChildCase) {
  const gdal = await import('gdal-async');
  const { writeExport } = await import('../src/export/writer');
  const workDir = mkdtempSync(join(tmpdir(), 'export-bench-'));
  let progressCalls = 0;
  // The RSS of Node + ts-node + gdal-async before exporting, to read the peak against.
  const baseMb = process.memoryUsage().rss / 2 ** 20;
  const t = process.hrtime.bigint();
  try {
    if (c.mode === 'gdal progress_cb') {
      gdal.config.set('OGR_PG_CURSOR_PAGE', '50000');
      const src = await gdal.openAsync(c.pg, 'r', ['PostgreSQL']);
      const args = buildTranslateArgs({ layer: LAYERS[c.layer], format: c.format, layerName: 'l', update: false, target: null });
      const out = await gdal.vectorTranslateAsync(join(workDir, 'l.shp'), src, args, { progress_cb: () => void progressCalls++ });
      await out.flushAsync();
      out.close();
      src.close();
    } else {
      await writeExport({
        format: c.format,
        layers: [c.view ? { ...LAYERS[c.layer], table: VIEWS[c.layer] } : LAYERS[c.layer]],
        pg: c.pg,
        workDir,
        baseName: 'bench',
        ...(c.mode === 'writeExport+onProgress' ? { onProgress: () => void progressCalls++ } : {}),
      });
    }
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    process.stdout.write(JSON.stringify({ ms, rssMb: process.resourceUsage().maxRSS / 1024, baseMb, progressCalls }));
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

function runChild(c: ChildCase): { ms: number; rssMb: number; baseMb: number; progressCalls: number } {
  const r = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', __filename, '--child', JSON.stringify(c)], {
    cwd: join(__dirname, '..'),
    env: { ...process.env, TS_NODE_PROJECT: 'tsconfig.json' },
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) throw new Error(`child ${JSON.stringify(c)} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('{')));
}

/** ogr2ogr with writeExport's argv for the same layer, under /usr/bin/time for wall time and peak RSS. */
function runCli(format: ExportFormat, layer: keyof typeof LAYERS, pg: string) {
  const dir = mkdtempSync(join(tmpdir(), 'export-bench-cli-'));
  try {
    const args = buildTranslateArgs({ layer: LAYERS[layer], format, layerName: 'l', update: false, target: null });
    const ext = { shapefile: 'shp', csv: 'csv', geopackage: 'gpkg' }[format as 'shapefile' | 'csv' | 'geopackage'];
    const r = spawnSync(
      '/usr/bin/time',
      ['-f', 'TIME %e %M', 'ogr2ogr', ...args, '--config', 'OGR_PG_CURSOR_PAGE', '50000', join(dir, `l.${ext}`), pg],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    const m = /TIME ([\d.]+) (\d+)/.exec(r.stderr);
    if (r.status !== 0 || !m) throw new Error(`ogr2ogr failed:\n${r.stderr}`);
    return { ms: Number(m[1]) * 1000, rssMb: Number(m[2]) / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function load(db: Client) {
  await db.query('CREATE EXTENSION IF NOT EXISTS postgis');
  await db.query('CREATE SCHEMA hosted');
  await db.query(`CREATE TABLE hosted.pts (objectid integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name varchar(50), pop integer,
    area double precision, density double precision, founded timestamptz, shape geometry(Point, 4326))`);
  await db.query(
    `INSERT INTO hosted.pts (name, pop, area, density, founded, shape)
    SELECT 'name ' || i, i, i * 1.5, i / 3.0, timestamptz '2000-01-01' + i * interval '1 minute',
           ST_SetSRID(ST_MakePoint(-180 + random() * 360, -85 + random() * 170), 4326) FROM generate_series(1, $1) i`,
    [POINTS],
  );
  await db.query(`CREATE TABLE hosted.polys (objectid integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, label varchar(20), value double precision,
    shape geometry(MultiPolygon, 4326))`);
  // ST_Buffer with 8 segments per quarter: 33 vertices per ring.
  await db.query(
    `INSERT INTO hosted.polys (label, value, shape)
    SELECT 'p' || i, i * 0.5, ST_Multi(ST_Buffer(ST_SetSRID(ST_MakePoint(-170 + random() * 340, -80 + random() * 160), 4326), 0.05, 8))
    FROM generate_series(1, $1) i`,
    [POLYGONS],
  );
  await db.query('VACUUM ANALYZE hosted.pts');
  await db.query('VACUUM ANALYZE hosted.polys');
  for (const layer of ['points', 'polygons'] as const) await db.query(viewSql(layer));
}

async function main() {
  if (process.argv[2] === '--child') return child(JSON.parse(process.argv[3]));
  const server = process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
  const dbName = `arcgis_bench_export_${Date.now()}`;
  const admin = new Client({ connectionString: server.replace(/\/[^/]*$/, '/postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = server.replace(/\/[^/]*$/, `/${dbName}`);
  const db = new Client({ connectionString: url });
  await db.connect();
  const rows: string[][] = [];
  try {
    const t = Date.now();
    await load(db);
    console.log(
      `loaded ${POINTS.toLocaleString('en-US')} points and ${POLYGONS.toLocaleString('en-US')} polygons in ${((Date.now() - t) / 1000).toFixed(1)} s`,
    );
    const pg = gdalPgConnection(url);
    const cli = existsSync('/usr/bin/time') && spawnSync('ogr2ogr', ['--version']).status === 0;
    for (const layer of ['points', 'polygons'] as const) {
      for (const format of FORMATS) {
        const label = `${layer === 'points' ? POINTS.toLocaleString('en-US') + ' points' : POLYGONS.toLocaleString('en-US') + ' polygons'} → ${format}`;
        const w = runChild({ mode: 'writeExport', format, layer, pg });
        const wp = runChild({ mode: 'writeExport+onProgress', format, layer, pg });
        const v = runChild({ mode: 'writeExport', format, layer, pg, view: true });
        const c = cli ? runCli(format, layer, pg) : null;
        rows.push([
          label,
          `${(w.ms / 1000).toFixed(1)} s`,
          `${w.rssMb.toFixed(0)} MB (${w.baseMb.toFixed(0)} before)`,
          `${(wp.ms / 1000).toFixed(1)} s (${wp.progressCalls} calls)`,
          `${(v.ms / 1000).toFixed(1)} s (${(v.ms / w.ms).toFixed(2)}x)`,
          c ? `${(c.ms / 1000).toFixed(1)} s` : 'n/a',
          c ? `${c.rssMb.toFixed(0)} MB` : 'n/a',
        ]);
        console.log(rows[rows.length - 1].join(' | '));
      }
    }
    const g = runChild({ mode: 'gdal progress_cb', format: 'shapefile', layer: 'points', pg });
    console.log(
      `\nvectorTranslateAsync with a GDAL progress_cb, points → shapefile: ${(g.ms / 1000).toFixed(1)} s, ${g.progressCalls} callbacks`,
    );
  } finally {
    await db.end();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
  const head = ['export', 'writeExport', 'peak RSS', 'writeExport + onProgress', 'view of the same rows', 'ogr2ogr CLI', 'CLI peak RSS'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(['', line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
