/**
 * Map viewers of a public layer, through a shared cache and straight to the API: VIEWERS simulated viewers (each from
 * an address of its own) draw a public 100,000-point layer as the ArcGIS Maps SDK does, asking for the tiles of their
 * view as f=pbf tile queries (envelope, quantization in view mode, outFields=OBJECTID), panning and zooming about a
 * few places that everyone looks at, so that viewers ask for the same tiles. The cache is nginx with the configuration
 * operators install (deploy/nginx/arcgis-cache.conf), started unprivileged on loopback; the service's cacheMaxAge is
 * MAX_AGE seconds (ArcGIS Online's default, 30). The sides take turns for SECONDS each, ROUNDS rounds (each going
 * first in turn); figures are medians over the rounds. The cache is warmed once (every tile asked once) before the
 * first round. Past max-age every viewer asking for a tile while its revalidation runs goes to the API too (nginx's
 * cache lock covers new entries only, and serving the stale reply meanwhile is what the configuration avoids).
 *
 *   npm run bench:map        (POINTS=100000 VIEWERS=200 SECONDS=10 ROUNDS=3 MAX_AGE=30 THINK_MS=250)
 *
 * Reported per side: viewer requests per second, requests that reached the API per second and their share of the
 * viewers' (the target: at most 10% through the cache), those the API answered 304, PostgreSQL and nginx CPU per
 * second, and viewer p50/p99 (the target: p99 through the cache no worse than without).
 */
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import type { Server } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { DataSource } from 'typeorm';
import { startNginx } from '../test/support/nginx';
import { form, pct, startBenchApp } from './support/bench-app';
import { createPointLayer } from './support/point-layer';
import { cpuMs } from './support/proc';

const POINTS = Number(process.env.POINTS ?? 100_000);
const VIEWERS = Number(process.env.VIEWERS ?? 200);
const SECONDS = Number(process.env.SECONDS ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const MAX_AGE = Number(process.env.MAX_AGE ?? 30);
/** A viewer's pause between two moves of its map. */
const THINK_MS = Number(process.env.THINK_MS ?? 250);
/** Tiles a browser asks for at once (its connections per host). */
const PARALLEL = 6;
const PAGE = 4000;
const HALF = 20037508.342789244;

/** Where everyone looks (Web Mercator metres): a handful of cities' surroundings. */
const PLACES = [
  [-8237642, 4970241],
  [261845, 6250564],
  [15550000, 4257000],
  [-13627361, 4547675],
];

/** The SDK's query for tile (z, x, y) of the Web Mercator grid, as a URL path-and-query under the layer. */
function tileQuery(z: number, x: number, y: number): string {
  const size = (2 * HALF) / 2 ** z;
  const extent = { xmin: -HALF + x * size, ymin: HALF - (y + 1) * size, xmax: -HALF + (x + 1) * size, ymax: HALF - y * size };
  const sr = { spatialReference: { wkid: 102100 } };
  const q = new URLSearchParams({
    f: 'pbf',
    geometry: JSON.stringify({ ...extent, ...sr }),
    maxRecordCountFactor: '2',
    resultOffset: '0',
    resultRecordCount: String(PAGE),
    where: '1=1',
    orderByFields: 'OBJECTID',
    outFields: 'OBJECTID',
    outSR: '102100',
    quantizationParameters: JSON.stringify({
      extent: { ...extent, ...sr },
      mode: 'view',
      originPosition: 'upperLeft',
      tolerance: size / 512,
    }),
    resultType: 'tile',
    spatialRel: 'esriSpatialRelIntersects',
    geometryType: 'esriGeometryEnvelope',
    inSR: '102100',
  });
  return `/query?${q}`;
}

/** The tiles of a 1280x768 view (5x3 tiles of 256 px, as the SDK fetches them) centred on a place at zoom z. */
function viewTiles(z: number, cx: number, cy: number): string[] {
  const size = (2 * HALF) / 2 ** z;
  const tx = Math.floor((cx + HALF) / size);
  const ty = Math.floor((HALF - cy) / size);
  const out: string[] = [];
  for (let dy = -1; dy <= 1; dy++)
    for (let dx = -2; dx <= 2; dx++) {
      const x = tx + dx;
      const y = ty + dy;
      if (x >= 0 && y >= 0 && x < 2 ** z && y < 2 ** z) out.push(tileQuery(z, x, y));
    }
  return out;
}

/** A viewer's next view: a place, a zoom from 4 to 7, and a pan of up to a tile either way. */
function nextView(): string[] {
  const [cx, cy] = PLACES[Math.floor(Math.random() * PLACES.length)];
  const z = 4 + Math.floor(Math.random() * 4);
  const size = (2 * HALF) / 2 ** z;
  const pan = () => Math.round(Math.random() * 2 - 1) * size;
  return viewTiles(z, cx + pan(), cy + pan());
}

/** Every tile a viewer can ask for: what the warm-up asks once. */
function allTiles(): string[] {
  const set = new Set<string>();
  for (const [cx, cy] of PLACES)
    for (let z = 4; z <= 7; z++) {
      const size = (2 * HALF) / 2 ** z;
      for (const px of [-1, 0, 1]) for (const py of [-1, 0, 1]) for (const t of viewTiles(z, cx + px * size, cy + py * size)) set.add(t);
    }
  return [...set];
}

interface Get {
  ms: number;
  status: number;
}

function getTile(agent: http.Agent, url: string, viewer: number): Promise<Get> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { 'X-Forwarded-For': `10.1.${viewer >> 8}.${viewer & 255}` } }, (res) => {
        res.on('data', () => undefined);
        // An ArcGIS error (a full pool's 503, say) is a JSON envelope, HTTP 200 or not: only a pbf counts as drawn.
        const drawn = res.statusCode === 200 && res.headers['content-type'] === 'application/x-protobuf';
        res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: drawn ? 200 : 0 }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The API's own count of the feature queries it answered, and of its 304s, from its HTTP server's events. */
