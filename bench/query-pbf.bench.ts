/**
 * f=pbf against f=json: pages of 2,000 features from a 100,000-point layer over HTTP on loopback, asked for as the
 * ArcGIS Maps SDK asks when it draws a layer: outSR 102100, quantization in view mode from the tile's upper left at one
 * pixel, and the outFields its renderer needs, which for a simple renderer is the object id alone. Here the tile is the
 * whole world at 4,096 pixels (zoom 3), and its envelope, which the SDK also sends as the spatial filter, is left out:
 * over the whole world it selects every row, and what it costs is the filter's, not the format's. The same pages with
 * outFields=* follow, as a layer with popups asks. f=json gets the same query without quantization. The formats take
 * turns every round; figures are medians over the rounds. A third side asks the same f=pbf pages of a hosted feature
 * layer view of the same rows (every row and field): "view ÷ layer" is its p50 over the layer's (target 1.1).
 *
 *   npm run bench:query        (runs this after query.bench.ts; POINTS=100000 PAGES=20 ROUNDS=5)
 */
import { DataSource } from 'typeorm';
import { decodeFeatureCollection } from '../src/feature-server/pbf/feature-collection';
import { pct, startBenchApp } from './support/bench-app';
import { getPage } from './support/http-page';
import { createPointLayer, createPointView } from './support/point-layer';
import { serverCpuMs as cpuMs } from './support/proc';

const POINTS = Number(process.env.POINTS ?? 100_000);
const PAGES = Number(process.env.PAGES ?? 20);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const PAGE = 2000;
const WORLD = { xmin: -20037508.342789244, ymin: -20037508.342789244, xmax: 20037508.342789244, ymax: 20037508.342789244 };
const QUANTIZATION = JSON.stringify({
  mode: 'view',
  originPosition: 'upperLeft',
  tolerance: (WORLD.xmax - WORLD.xmin) / 4096,
  extent: { ...WORLD, spatialReference: { wkid: 102100 } },
});
type Format = 'json' | 'pbf';
type Side = Format | 'view';

const median = (xs: number[]) =>
  pct(
    [...xs].sort((a, b) => a - b),
    50,
  );

function pageUrl(layer: string, f: Format, outFields: string, offset: number, token: string): string {
  const q = new URLSearchParams({
    f,
    where: '1=1',
    outFields,
    outSR: '102100',
    resultType: 'tile',
    resultOffset: String(offset),
    resultRecordCount: String(PAGE),
    orderByFields: 'OBJECTID ASC',
    token,
    ...(f === 'pbf' ? { quantizationParameters: QUANTIZATION } : {}),
  });
  return `${layer}?${q}`;
}

/**
 * One side's pages in a row (three unmeasured first): p50, p95, bytes and CPU per page; every page must hold PAGE
 * features. The CPU counted is the request's alone: the check of each reply's features is made outside it.
 */
async function pages(db: DataSource, layer: string, f: Format, outFields: string, token: string, round: number) {
  const times: number[] = [];
  let bytes = 0;
  const cpu = { node: 0, pg: 0 };
  for (let i = -3; i < PAGES; i++) {
    const offset = ((round * (PAGES + 3) + i + 3) % Math.floor(POINTS / PAGE)) * PAGE;
    const before = await cpuMs(db);
    const { ms, body } = await getPage(pageUrl(layer, f, outFields, offset, token));
    const after = await cpuMs(db);
    if (i >= 0) {
      cpu.node += after.node - before.node;
      cpu.pg += after.pg - before.pg;
    }
    const n =
      f === 'json'
        ? (JSON.parse(body.toString()) as { features: unknown[] }).features.length
        : ((decodeFeatureCollection(body).queryResult as { featureResult: { features: unknown[] } }).featureResult.features.length ?? 0);
    if (n !== PAGE) throw new Error(`f=${f} page at ${offset}: ${n} features (${body.subarray(0, 200).toString()})`);
    if (i < 0) continue;
    times.push(ms);
    bytes += body.byteLength;
  }
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p95: pct(times, 95), min: times[0], bytes: bytes / PAGES, node: cpu.node / PAGES, pg: cpu.pg / PAGES };
}

async function main() {
  const b = await startBenchApp();
  try {
    const created = await createPointLayer(b, 'bench_points_pbf', PAGE, POINTS);
    await b.db.query(`ANALYZE "svc_${created.itemId}"."l0"`);
    const layer = `${created.serviceurl}/0/query`;
    const view = `${await createPointView(b, 'bench_points_pbf', 'bench_points_pbf_view')}/0/query`;
    console.log(
      `\nf=pbf and f=json: pages of ${PAGE.toLocaleString('en')} from ${POINTS.toLocaleString('en')} points as the SDK asks when drawing, ` +
        `${ROUNDS} rounds of ${PAGES} pages, medians`,
    );
    console.log('| outFields | format | p50 ms | p95 ms | min ms | Node CPU ms | PostgreSQL CPU ms | KiB per page | bytes vs f=json |');
    console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const outFields of ['OBJECTID', '*']) {
      const runs: Record<Side, Awaited<ReturnType<typeof pages>>[]> = { json: [], pbf: [], view: [] };
      const sides: Side[] = ['json', 'pbf', 'view'];
      for (let round = 0; round < ROUNDS; round++) {
        // Each round starts with the next side.
        for (const side of [...sides.slice(round % 3), ...sides.slice(0, round % 3)])
          runs[side].push(await pages(b.db, side === 'view' ? view : layer, side === 'json' ? 'json' : 'pbf', outFields, b.token, round));
      }
      const row = (f: Side) => ({
        p50: median(runs[f].map((r) => r.p50)),
        p95: median(runs[f].map((r) => r.p95)),
        min: Math.min(...runs[f].map((r) => r.min)),
        bytes: median(runs[f].map((r) => r.bytes)),
        node: median(runs[f].map((r) => r.node)),
        pg: median(runs[f].map((r) => r.pg)),
      });
      const json = row('json');
      for (const f of sides) {
        const r = row(f);
        const ratio =
          f === 'view'
            ? `view ÷ layer p50 ${(r.p50 / row('pbf').p50).toFixed(2)}`
            : f === 'pbf'
              ? `${(json.bytes / r.bytes).toFixed(1)}x fewer`
              : '';
        console.log(
          `| ${outFields} | ${f === 'view' ? 'f=pbf, view' : `f=${f}`} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.min.toFixed(1)} | ${r.node.toFixed(1)} | ${r.pg.toFixed(1)} | ${(r.bytes / 1024).toFixed(0)} | ${ratio} |`,
        );
      }
    }
    console.log('Targets for f=pbf: p50 <= 10 ms, at least 5x fewer bytes than f=json; through a view, p50 within 1.1x of the layer.');
  } finally {
    await b.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
