/**
 * Layer info latency on large layers: GET FeatureServer/<id> (which carries the layer's extent), FeatureServer/layers
 * and the service root (whose fullExtent unions the layers') for a service of a 100,000-point layer and a
 * 100,000-polygon layer, over HTTP on loopback, signed in.
 *
 *   npx ts-node --transpile-only bench/layer-info.bench.ts        (ROWS=100000 REQUESTS=40)
 *
 * Rows are written with SQL, then the table is analyzed as a publish leaves it. Prints p50/p95 per resource.
 */
import { BENCH_ADMIN, createHostedService, pct, startBenchApp } from './support/bench-app';

const ROWS = Number(process.env.ROWS ?? 100_000);
const REQUESTS = Number(process.env.REQUESTS ?? 40);

async function main() {
  const b = await startBenchApp();
  try {
    const created = await createHostedService(
      b.base,
      { username: BENCH_ADMIN.username, token: b.token },
      [
        { id: 0, name: 'pts', geometryType: 'esriGeometryPoint', fields: [{ name: 'name', type: 'esriFieldTypeString', length: 40 }] },
        { id: 1, name: 'areas', geometryType: 'esriGeometryPolygon', fields: [{ name: 'name', type: 'esriFieldTypeString', length: 40 }] },
      ],
      { name: 'layer_info_bench' },
    );
    const schema = `"svc_${created.itemId}"`;
    await b.db.query(
      `INSERT INTO ${schema}."l0" (name, shape)
       SELECT 'point ' || g, ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 170 - 85), 4326) FROM generate_series(1, $1) g`,
      [ROWS],
    );
    // 33-vertex rings, so an exact extent reads every polygon's body.
    await b.db.query(
      `INSERT INTO ${schema}."l1" (name, shape)
       SELECT 'area ' || g, ST_Multi(ST_Buffer(ST_SetSRID(ST_MakePoint(random() * 350 - 175, random() * 160 - 80), 4326), 0.05, 8))
         FROM generate_series(1, $1) g`,
      [ROWS],
    );
    await b.db.query(`ANALYZE ${schema}."l0"`);
    await b.db.query(`ANALYZE ${schema}."l1"`);
    const url = created.serviceurl;
    for (const [label, path] of [
      ['point layer', '/0'],
      ['polygon layer', '/1'],
      ['/layers', '/layers'],
      ['service', ''],
    ]) {
      const times: number[] = [];
      for (let i = 0; i < REQUESTS + 3; i++) {
        const t0 = performance.now();
        const res = await fetch(`${url}${path}?f=json&token=${b.token}`);
        const body = (await res.json()) as { error?: unknown };
        if (body.error) throw new Error(`${path}: ${JSON.stringify(body.error)}`);
        if (i >= 3) times.push(performance.now() - t0); // the first few warm the caches and the JIT
      }
      times.sort((x, y) => x - y);
      console.log(`${label.padEnd(14)} p50 ${pct(times, 50).toFixed(1)} ms  p95 ${pct(times, 95).toFixed(1)} ms`);
    }
  } finally {
    await b.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