function originCounter(server: Server) {
  const c = { requests: 0, notModified: 0 };
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!req.url?.includes('/query?')) return;
    c.requests++;
    res.once('finish', () => {
      if (res.statusCode === 304) c.notModified++;
    });
  });
  return c;
}

/**
 * CPU of the bench database's backends over a window, sampled: the API's pool closes idle connections (through the
 * cache it is mostly idle), and a backend gone before the window's end would take its CPU out of a plain difference.
 */
function pgCpu(db: DataSource) {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let started = false;
  const sample = async () => {
    const pids: { pid: number }[] = await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
    for (const { pid } of pids) {
      try {
        const ms = cpuMs(pid);
        // A backend that appears during the window spent all its CPU within it.
        if (!first.has(pid)) first.set(pid, started ? 0 : ms);
        last.set(pid, ms);
      } catch {
        // ended meanwhile: its last sample stands
      }
    }
  };
  let timer: NodeJS.Timeout | undefined;
  return {
    async start() {
      await sample();
      started = true;
      timer = setInterval(() => void sample().catch(() => undefined), 200);
    },
    async stop(): Promise<number> {
      clearInterval(timer);
      await sample();
      let ms = 0;
      for (const [pid, v] of last) ms += v - (first.get(pid) ?? 0);
      return ms;
    },
  };
}

