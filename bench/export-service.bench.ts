/**
 * Export through the service against ogr2ogr and against PostgreSQL's plain COPY, in one run: 1,000,000 points and
 * 100,000 polygons (33 vertices) to CSV, GeoJSON, GeoPackage, Shapefile and Excel; then how cost grows with
 * 100k, 1M and 5M points (CSV, GeoPackage, Shapefile) and the worker's peak memory.
 *
 * The service side is the real path: POST export to the API, a separate worker process (the built
 * dist/src/worker.js) picks the job from Redis, writes the file, moves it into place and completes the item; the
 * time is request sent → job row finished. ogr2ogr reads the same table with the same SELECT into the same format
 * (Shapefile: into .shp.zip, the deliverable users download). Plain COPY is PostgreSQL's own CSV of the same rows
 * and geometry encoding (x/y, WKT or ST_AsGeoJSON) from one session into a file: what reading the data costs.
 *
 *   npm run bench:export      (POINTS=1000000 POLYGONS=100000 SCALING=100000,1000000,5000000)
 *
 * A view column: the points layer's formats exported from a hosted feature layer view showing half its rows (all its
 * fields) against the same rows exported from the plain layer (its `where` naming them), the two taking turns
 * (target: the view within 1.1× of the plain layer); BENCH_VIEW=0 skips it.
 *
 * BENCH_REPEAT (default 3) rounds of the comparison, each case's sides taking turns, medians reported;
 * SCALING_REPEAT (default 3) rounds of the scaling table; SCALING='' skips it (loading 5M points takes about a
 * minute and the 5M exports two more). BENCH_FORMATS=CSV,Excel, BENCH_LAYERS=0|1 and SCALING_FORMATS=GeoPackage run a
 * subset; BENCH_ARENAS sets the worker's MALLOC_ARENA_MAX (default 2, as the worker is started).
 */
import { execFile } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { gdalPgConnection } from '../src/core/database/gdal-pg';
import { BENCH_ADMIN, createHostedService, form, startBenchApp } from './support/bench-app';
import { createView } from './support/point-layer';
import { rssKb } from './support/proc';
import { S3Side, startS3Side, transferMemory } from './support/s3-side';
import { spawnBenchWorker } from './support/worker-command';

