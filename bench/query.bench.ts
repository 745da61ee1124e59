/**
 * Query throughput: pages of 2,000 features from a 100,000-point layer, as ArcGIS JSON and as GeoJSON, over HTTP.
 *
 *   npm run bench:query            (POINTS=100000 PAGES=50 by default)
 */
import { BENCH_ADMIN, createHostedService, pct, startBenchApp } from './support/bench-app';

const POINTS = Number(process.env.POINTS ?? 100_000);
const PAGES = Number(process.env.PAGES ?? 50);

async function main() {
  const b = await startBenchApp();
  try {
    const created = await createHostedService(
      b.base,
      { username: BENCH_ADMIN.username, token: b.token },
      { name: 'bench_points', maxRecordCount: 2000 },
      [
        {
          name: 'pts',
          geometryType: 'esriGeometryPoint',
          fields: [
            { name: 'name', type: 'esriFieldTypeString', length: 40 },
            { name: 'n', type: 'esriFieldTypeInteger' },
            { name: 'a', type: 'esriFieldTypeDouble' },
            { name: 'b', type: 'esriFieldTypeDouble' },
            { name: 't', type: 'esriFieldTypeDate' },
          ],
        },
      ],
    );
    // Loaded with SQL: this measures reading, not writing.
    await b.db.query(
      `INSERT INTO "svc_${created.itemId}"."l0" (name, n, a, b, t, shape)
       SELECT 'point ' || g, g, random() * 1000, random(), now() - g * interval '1 minute', ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 170 - 85), 4326)
         FROM generate_series(1, $1) g`,
      [POINTS],
    );
    await b.db.query(`ANALYZE "svc_${created.itemId}"."l0"`);
    const layer = `${created.serviceurl}/0/query`;
    for (const f of ['json', 'geojson']) {
      const times: number[] = [];
      let features = 0;
      let bytes = 0;
      for (let i = 0; i < PAGES + 5; i++) {
        const offset = ((i * 2000) % POINTS).toString();
        const t0 = process.hrtime.bigint();
        const res = await fetch(
          `${layer}?f=${f}&where=1%3D1&outFields=*&resultOffset=${offset}&resultRecordCount=2000&orderByFields=OBJECTID&token=${b.token}`,
        );
        const text = await res.text();
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (i < 5) continue; // warm-up
        times.push(ms);
        features += (JSON.parse(text) as { features: unknown[] }).features.length;
        bytes += text.length;
      }
      times.sort((x, y) => x - y);
      const total = times.reduce((s, x) => s + x, 0);
      console.log(
        `f=${f.padEnd(7)} pages of 2,000 from ${POINTS.toLocaleString('en')} points: p50 ${pct(times, 50).toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms, ` +
          `${Math.round((features / total) * 1000).toLocaleString('en')} features/s, ${(bytes / PAGES / 1024).toFixed(0)} KiB per page`,
      );
    }
  } finally {
    await b.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