/** nginx's master and worker processes. */
function nginxPids(master: number): number[] {
  const children = readFileSync(`/proc/${master}/task/${master}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return [master, ...children];
}

async function viewers(root: string, layerPath: string, agent: http.Agent, until: number) {
  const times: number[] = [];
  let failed = 0;
  const viewer = async (v: number) => {
    while (Date.now() < until) {
      const tiles = nextView();
      for (let i = 0; i < tiles.length; i += PARALLEL) {
        const batch = await Promise.all(tiles.slice(i, i + PARALLEL).map((t) => getTile(agent, `${root}${layerPath}${t}`, v)));
        for (const r of batch) {
          if (r.status === 200) times.push(r.ms);
          else failed++;
        }
      }
      await new Promise((r) => setTimeout(r, Math.random() * 2 * THINK_MS));
    }
  };
  await Promise.all(Array.from({ length: VIEWERS }, (_, v) => viewer(v)));
  return { times, failed };
}

const median = (xs: number[]) =>
  pct(
    [...xs].sort((a, b) => a - b),
    50,
  );

async function main() {
  const load = loadavg();
  const b = await startBenchApp();
  const nginx = await startNginx(Number(new URL(b.root).port));
  try {
    const created = await createPointLayer(b, 'bench_map_points', PAGE, POINTS);
    await b.db.query(`ANALYZE "svc_${created.itemId}"."l0"`);
    await form(`${b.base}/content/users/bench_admin/items/${created.itemId}/share`, { everyone: 'true', token: b.token });
    const admin = created.serviceurl.replace('/rest/services/', '/rest/admin/services/');
    await form(`${admin}/updateDefinition`, { updateDefinition: JSON.stringify({ cacheMaxAge: MAX_AGE }), token: b.token });
    const layerPath = new URL(`${created.serviceurl}/0`).pathname;
    const origin = originCounter(b.app.getHttpServer() as Server);
    const sides = { cache: nginx.root, origin: b.root.replace(/\/$/, '') } as const;
    type Side = keyof typeof sides;

    const tiles = allTiles();
    const warm = new http.Agent({ keepAlive: true, maxSockets: PARALLEL });
    for (let i = 0; i < tiles.length; i += PARALLEL)
      await Promise.all(tiles.slice(i, i + PARALLEL).map((t) => getTile(warm, `${nginx.root}${layerPath}${t}`, 0)));
    warm.destroy();

    type Run = Record<
      'rps' | 'originRps' | 'share' | 'notModified' | 'pg' | 'nginx' | 'p50' | 'p99' | 'failed' | 'requests' | 'reached',
      number
    >;
    const runs: Record<Side, Run[]> = {
      cache: [],
      origin: [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of (round % 2 ? ['origin', 'cache'] : ['cache', 'origin']) as Side[]) {
        const agent = new http.Agent({ keepAlive: true, maxSockets: VIEWERS * 2 });
        const pg = pgCpu(b.db);
        await pg.start();
        const before = { ...origin, nginx: nginxPids(nginx.pid).reduce((n, p) => n + cpuMs(p), 0) };
        const t0 = Date.now();
        const { times, failed } = await viewers(sides[side], layerPath, agent, t0 + SECONDS * 1000);
        const s = (Date.now() - t0) / 1000;
        const pgMs = await pg.stop();
        const ngx = nginxPids(nginx.pid).reduce((n, p) => n + cpuMs(p), 0);
        agent.destroy();
        times.sort((a, c) => a - c);
        const reached = origin.requests - before.requests;
        runs[side].push({
          rps: times.length / s,
          originRps: reached / s,
          share: reached / Math.max(1, times.length + failed),
          notModified: origin.notModified - before.notModified,
          pg: pgMs / s,
          requests: times.length + failed,
          reached,
          nginx: side === 'cache' ? (ngx - before.nginx) / s : 0,
          p50: pct(times, 50),
          p99: pct(times, 99),
          failed,
        });
      }
    }

    console.log(
      `\nMap viewers: ${VIEWERS} viewers drawing a public layer of ${POINTS.toLocaleString('en')} points (f=pbf tile queries), ` +
        `cacheMaxAge ${MAX_AGE} s, ${ROUNDS} rounds of ${SECONDS} s per side, medians; ${cpus().length} CPUs, ` +
        `load average before ${load.map((l) => l.toFixed(2)).join(' ')}, after ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    console.log(
      '| side | viewer req/s | API req/s | share the API served | API 304s | PostgreSQL CPU ms/s | nginx CPU ms/s | p50 ms | p99 ms | failed |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const side of ['cache', 'origin'] as Side[]) {
      const r = (k: keyof Run) => median(runs[side].map((x) => x[k]));
      console.log(
        `| ${side === 'cache' ? 'through nginx' : 'straight to the API'} | ${r('rps').toFixed(0)} | ${r('originRps').toFixed(1)} | ` +
          `${(r('share') * 100).toFixed(1)}% | ${r('notModified').toFixed(0)} | ${r('pg').toFixed(0)} | ${r('nginx').toFixed(0)} | ` +
          `${r('p50').toFixed(1)} | ${r('p99').toFixed(1)} | ${r('failed').toFixed(0)} |`,
      );
    }
    const p99 = (side: Side) => median(runs[side].map((x) => x.p99));
    // Over all rounds, not their median: a round in which many replies expired counts with its weight.
    const total = (k: 'requests' | 'reached') => runs.cache.reduce((n, x) => n + x[k], 0);
    console.log(
      `p99 through the cache ÷ straight: ${(p99('cache') / p99('origin')).toFixed(3)} (target <= 1); ` +
        `share the API served through the cache, all rounds: ${((100 * total('reached')) / total('requests')).toFixed(1)}% ` +
        `of ${total('requests')} (target <= 10%)`,
    );
  } finally {
    await nginx.stop();
    await b.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
