/**
 * Export through the service against ogr2ogr, in one run: 1,000,000 points and 100,000 polygons (33 vertices)
 * to Shapefile, CSV and GeoPackage. The service side is the real path: POST export to the API, a separate worker
 * process (the built dist/src/worker.js) picks the job from Redis, writes with GDAL, moves the file into place and
 * completes the item; the time is request sent → job row finished. ogr2ogr reads the same table with the same
 * SELECT into the same format. Also printed: the worker's peak RSS and the idle request → job start latency.
 *
 *   npm run bench:export            (POINTS=1000000 POLYGONS=100000)
 *
 * BENCH_REPEAT (default 3) rounds, medians reported. BENCH_FORMATS=Shapefile,CSV and BENCH_LAYERS=0|1 run a subset; BENCH_ARENAS sets the worker's MALLOC_ARENA_MAX
 * (default 2, as the worker is started; 4 was no faster and took the peak from ~190-240 to 341 MB).
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gdalPgConnection } from '../src/core/database/gdal-pg';
import { BENCH_ADMIN, createHostedService, form, startBenchApp } from './support/bench-app';

const POINTS = Number(process.env.POINTS ?? 1_000_000);
const POLYGONS = Number(process.env.POLYGONS ?? 100_000);
/** Shapefile is delivered zipped: ogr2ogr is also timed writing .shp.zip, GDAL's own way to the same deliverable. */
const FORMATS = [
  { name: 'Shapefile', ogr: ['-f', 'ESRI Shapefile', '-lco', 'ENCODING=UTF-8'], ext: 'shp', zippedExt: 'shp.zip' },
  { name: 'CSV', ogr: ['-f', 'CSV'], ext: 'csv' },
  { name: 'GeoPackage', ogr: ['-f', 'GPKG'], ext: 'gpkg' },
].filter((f) => !process.env.BENCH_FORMATS || process.env.BENCH_FORMATS.split(',').includes(f.name));
/** BENCH_LAYERS=0 (points) or 1 (polygons) runs one layer only, e.g. to see which export drives peak memory. */
const LAYER_FILTER = process.env.BENCH_LAYERS?.split(',').map(Number);

