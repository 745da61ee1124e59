/**
 * Query speed: pages of 2,000 features from a 100,000-point layer, as ArcGIS JSON and as GeoJSON, over HTTP on
 * loopback, against today's baseline in the same run.
 *
 *   npm run bench:query        (POINTS=100000 PAGES=20 ROUNDS=5 CLIENTS=20 SECONDS=4 QUERY_BASELINE=<commit>)
 *
 * The baseline is the service as it was before PostgreSQL wrote the replies: the source tree of the commit before
 * page-sql.ts was added (then in src/features/query/; or QUERY_BASELINE), unpacked with `git archive` into a
 * temporary directory and started in this process against the same database, beside the current code. Both serve the
 * same layer to the same client; the sides take turns every round and the figures are medians over the rounds. A
 * third side reads a hosted feature layer view of the same rows through the current code ("view ÷ now": its time
 * over the plain layer's; for features/s, the plain layer's rate over the view's).
 */
import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BENCH_ADMIN, pct, startBenchApp } from './support/bench-app';
import { getPage } from './support/http-page';
import { createPointLayer, createPointView } from './support/point-layer';
import { serverCpuMs as cpuMs } from './support/proc';

const POINTS = Number(process.env.POINTS ?? 100_000);
const PAGES = Number(process.env.PAGES ?? 20);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CLIENTS = Number(process.env.CLIENTS ?? 20);
const SECONDS = Number(process.env.SECONDS ?? 4);
const PAGE = 2000;

