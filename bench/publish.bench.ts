/**
 * Publish loader benchmark: 1,000,000 points from a file into PostGIS,
 *   (a) the `ogr2ogr -f PostgreSQL` CLI into a fresh table, against
 *   (b) the service's path: inspectSource + CREATE TABLE (createTableSql, as addLayers runs it) + loadLayer,
 *       with a progress listener attached, as the publish worker runs it.
 * Also (a') the CLI with `-lco SPATIAL_INDEX=NONE`: a lower bound only, its table has no spatial index.
 * All run in child processes (the service path as plain JS, transpiled here), alternating which goes first, so each
 * run's wall time and peak RSS are its own.
 * Formats: CSV with longitude/latitude columns (what users most often upload for point data) and GeoPackage.
 *
 *   npx ts-node --transpile-only bench/publish.bench.ts
 *   N=1000000 ROUNDS=3 FORMATS=csv,gpkg DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/arcgis
 *
 * A throwaway database is created on the server of DATABASE_URL and dropped at the end, with the temp files.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';

const N = Number(process.env.N ?? 1_000_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const FORMATS = (process.env.FORMATS ?? 'csv,gpkg').split(',').map((s) => s.trim()) as ('csv' | 'gpkg')[];
const SCHEMA = 'bench';

interface RunResult {
  ms: number;
  rssMB: number | null;
  rows: number;
  detail?: Record<string, number>;
}

// ---------------------------------------------------------------- child: the service's path

async function childOurs(format: 'csv' | 'gpkg', file: string, table: string, databaseUrl: string): Promise<void> {
  const { inspectSource, loadLayer } = await import('../src/publish');
  const { createTableSql } = await import('../src/layers/layer-schema');
  const type = format === 'csv' ? 'csv' : 'geopackage';
  const t0 = performance.now();
  const [layer] = await inspectSource(file, type);
  const t1 = performance.now();
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  for (const sql of createTableSql(SCHEMA, table, layer.definition)) await pg.query(sql);
  await pg.end();
  const t2 = performance.now();
  let progressCalls = 0;
  const r = await loadLayer(file, type, layer, { databaseUrl, schema: SCHEMA, table }, { onProgress: () => progressCalls++ });
  const t3 = performance.now();
  process.stdout.write(
    JSON.stringify({
      ms: t3 - t0,
      rows: r.loaded,
      rssMB: process.resourceUsage().maxRSS / 1024,
      detail: {
        inspect: t1 - t0,
        createTable: t2 - t1,
        load: t3 - t2,
        copy: r.timings.copy,
        indexes: r.timings.indexes,
        analyze: r.timings.analyze,
        progressCalls,
      },
    }),
  );
}

async function childBaseline(): Promise<void> {
  // Same modules loaded, nothing done: the floor of the child's RSS (node + gdal-async + pg).
  await import('../src/publish');
  await import('../src/layers/layer-schema');
  process.stdout.write(JSON.stringify({ ms: 0, rows: 0, rssMB: process.resourceUsage().maxRSS / 1024 }));
}

// ---------------------------------------------------------------- parent

const ROOT = path.resolve(__dirname, '..');
let childScript = '';

/**
 * This file and the sources it imports, transpiled to plain JS in `outDir`, so the child runs on bare node:
 * under ts-node the TypeScript compiler alone would add ~90 MB to every child's peak RSS.
 */
function compileChild(outDir: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ts = require('typescript') as typeof import('typescript');
  const queue = [__filename];
  const seen = new Set<string>();
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: file,
    }).outputText;
    const out = path.join(outDir, path.relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, js);
    for (const m of source.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
      const base = path.resolve(path.dirname(file), m[1]);
      const resolved = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => existsSync(f));
      if (resolved) queue.push(resolved);
    }
  }
  return path.join(outDir, path.relative(ROOT, __filename)).replace(/\.ts$/, '.js');
}