const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  if (!existsSync(path.resolve(__dirname, '../dist/src/worker.js')))
    throw new Error('run `npm run build` first (the worker runs from dist)');
  const b = await startBenchApp({ WORKER_CONCURRENCY: '1' });
  const out = mkdtempSync(path.join(tmpdir(), 'export-bench-'));
  const worker = spawn(process.execPath, ['dist/src/worker.js'], {
    cwd: path.resolve(__dirname, '..'),
    // As `npm run start:worker` runs it.
    env: {
      ...process.env,
      MALLOC_ARENA_MAX: process.env.BENCH_ARENAS ?? '2',
      DATABASE_URL: b.config.databaseUrl,
      DATA_DIR: b.config.dataDir,
      QUEUE_PREFIX: b.config.queuePrefix,
      LOG_LEVEL: 'warn',
    },
    stdio: 'inherit',
  });
  try {
    const created = await createHostedService(b.base, { username: BENCH_ADMIN.username, token: b.token }, { name: 'bench_export' }, [
      {
        name: 'pts',
        geometryType: 'esriGeometryPoint',
        fields: [
          { name: 'Name', type: 'esriFieldTypeString', length: 50 },
          { name: 'Pop', type: 'esriFieldTypeInteger' },
          { name: 'Area', type: 'esriFieldTypeDouble' },
          { name: 'Density', type: 'esriFieldTypeDouble' },
          { name: 'Founded', type: 'esriFieldTypeDate' },
        ],
      },
      {
        name: 'polys',
        geometryType: 'esriGeometryPolygon',
        fields: [
          { name: 'Label', type: 'esriFieldTypeString', length: 20 },
          { name: 'Value', type: 'esriFieldTypeDouble' },
        ],
      },
    ]);
    const schema = `svc_${created.itemId}`;
    await b.db.query(
      `INSERT INTO "${schema}".l0 (name, pop, area, density, founded, shape)
      SELECT 'name ' || g, g, random() * 1000, random(), now() - g * interval '1 minute', ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 170 - 85), 4326)
        FROM generate_series(1, $1) g`,
      [POINTS],
    );
    await b.db.query(
      `INSERT INTO "${schema}".l1 (label, value, shape)
      SELECT 'poly ' || g, random(), ST_Multi(ST_Buffer(ST_SetSRID(ST_MakePoint(random() * 300 - 150, random() * 140 - 70), 4326), 0.01, 8))
        FROM generate_series(1, $1) g`,
      [POLYGONS],
    );
    await b.db.query(`ANALYZE "${schema}".l0`);
    await b.db.query(`ANALYZE "${schema}".l1`);
    const pg = gdalPgConnection(b.config.databaseUrl);
    const sql = {
      0: `SELECT objectid AS "OBJECTID", name AS "Name", pop AS "Pop", area AS "Area", density AS "Density", founded AS "Founded", shape FROM "${schema}".l0`,
      1: `SELECT objectid AS "OBJECTID", label AS "Label", value AS "Value", shape FROM "${schema}".l1`,
    } as const;

    const jobTimes = async (jobId: string) => {
      for (;;) {
        const [r] = await b.db.query(
          `SELECT status, status_message, extract(epoch from started) * 1000 AS started, extract(epoch from finished) * 1000 AS finished FROM jobs WHERE id = $1`,
          [jobId],
        );
        if (r.status === 'completed') return { started: Number(r.started), finished: Number(r.finished) };
        if (r.status === 'failed') throw new Error(`export failed: ${r.status_message}`);
        await sleep(20);
      }
    };
    const viaService = async (layer: number, format: string, params: object = {}) => {
      const t0 = Date.now();
      const r = await form(`${b.base}/content/users/${BENCH_ADMIN.username}/export`, {
        token: b.token,
        itemId: created.itemId,
        exportFormat: format,
        exportParameters: JSON.stringify({ layers: [{ id: layer, ...params }] }),
      });
      const t = await jobTimes(r.jobId);
      return { total: t.finished - t0, toStart: t.started - t0 };
    };
    // Asynchronous, so the API in this process keeps serving (a blocked event loop breaks its keep-alive sockets).
    const viaOgr = async (layer: 0 | 1, f: (typeof FORMATS)[number], ext = f.ext) => {
      const dst = path.join(out, `ogr_${layer}_${f.name}.${ext}`);
      const lco = f.name === 'CSV' ? ['-lco', layer === 0 ? 'GEOMETRY=AS_XY' : 'GEOMETRY=AS_WKT'] : [];
      const t0 = process.hrtime.bigint();
      await promisify(execFile)('ogr2ogr', [...f.ogr, ...lco, dst, pg, '-sql', sql[layer], '-nln', layer === 0 ? 'pts' : 'polys']);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };

    await viaService(1, 'CSV', { where: 'objectid <= 10' }); // warm-up: connections, GDAL drivers
    // Each case runs REPEAT times, the CLI and the service taking turns, and the medians are compared: on this
    // kind of machine one run of the same command varies by 20% or more.
    const cases = (
      [
        [0, `${POINTS.toLocaleString('en')} points`],
        [1, `${POLYGONS.toLocaleString('en')} polygons`],
      ] as const
    )
      .filter(([layer]) => !LAYER_FILTER || LAYER_FILTER.includes(layer))
      .flatMap(([layer, label]) =>
        FORMATS.map((f) => ({ layer, label, f, ogr: [] as number[], zipped: [] as number[], svc: [] as number[] })),
      );
    for (let round = 0; round < REPEAT; round++) {
      for (const c of cases) {
        c.ogr.push(await viaOgr(c.layer, c.f));
        if ('zippedExt' in c.f) c.zipped.push(await viaOgr(c.layer, c.f, c.f.zippedExt));
        c.svc.push((await viaService(c.layer, c.f.name)).total);
        rmSync(out, { recursive: true, force: true }); // keeps disk writeback of old outputs out of the next timing
        mkdirSync(out);
      }
    }
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const rows = cases.map((c) => {
      const [ogr, svc] = [median(c.ogr), median(c.svc)];
      const spread = c.svc.map((v, i) => v / c.ogr[i]).sort((a, b) => a - b);
      const vsZip = c.zipped.length ? `${s(median(c.zipped))} | ${(svc / median(c.zipped)).toFixed(2)}` : '– | –';
      return `| ${c.label} → ${c.f.name} | ${s(ogr)} | ${s(svc)} | ${(svc / ogr).toFixed(2)} (${spread[0].toFixed(2)}–${spread[spread.length - 1].toFixed(2)}) | ${vsZip} |`;
    });
    const starts: number[] = [];
    for (let i = 0; i < 10; i++) {
      starts.push((await viaService(1, 'CSV', { where: 'objectid <= 10' })).toStart);
      await sleep(100);
    }
    starts.sort((x, y) => x - y);
    const status = readFileSync(`/proc/${worker.pid}/status`, 'utf8');
    const peak = Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
    console.log(`Medians of ${REPEAT} runs; in brackets the lowest and highest ratio of a single round.\n`);
    console.log('| Export | ogr2ogr CLI | service (request → completed) | ratio | ogr2ogr → .shp.zip | ratio |');
    console.log('|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
    console.log(`\nworker peak RSS (VmHWM): ${peak.toFixed(0)} MB`);
    console.log(`request → job start when idle (10 small exports): median ${starts[5].toFixed(0)} ms, max ${starts[9].toFixed(0)} ms`);
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.on('exit', r));
    await b.close();
    rmSync(out, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