const repo = path.resolve(__dirname, '..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

/** The commit just before replies were built in PostgreSQL, or QUERY_BASELINE. */
function baselineCommit(): string {
  if (process.env.QUERY_BASELINE) return git('rev-parse', '--verify', process.env.QUERY_BASELINE);
  // The path page-sql.ts was added under; it now lives in src/feature-server/query/.
  const added = git('log', '--diff-filter=A', '--format=%H', '--', 'src/features/query/page-sql.ts').split('\n').pop();
  return git('rev-parse', '--verify', added ? `${added}^` : 'HEAD');
}

/** Today's code, unpacked from git and started on its own port against the bench database. */
async function startBaseline(commit: string, env: Record<string, string>): Promise<{ app: INestApplication; root: string; dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'query-baseline-'));
  let app: INestApplication;
  try {
    execSync(`git archive ${commit} src | tar -x -C ${dir}`, { cwd: repo });
    symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'));
    /* eslint-disable @typescript-eslint/no-require-imports -- the baseline tree is only known at run time */
    const { createApi } = require(path.join(dir, 'src/bootstrap'));
    const { loadConfig } = require(path.join(dir, 'src/core/config/env'));
    /* eslint-enable @typescript-eslint/no-require-imports */
    app = await createApi(loadConfig({ ...process.env, ...env }), { quiet: true });
    await app.listen(0, '127.0.0.1');
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return { app, root: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`, dir };
}

const median = (xs: number[]) =>
  pct(
    [...xs].sort((a, b) => a - b),
    50,
  );
const pageUrl = (layer: string, f: string, offset: number, token: string) =>
  `${layer}?f=${f}&where=1%3D1&outFields=*&resultOffset=${offset}&resultRecordCount=${PAGE}&orderByFields=OBJECTID&token=${token}`;

const fetchPage = (url: string) => getPage(url, false);

/** The sides in the order round `r` runs them: each goes first in turn. */
const turn = (r: number) => {
  const sides = ['baseline', 'now', 'view'] as const;
  return [...sides.slice(r % 3), ...sides.slice(0, r % 3)];
};

/** One side's sequential pages: p50, p95, bytes and CPU per page. */
async function sequential(layer: string, f: string, token: string, round: number, db: DataSource) {
  const times: number[] = [];
  let bytes = 0;
  let cpu0 = await cpuMs(db);
  for (let i = -3; i < PAGES; i++) {
    const offset = ((round * PAGES + i + 3) * PAGE) % POINTS;
    const r = await fetchPage(pageUrl(layer, f, offset, token));
    if (i === -1) cpu0 = await cpuMs(db);
    if (i < 0) continue; // warm-up
    times.push(r.ms);
    bytes += r.bytes;
  }
  const cpu1 = await cpuMs(db);
  times.sort((a, b) => a - b);
  return {
    p50: pct(times, 50),
    p95: pct(times, 95),
    kib: bytes / PAGES / 1024,
    nodeCpu: (cpu1.node - cpu0.node) / PAGES,
    pgCpu: (cpu1.pg - cpu0.pg) / PAGES,
  };
}

/** CLIENTS clients, each paging through the layer from its own start, for SECONDS: features per second. */
async function concurrent(layer: string, f: string, token: string) {
  const until = Date.now() + SECONDS * 1000;
  let pages = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; Date.now() < until; i++) {
        await fetchPage(pageUrl(layer, f, ((c * 5 + i) * PAGE) % POINTS, token));
        pages++;
      }
    }),
  );
  return (pages * PAGE) / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function main() {
  const commit = baselineCommit();
  const b = await startBenchApp();
  let baseline: Awaited<ReturnType<typeof startBaseline>> | undefined;
  try {
    const created = await createPointLayer(b, 'bench_points', PAGE, POINTS);
    // Settled as autovacuum leaves a loaded table (visibility map set, statistics taken), so neither side meets it half-done.
    await b.db.query(`VACUUM ANALYZE "svc_${created.itemId}"."l0"`);
    // The feature pool now runs without PostgreSQL's JIT, a separate change; the baseline's connections (opened after
    // this) run without it too, so the comparison is of how the replies are built and nothing else.
    const [{ db }] = await b.db.query(`SELECT current_database() AS db`);
    await b.db.query(`ALTER DATABASE "${db}" SET jit = off`);
    baseline = await startBaseline(commit, {
      DATABASE_URL: b.config.databaseUrl,
      DATA_DIR: b.config.dataDir,
      QUEUE_PREFIX: b.config.queuePrefix,
      ADMIN_USERNAME: BENCH_ADMIN.username,
      ADMIN_PASSWORD: BENCH_ADMIN.password,
      LOG_LEVEL: 'silent',
    });
    const layerPath = new URL(`${created.serviceurl}/0/query`).pathname;
    // A hosted feature layer view of the same rows, read through the current code beside the plain layer.
    const viewUrl = await createPointView(b, 'bench_points', 'bench_points_view');
    const sides = { baseline: `${baseline.root}${layerPath}`, now: `${b.root}${layerPath}`, view: `${viewUrl}/0/query` };

    // Every side must answer with the same bytes, or the comparison means nothing.
    for (const f of ['json', 'geojson']) {
      const [x, ...others] = await Promise.all(Object.values(sides).map((l) => fetch(pageUrl(l, f, 4000, b.token)).then((r) => r.text())));
      if (others.some((y) => x !== y)) throw new Error(`f=${f}: the baseline, the current code and the view answer differently`);
    }

    console.log(`baseline: ${commit.slice(0, 12)} (${git('log', '-1', '--format=%s', commit).slice(0, 80)})`);
    console.log(`${POINTS.toLocaleString('en')} points, pages of ${PAGE.toLocaleString('en')}, ${ROUNDS} rounds, medians over rounds`);
    console.log(
      `load average at start: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} on ${cpus().length} cores\n`,
    );
    const rows: string[][] = [];
    for (const f of ['json', 'geojson']) {
      const runs: Record<string, Awaited<ReturnType<typeof sequential>>[]> = { baseline: [], now: [], view: [] };
      for (let r = 0; r < ROUNDS; r++) {
        for (const side of turn(r)) runs[side].push(await sequential(sides[side], f, b.token, r, b.db));
      }
      const m = (side: string, k: keyof (typeof runs)['now'][number]) => median(runs[side].map((x) => x[k]));
      rows.push([
        `f=${f} page p50`,
        `${m('baseline', 'p50').toFixed(1)} ms`,
        `${m('now', 'p50').toFixed(1)} ms`,
        `${(m('baseline', 'p50') / m('now', 'p50')).toFixed(1)}x`,
        `${m('view', 'p50').toFixed(1)} ms`,
        `${(m('view', 'p50') / m('now', 'p50')).toFixed(2)}x`,
      ]);
      rows.push([
        `f=${f} page p95`,
        `${m('baseline', 'p95').toFixed(1)} ms`,
        `${m('now', 'p95').toFixed(1)} ms`,
        '',
        `${m('view', 'p95').toFixed(1)} ms`,
        `${(m('view', 'p95') / m('now', 'p95')).toFixed(2)}x`,
      ]);
      rows.push([
        `f=${f} bytes per page`,
        `${m('baseline', 'kib').toFixed(0)} KiB`,
        `${m('now', 'kib').toFixed(0)} KiB`,
        '',
        `${m('view', 'kib').toFixed(0)} KiB`,
        '',
      ]);
      for (const [k, what] of [
        ['pgCpu', 'PostgreSQL CPU'],
        ['nodeCpu', 'Node CPU'],
      ] as const) {
        rows.push([
          `f=${f} ${what} per page`,
          `${m('baseline', k).toFixed(1)} ms`,
          `${m('now', k).toFixed(1)} ms`,
          `${(m('baseline', k) / m('now', k)).toFixed(1)}x`,
          `${m('view', k).toFixed(1)} ms`,
          `${(m('view', k) / m('now', k)).toFixed(2)}x`,
        ]);
      }
    }
    for (const f of ['json', 'geojson']) {
      const runs: Record<string, number[]> = { baseline: [], now: [], view: [] };
      for (let r = 0; r < Math.max(3, Math.ceil(ROUNDS / 2)); r++) {
        for (const side of turn(r)) runs[side].push(await concurrent(sides[side], f, b.token));
      }
      const [was, now, view] = [median(runs.baseline), median(runs.now), median(runs.view)];
      rows.push([
        `f=${f} ${CLIENTS} clients paging`,
        `${Math.round(was).toLocaleString('en')} features/s`,
        `${Math.round(now).toLocaleString('en')} features/s`,
        `${(now / was).toFixed(1)}x`,
        `${Math.round(view).toLocaleString('en')} features/s`,
        `${(now / view).toFixed(2)}x`,
      ]);
    }
    const head = ['', 'baseline', 'now', 'speed-up', 'view (now)', 'view ÷ now'];
    const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const r of [head, ...rows]) console.log(r.map((c, i) => (i ? c.padStart(width[i]) : c.padEnd(width[i]))).join('  '));
    console.log(
      `\nload average at end: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    if (baseline) {
      await baseline.app.close();
      rmSync(baseline.dir, { recursive: true, force: true });
    }
    await b.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