function runChild(args: string[]): RunResult {
  const r = spawnSync(process.execPath, [childScript, '--child', ...args], {
    encoding: 'utf8',
    env: { ...process.env, NODE_PATH: path.join(ROOT, 'node_modules') },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`child ${args[0]} failed: ${r.stderr}`);
  const line = r.stdout.trim().split('\n').pop()!;
  return JSON.parse(line) as RunResult;
}

const hasTime = existsSync('/usr/bin/time');

function runCli(format: 'csv' | 'gpkg', file: string, table: string, pgConn: string, noIndex = false): Omit<RunResult, 'rows'> {
  const args = ['-f', 'PostgreSQL', pgConn, file, '-nln', `${SCHEMA}.${table}`];
  if (noIndex) args.push('-lco', 'SPATIAL_INDEX=NONE');
  if (format === 'csv')
    args.push(
      '-oo',
      'X_POSSIBLE_NAMES=longitude',
      '-oo',
      'Y_POSSIBLE_NAMES=latitude',
      '-oo',
      'KEEP_GEOM_COLUMNS=NO',
      '-oo',
      'AUTODETECT_TYPE=YES',
      '-a_srs',
      'EPSG:4326',
    );
  const cmd = hasTime ? '/usr/bin/time' : 'ogr2ogr';
  const full = hasTime ? ['-f', '__TIME__ %M', 'ogr2ogr', ...args] : args;
  const t0 = performance.now();
  const r = spawnSync(cmd, full, { encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`ogr2ogr failed: ${r.stderr}`);
  const m = /__TIME__ (\d+)/.exec(r.stderr ?? '');
  return { ms, rssMB: m ? Number(m[1]) / 1024 : null };
}

async function writeCsv(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write('id,name,category,value,observed,longitude,latitude\n');
  for (let i = 0; i < N; i++) {
    const line =
      `${i},site ${i},${i % 17},${((i * 0.37) % 1000).toFixed(3)},2024-0${1 + (i % 9)}-1${i % 10}T12:3${i % 10}:00Z,` +
      `${(-180 + ((i * 0.000359) % 360)).toFixed(6)},${(-85 + ((i * 0.000171) % 170)).toFixed(6)}\n`;
    if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x)} MB`);

async function main() {
  const server = process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/arcgis';
  const dbName = `arcgis_bench_publish_${Date.now()}`;
  const adminUrl = server.replace(/\/[^/]*$/, '/postgres');
  const benchUrl = server.replace(/\/[^/]*$/, `/${dbName}`);
  const { gdalPgConnection } = await import('../src/core/database/gdal-pg');
  const pgConn = gdalPgConnection(benchUrl);
  const dir = mkdtempSync(path.join(tmpdir(), 'publish-bench-'));
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const db = new Client({ connectionString: benchUrl });
  await db.connect();
  try {
    await db.query(`CREATE EXTENSION postgis`);
    await db.query(`CREATE SCHEMA ${SCHEMA}`);

    const files: Record<string, string> = { csv: path.join(dir, 'points.csv'), gpkg: path.join(dir, 'points.gpkg') };
    let t = performance.now();
    await writeCsv(files.csv);
    console.log(
      `generated ${N.toLocaleString('en')} points: CSV ${(statSync(files.csv).size / 1e6).toFixed(0)} MB in ${sec(performance.now() - t)}`,
    );
    if (FORMATS.includes('gpkg')) {
      t = performance.now();
      execFileSync('ogr2ogr', [
        '-f',
        'GPKG',
        files.gpkg,
        files.csv,
        '-nln',
        'points',
        '-a_srs',
        'EPSG:4326',
        '-oo',
        'X_POSSIBLE_NAMES=longitude',
        '-oo',
        'Y_POSSIBLE_NAMES=latitude',
        '-oo',
        'KEEP_GEOM_COLUMNS=NO',
        '-oo',
        'AUTODETECT_TYPE=YES',
      ]);
      console.log(`             GeoPackage ${(statSync(files.gpkg).size / 1e6).toFixed(0)} MB in ${sec(performance.now() - t)}`);
    }
    childScript = compileChild(path.join(dir, 'js'));
    const baseline = runChild(['baseline']);
    console.log(`service-path child floor (node + gdal-async + pg loaded, idle): ${mb(baseline.rssMB)} RSS\n`);

    const results: Record<string, { cli: RunResult[]; ours: RunResult[]; cliNoIndex: RunResult[] }> = {};
    for (const format of FORMATS) results[format] = { cli: [], ours: [], cliNoIndex: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const format of FORMATS) {
        const order = round % 2 === 0 ? (['cli', 'ours', 'cliNoIndex'] as const) : (['ours', 'cli', 'cliNoIndex'] as const);
        for (const which of order) {
          const table = `${which}_${format}_${round}`;
          await db.query('CHECKPOINT');
          let r: RunResult;
          if (which !== 'ours') {
            const c = runCli(format, files[format], table, pgConn, which === 'cliNoIndex');
            const rows = Number((await db.query(`SELECT count(*) AS n FROM ${SCHEMA}.${table}`)).rows[0].n);
            r = { ...c, rows };
          } else {
            r = runChild(['ours', format, files[format], table, benchUrl]);
          }
          if (r.rows !== N) throw new Error(`${which} ${format}: ${r.rows} rows loaded, expected ${N}`);
          results[format][which].push(r);
          const d = r.detail
            ? `  (inspect ${sec(r.detail.inspect)}, create ${sec(r.detail.createTable)}, COPY ${sec(r.detail.copy)}, index ${sec(r.detail.indexes)}, analyze ${sec(r.detail.analyze)}, ${r.detail.progressCalls} progress calls)`
            : '';
          const label = { cli: 'ogr2ogr CLI          ', cliNoIndex: 'ogr2ogr CLI, no index', ours: 'service path         ' }[which];
          console.log(`round ${round + 1} ${format.padEnd(4)} ${label} ${sec(r.ms).padStart(9)}  peak RSS ${mb(r.rssMB)}${d}`);
          await db.query(`DROP TABLE ${SCHEMA}.${table}`);
        }
      }
    }

    console.log(`\n${N.toLocaleString('en')} points, ${ROUNDS} rounds, medians:`);
    for (const format of FORMATS) {
      const cli = median(results[format].cli.map((r) => r.ms));
      const ours = median(results[format].ours.map((r) => r.ms));
      const cliRss = Math.max(...results[format].cli.map((r) => r.rssMB ?? 0));
      const oursRss = Math.max(...results[format].ours.map((r) => r.rssMB ?? 0));
      const phase = (k: string) => sec(median(results[format].ours.map((r) => r.detail![k])));
      const noIndex = median(results[format].cliNoIndex.map((r) => r.ms));
      console.log(
        `  ${format.padEnd(4)}  ogr2ogr CLI ${sec(cli)} (peak RSS ${mb(cliRss || null)})  |  inspect+create+load ${sec(ours)} (peak RSS ${mb(oursRss)})  |  ratio ${(ours / cli).toFixed(2)}x` +
          `\n        service path phases: inspect ${phase('inspect')}, create ${phase('createTable')}, COPY ${phase('copy')}, index ${phase('indexes')}, analyze ${phase('analyze')}` +
          `\n        lower bound, CLI without spatial index: ${sec(noIndex)} (service path / that: ${(ours / noIndex).toFixed(2)}x)`,
      );
    }
  } finally {
    await db.end();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
  }
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) {
  const [mode, ...rest] = process.argv.slice(childAt + 1);
  const run = mode === 'baseline' ? childBaseline() : childOurs(rest[0] as 'csv' | 'gpkg', rest[1], rest[2], rest[3]);
  run.catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