const POINTS = Number(process.env.POINTS ?? 1_000_000);
const POLYGONS = Number(process.env.POLYGONS ?? 100_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const SCALING = (process.env.SCALING ?? '100000,1000000,5000000').split(',').filter(Boolean).map(Number);
const SCALING_REPEAT = Number(process.env.SCALING_REPEAT ?? 3);
/** The S3 column: the same exports by a deployment storing item files in a bucket (s3rver); BENCH_S3=0 skips it. */
const S3_FORMATS = process.env.BENCH_S3 === '0' ? [] : ['CSV', 'GeoPackage'];
const S3_TARGET = 1.15;
const VIEW_TARGET = 1.1;
const WITH_VIEW = process.env.BENCH_VIEW !== '0';
/** Size of the file uploaded to and downloaded from the S3 side's API while its memory is watched. */
const TRANSFER_MB = Number(process.env.BENCH_TRANSFER_MB ?? 1024);

interface Format {
  name: string;
  ogr: string[];
  ext: string;
  /** ratio to ogr2ogr, and to plain COPY where there is one */
  target: number;
  copyTarget?: number;
}
/** Shapefile is delivered zipped: ogr2ogr is timed writing .shp.zip, GDAL's own way to the same deliverable. */
const FORMATS: Format[] = (
  [
    { name: 'CSV', ogr: ['-f', 'CSV'], ext: 'csv', target: 0.33, copyTarget: 1.5 },
    { name: 'GeoJson', ogr: ['-f', 'GeoJSON', '-lco', 'RFC7946=YES'], ext: 'geojson', target: 0.33, copyTarget: 1.5 },
    { name: 'GeoPackage', ogr: ['-f', 'GPKG'], ext: 'gpkg', target: 1.0 },
    { name: 'Shapefile', ogr: ['-f', 'ESRI Shapefile', '-lco', 'ENCODING=UTF-8'], ext: 'shp.zip', target: 0.8 },
    { name: 'Excel', ogr: ['-f', 'XLSX'], ext: 'xlsx', target: 1.0 },
  ] as Format[]
).filter((f) => !process.env.BENCH_FORMATS || process.env.BENCH_FORMATS.split(',').includes(f.name));
const LAYER_FILTER = process.env.BENCH_LAYERS?.split(',').map(Number);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

/** The worker's peak RSS since the last reset, in kB; the reset (clear_refs 5) makes it per export. */
function workerPeak(pid: number, reset = false): number {
  const kb = rssKb(pid, 'VmHWM');
  if (reset) writeFileSync(`/proc/${pid}/clear_refs`, '5');
  return kb;
}

async function main() {
  if (!existsSync(path.resolve(__dirname, '../dist/src/worker.js')))
    throw new Error('run `npm run build` first (the worker runs from dist)');
  const started = Date.now();
  const b = await startBenchApp({ WORKER_CONCURRENCY: '1' });
  const out = mkdtempSync(path.join(tmpdir(), 'export-bench-'));
  // BENCH_WORKER_FLAGS adds node flags to the worker's (--trace-gc, --cpu-prof) to see where its time and memory go.
  const flags = process.env.BENCH_WORKER_FLAGS?.split(' ').filter(Boolean) ?? [];
  const worker = spawnBenchWorker(b.config, flags);
  const db = new Client({ connectionString: b.config.databaseUrl });
  await db.connect();
  let s3: S3Side | undefined;
  let s3db: Client | undefined;
  let s3ItemId = '';
  try {
    const pointFields = [
      { name: 'Name', type: 'esriFieldTypeString', length: 50 },
      { name: 'Pop', type: 'esriFieldTypeInteger' },
      { name: 'Area', type: 'esriFieldTypeDouble' },
      { name: 'Density', type: 'esriFieldTypeDouble' },
      { name: 'Founded', type: 'esriFieldTypeDate' },
    ];
    const scaleRows = Math.max(0, ...SCALING);
    const layers: object[] = [
      { name: 'pts', geometryType: 'esriGeometryPoint', fields: pointFields },
      {
        name: 'polys',
        geometryType: 'esriGeometryPolygon',
        fields: [
          { name: 'Label', type: 'esriFieldTypeString', length: 20 },
          { name: 'Value', type: 'esriFieldTypeDouble' },
        ],
      },
    ];
    // The scaling runs read prefixes (by OBJECTID) of one table; the 1M-point layer serves when it is large enough.
    const scaleLayer = scaleRows > POINTS ? 2 : 0;
    if (scaleLayer === 2) layers.push({ name: 'scale', geometryType: 'esriGeometryPoint', fields: pointFields });
    const created = await createHostedService(b.base, { username: BENCH_ADMIN.username, token: b.token }, layers, { name: 'bench_export' });
    const schema = `svc_${created.itemId}`;
    // The same seed on both sides: the S3 side exports the very same rows.
    const loadPoints = async (table: string, n: number, into: { db: Client; schema: string } = { db, schema }) => {
      await into.db.query('SELECT setseed(0.5)');
      await into.db.query(
        `INSERT INTO "${into.schema}".${table} (name, pop, area, density, founded, shape)
        SELECT 'name ' || g, g, random() * 1000, random(), now() - g * interval '1 minute', ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 170 - 85), 4326)
          FROM generate_series(1, $1) g`,
        [n],
      );
      await into.db.query(`VACUUM ANALYZE "${into.schema}".${table}`);
    };
    const t = Date.now();
    await loadPoints('l0', POINTS);
    await db.query(
      `INSERT INTO "${schema}".l1 (label, value, shape)
      SELECT 'poly ' || g, random(), ST_Multi(ST_Buffer(ST_SetSRID(ST_MakePoint(random() * 300 - 150, random() * 140 - 70), 4326), 0.01, 8))
        FROM generate_series(1, $1) g`,
      [POLYGONS],
    );
    await db.query(`VACUUM ANALYZE "${schema}".l1`);
    if (scaleLayer === 2) await loadPoints('l2', scaleRows);
    if (S3_FORMATS.length) {
      s3 = await startS3Side();
      s3db = new Client({ connectionString: s3.databaseUrl });
      await s3db.connect();
      const onS3 = await createHostedService(s3.base, { username: BENCH_ADMIN.username, token: s3.token }, layers, {
        name: 'bench_export',
      });
      s3ItemId = onS3.itemId;
      await loadPoints('l0', POINTS, { db: s3db, schema: `svc_${onS3.itemId}` });
    }
    console.log(`loaded in ${s(Date.now() - t)}`);

    const pg = gdalPgConnection(b.config.databaseUrl);
    const select = {
      0: `SELECT objectid AS "OBJECTID", name AS "Name", pop AS "Pop", area AS "Area", density AS "Density", founded AS "Founded", shape FROM "${schema}".l0`,
      1: `SELECT objectid AS "OBJECTID", label AS "Label", value AS "Value", shape FROM "${schema}".l1`,
    } as const;
    /** PostgreSQL's own CSV of the same rows, with the geometry as each format encodes it. */
    const plainCopy = (layer: 0 | 1, format: string) => {
      const geometry =
        format === 'GeoJson'
          ? ['ST_AsGeoJSON(shape, 7)']
          : layer === 0
            ? ['ST_X(shape) AS x', 'ST_Y(shape) AS y']
            : ['ST_AsText(shape) AS wkt'];
      const cols = layer === 0 ? ['objectid', 'name', 'pop', 'area', 'density', 'founded'] : ['objectid', 'label', 'value'];
      return `COPY (SELECT ${[...cols, ...geometry].join(', ')} FROM "${schema}".l${layer} ORDER BY objectid) TO STDOUT WITH (FORMAT csv, HEADER)`;
    };

    const jobTimes = async (jobId: string, on = db) => {
      for (;;) {
        const [r] = (
          await on.query(
            `SELECT status, status_message, extract(epoch from started) * 1000 AS started, extract(epoch from finished) * 1000 AS finished FROM jobs WHERE id = $1`,
            [jobId],
          )
        ).rows;
        if (r.status === 'completed') return { started: Number(r.started), finished: Number(r.finished) };
        if (r.status === 'failed') throw new Error(`export failed: ${r.status_message}`);
        await sleep(20);
      }
    };
    const local = { base: b.base, token: b.token, itemId: created.itemId, pid: worker.pid!, db };
    // The view of half the points (Pop is the row number), and the same rows of the plain layer by its where.
    const half = `Pop <= ${Math.floor(POINTS / 2)}`;
    const view = WITH_VIEW ? { ...local, itemId: (await createView(b, 'bench_export', 'bench_export_view', half)).itemId } : undefined;
    const viaService = async (layer: number, format: string, params: object = {}, side = local) => {
      workerPeak(side.pid, true);
      const t0 = Date.now();
      const r = await form(`${side.base}/content/users/${BENCH_ADMIN.username}/export`, {
        token: side.token,
        itemId: side.itemId,
        exportFormat: format,
        exportParameters: JSON.stringify({ layers: [{ id: layer, ...params }] }),
      });
      const times = await jobTimes(r.jobId, side.db);
      return { total: times.finished - t0, toStart: times.started - t0, peakKb: workerPeak(side.pid) };
    };
    const onS3 = s3 && s3db ? { base: s3.base, token: s3.token, itemId: s3ItemId, pid: s3.worker.pid!, db: s3db } : undefined;
    // Asynchronous, so the API in this process keeps serving (a blocked event loop breaks its keep-alive sockets).
    const viaOgr = async (layer: 0 | 1, f: Format) => {
      const dst = path.join(out, `ogr_${layer}_${f.name}.${f.ext}`);
      const lco = f.name === 'CSV' ? ['-lco', layer === 0 ? 'GEOMETRY=AS_XY' : 'GEOMETRY=AS_WKT'] : [];
      const t0 = process.hrtime.bigint();
      await promisify(execFile)('ogr2ogr', [...f.ogr, ...lco, dst, pg, '-sql', select[layer], '-nln', layer === 0 ? 'pts' : 'polys']);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    const viaCopy = async (layer: 0 | 1, f: Format) => {
      const t0 = process.hrtime.bigint();
      await pipeline(db.query(copyTo(plainCopy(layer, f.name))), createWriteStream(path.join(out, `copy_${layer}_${f.name}.csv`)));
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    const clean = () => {
      rmSync(out, { recursive: true, force: true }); // keeps disk writeback of old outputs out of the next timing
      mkdirSync(out);
    };

    await viaService(1, 'CSV', { where: 'objectid <= 10' }); // warm-up: connections, GDAL drivers
    // Each case runs REPEAT times, the sides taking turns, and the medians are compared: on this kind of machine
    // one run of the same command varies by 20% or more.
    const cases = (
      [
        [0, `${POINTS.toLocaleString('en')} points`],
        [1, `${POLYGONS.toLocaleString('en')} polygons`],
      ] as const
    )
      .filter(([layer]) => !LAYER_FILTER || LAYER_FILTER.includes(layer))
      .flatMap(([layer, label]) =>
        FORMATS.map((f) => ({
          layer,
          label,
          f,
          ogr: [] as number[],
          copy: [] as number[],
          svc: [] as number[],
          peak: [] as number[],
          s3: [] as number[],
          s3Peak: [] as number[],
          s3ServerCpu: [] as number[],
          plainHalf: [] as number[],
          viewHalf: [] as number[],
        })),
      );
    for (let round = 0; round < REPEAT; round++) {
      for (const c of cases) {
        c.ogr.push(await viaOgr(c.layer, c.f));
        if (c.f.copyTarget) c.copy.push(await viaCopy(c.layer, c.f));
        // The two storages take turns too; each round starts with the other.
        const onBucket = onS3 && c.layer === 0 && S3_FORMATS.includes(c.f.name);
        const order = onBucket && round % 2 ? ['s3', 'local'] : ['local', ...(onBucket ? ['s3'] : [])];
        for (const where of order) {
          const serverCpu = where === 's3' ? s3!.serverCpuMs() : 0;
          const svc = await viaService(c.layer, c.f.name, {}, where === 's3' ? onS3 : local);
          if (where === 's3') c.s3ServerCpu.push(s3!.serverCpuMs() - serverCpu);
          (where === 's3' ? c.s3 : c.svc).push(svc.total);
          (where === 's3' ? c.s3Peak : c.peak).push(svc.peakKb);
        }
        if (view && c.layer === 0)
          for (const side of round % 2 ? ['view', 'plain'] : ['plain', 'view']) {
            const r = side === 'view' ? await viaService(0, c.f.name, {}, view) : await viaService(0, c.f.name, { where: half });
            (side === 'view' ? c.viewHalf : c.plainHalf).push(r.total);
          }
        clean();
      }
      console.log(`round ${round + 1} of ${REPEAT} done (${s(Date.now() - started)} since start)`);
    }
    const comparison = cases.map((c) => {
      const [ogr, svc] = [median(c.ogr), median(c.svc)];
      const spread = c.svc.map((v, i) => v / c.ogr[i]).sort((x, y) => x - y);
      const copy = c.copy.length ? median(c.copy) : undefined;
      const onBucket = c.s3.length ? median(c.s3) : undefined;
      // The S3 target (a deployment storing its files in a bucket) is judged in its own cell, apart from the speed targets.
      const ok = svc / ogr <= c.f.target && (copy === undefined || !c.f.copyTarget || svc / copy <= c.f.copyTarget);
      const target = `≤ ${c.f.target.toFixed(2)}${c.f.copyTarget ? ` and ≤ ${c.f.copyTarget}× COPY` : ''}`;
      const s3Cell =
        onBucket === undefined
          ? '–'
          : `${s(onBucket)} (${(onBucket / svc).toFixed(2)}× ${onBucket / svc <= S3_TARGET ? '✓' : '✗'} ≤ ${S3_TARGET}×), ` +
            `${mb(Math.max(...c.s3Peak))}; s3rver CPU ${s(median(c.s3ServerCpu))}`;
      return (
        `| ${c.label} → ${c.f.name} | ${s(ogr)} | ${s(svc)} | ${(svc / ogr).toFixed(2)} (${spread[0].toFixed(2)}–${spread[spread.length - 1].toFixed(2)}) ` +
        `| ${copy === undefined ? '–' : s(copy)} | ${copy === undefined ? '–' : `${(svc / copy).toFixed(2)}×`} | ${mb(Math.max(...c.peak))} | ${s3Cell} | ${target} ${ok ? '✓' : '✗'} |`
      );
    });

    // How cost grows: prefixes of one table by OBJECTID, the service only.
    const scaling = SCALING.map((n) => ({ n, times: new Map<string, number[]>(), peaks: new Map<string, number>(), peak: 0 }));
    const scaleFormats = (process.env.SCALING_FORMATS ?? 'CSV,GeoPackage,Shapefile').split(',');
    for (let round = 0; round < SCALING_REPEAT; round++) {
      for (const row of scaling) {
        for (const format of scaleFormats) {
          const r = await viaService(scaleLayer, format, { where: `OBJECTID <= ${row.n}` });
          row.times.set(format, [...(row.times.get(format) ?? []), r.total]);
          row.peak = Math.max(row.peak, r.peakKb);
          row.peaks.set(format, Math.max(row.peaks.get(format) ?? 0, r.peakKb));
          clean();
        }
      }
      console.log(`scaling round ${round + 1} of ${SCALING_REPEAT} done (${s(Date.now() - started)} since start)`);
    }

    const starts: number[] = [];
    for (let i = 0; i < 10; i++) {
      starts.push((await viaService(1, 'CSV', { where: 'objectid <= 10' })).toStart);
      await sleep(100);
    }
    starts.sort((x, y) => x - y);
    const transfer = s3 && TRANSFER_MB > 0 ? await transferMemory(s3, TRANSFER_MB, out) : undefined;
    const idleKb = rssKb(worker.pid!);

    console.log(
      `\nMedians of ${REPEAT} rounds; in brackets the lowest and highest ratio of a single round. Plain COPY: PostgreSQL's own CSV`,
    );
    console.log(
      'of the same rows and geometry encoding from one session. Shapefile: ogr2ogr writes .shp.zip, as the service delivers it.\n',
    );
    console.log(
      '| Export | ogr2ogr | service (request → completed) | ratio | plain COPY | service / COPY | worker peak RSS | on S3 (÷ DATA_DIR), worker peak RSS | target |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const r of comparison) console.log(r);
    const viewed = cases.filter((c) => c.viewHalf.length);
    if (viewed.length) {
      console.log(`\nA view of half the points (${half}, all fields) against the same rows of the plain layer (its where), medians:\n`);
      console.log('| Export | plain layer, where | view | view ÷ plain | target |');
      console.log('|---|---|---|---|---|');
      for (const c of viewed) {
        const [plain, v] = [median(c.plainHalf), median(c.viewHalf)];
        const ok = v / plain <= VIEW_TARGET;
        console.log(`| ${c.f.name} | ${s(plain)} | ${s(v)} | ${(v / plain).toFixed(2)} | ≤ ${VIEW_TARGET} ${ok ? '✓' : '✗'} |`);
      }
    }
    if (scaling.length) {
      console.log(
        `\nHow cost grows (${SCALING_REPEAT === 1 ? 'one round' : `medians of ${SCALING_REPEAT} rounds`}; points, request → completed):\n`,
      );
      console.log(`| points | ${scaleFormats.join(' | ')} | worker peak RSS |`);
      // Each cell: the median time and, in brackets, the worker's peak RSS during that format's exports.
      console.log(`|---|${scaleFormats.map(() => '---|').join('')}---|`);
      for (const row of scaling)
        console.log(
          `| ${row.n.toLocaleString('en')} | ${scaleFormats.map((f) => `${s(median(row.times.get(f)!))} (${mb(row.peaks.get(f)!)})`).join(' | ')} | ${mb(row.peak)} |`,
        );
      const [m1, m5] = [scaling.find((r) => r.n === 1_000_000), scaling.find((r) => r.n === 5_000_000)];
      if (m1 && m5) {
        const growth = scaleFormats.map((f) => `${f} ${(median(m5.times.get(f)!) / median(m1.times.get(f)!)).toFixed(2)}×`);
        console.log(`\n5M / 1M: ${growth.join(', ')} (target ≤ 5.5×)`);
      }
      console.log(`worker peak RSS over all scaling exports: ${mb(Math.max(...scaling.map((r) => r.peak)))} (target < 300 MB)`);
    }
    if (transfer) {
      const t = transfer;
      console.log(
        `\nS3 side API (own process), ${TRANSFER_MB} MB file: upload (addItem) ${s(t.uploadMs)}, RSS ${mb(t.baselineKb)} ` +
          `grew at most ${mb(t.uploadGrowthKb)}; download ${s(t.downloadMs)}, RSS ${mb(t.downloadBaselineKb)} grew at most ${mb(t.downloadGrowthKb)} ` +
          `(target < 50 MB) ${t.downloadGrowthKb < 50 * 1024 ? '✓' : '✗'}`,
      );
    }
    console.log(`\nworker RSS when idle after the run: ${mb(idleKb)}`);
    console.log(`request → job start when idle (10 small exports): median ${starts[5].toFixed(0)} ms, max ${starts[9].toFixed(0)} ms`);
    console.log(`bench took ${s(Date.now() - started)}`);
  } finally {
    await s3db?.end();
    await s3?.stop();
    await db.end();
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
