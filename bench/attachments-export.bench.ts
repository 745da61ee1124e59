/**
 * Memory of an export with attachments: the worker's peak RSS exporting a layer whose features carry 100 attachments
 * against one carrying 10,000 (1 MB each), side by side, to GeoPackage (a `__ATTACH` table of blobs) and CSV (a zip
 * with an `attachments/` folder). The worker reads one attachment at a time, so the peak should not grow with the
 * count (target: the 10,000 side's peak within 1.25× of the 100 side's).
 *
 *   npm run build && npx ts-node --transpile-only bench/attachments-export.bench.ts
 *   (MANY=10000 FEW=100 ATTACHMENT_MB=1 ROUNDS=1 FORMATS=GeoPackage,CSV)
 *
 * The files are one random file hard-linked under every attachment's key in the file store, and the rows inserted
 * in SQL: the export reads each through the store as it reads any attachment, and the bench needs 1 MB of disk for
 * its inputs (the outputs are written in full, about MANY × ATTACHMENT_MB, and removed after each export).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { BENCH_ADMIN, createHostedService, form, startBenchApp } from './support/bench-app';
import { cpuMs, rssKb } from './support/proc';
import { spawnBenchWorker } from './support/worker-command';

const MANY = Number(process.env.MANY ?? 10_000);
const FEW = Number(process.env.FEW ?? 100);
const MB = Number(process.env.ATTACHMENT_MB ?? 1);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const FORMATS = (process.env.FORMATS ?? 'GeoPackage,CSV').split(',');
const TARGET = 1.25;
const TRACE = process.env.BENCH_TRACE === '1';

interface Sample {
  ms: number;
  cpu: number;
  peakKb: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

async function main() {
  if (!existsSync(path.resolve(__dirname, '../dist/src/worker.js')))
    throw new Error('run `npm run build` first (the worker runs from dist)');
  const b = await startBenchApp({ WORKER_CONCURRENCY: '1' });
  const worker = spawnBenchWorker(b.config);
  const db = new Client({ connectionString: b.config.databaseUrl });
  await db.connect();
  try {
    const layer = (id: number, name: string) => ({
      id,
      name,
      geometryType: 'esriGeometryPoint',
      hasAttachments: true,
      fields: [
        { name: 'GlobalID', type: 'esriFieldTypeGlobalID' },
        { name: 'Name', type: 'esriFieldTypeString', length: 20 },
      ],
    });
    const svc = await createHostedService(b.base, { username: BENCH_ADMIN.username, token: b.token }, [layer(0, 'few'), layer(1, 'many')], {
      name: 'bench_attachments',
    });
    const schema = `svc_${svc.itemId}`;
    const file = path.join(b.config.dataDir, 'tmp', 'photo.jpg');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(MB * 1024 * 1024));
    const t0 = Date.now();
    for (const [id, n] of [
      [0, FEW],
      [1, MANY],
    ]) {
      await db.query(
        `INSERT INTO "${schema}".l${id} (globalid, name, shape) SELECT gen_random_uuid(), 'feature ' || g, ST_SetSRID(ST_MakePoint(g % 360 - 180, 0), 4326)
           FROM generate_series(1, $1) g`,
        [n],
      );
      const keys = Array.from({ length: n }, (_, i) => `items/${svc.itemId}/.attachments/${randomUUID()}-photo-${i}.jpg`);
      for (const key of keys) {
        mkdirSync(path.dirname(path.join(b.config.dataDir, key)), { recursive: true });
        linkSync(file, path.join(b.config.dataDir, key));
      }
      await db.query(
        `INSERT INTO feature_attachments (service_item_id, layer_id, object_id, global_id, name, content_type, size, keywords, storage_key)
         SELECT $1, $2, o, gen_random_uuid(), 'photo-' || o || '.jpg', 'image/jpeg', $3, '', k
           FROM unnest($4::text[]) WITH ORDINALITY AS x(k, o)`,
        [svc.itemId, id, MB * 1024 * 1024, keys],
      );
    }
    console.log(`${FEW} + ${MANY} attachments of ${MB} MB in place in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const exportOnce = async (layerId: number, format: string): Promise<Sample> => {
      writeFileSync(`/proc/${worker.pid}/clear_refs`, '5');
      const cpu0 = cpuMs(worker.pid!);
      const t = Date.now();
      const r = await form(`${b.base}/content/users/${BENCH_ADMIN.username}/export`, {
        token: b.token,
        itemId: svc.itemId,
        exportFormat: format,
        exportParameters: JSON.stringify({ layers: [{ id: layerId }], includeAttachments: true }),
      });
      let peak = 0;
      let said = '';
      for (;;) {
        const rss = rssKb(worker.pid!);
        peak = Math.max(peak, rss);
        const [row] = (await db.query(`SELECT status, status_message FROM jobs WHERE id = $1`, [r.jobId])).rows;
        // BENCH_TRACE=1: the worker's RSS at each new progress message, to see which step holds memory.
        if (TRACE && row.status_message !== said) {
          said = row.status_message;
          console.log(`  ${((Date.now() - t) / 1000).toFixed(1)} s, RSS ${mb(rss)}: ${said}`);
        }
        if (row.status === 'completed') break;
        if (row.status === 'failed') throw new Error(`export failed: ${row.status_message}`);
        await sleep(50);
      }
      const out = { ms: Date.now() - t, cpu: cpuMs(worker.pid!) - cpu0, peakKb: Math.max(peak, rssKb(worker.pid!, 'VmHWM')) };
      // The export item and its file go at once: ten thousand megabytes each.
      await form(`${b.base}/content/users/${BENCH_ADMIN.username}/items/${r.exportItemId}/delete`, { token: b.token });
      return out;
    };

    await exportOnce(0, 'CSV'); // warm-up: connections, GDAL drivers
    const results = FORMATS.map((format) => ({ format, few: [] as Sample[], many: [] as Sample[] }));
    for (let round = 0; round < ROUNDS; round++)
      for (const r of results)
        for (const side of round % 2 ? ['many', 'few'] : ['few', 'many']) {
          const x = await exportOnce(side === 'few' ? 0 : 1, r.format);
          (side === 'few' ? r.few : r.many).push(x);
          console.log(`${r.format} ${side === 'few' ? FEW : MANY}: ${(x.ms / 1000).toFixed(1)} s, peak ${mb(x.peakKb)}`);
        }
    console.log(
      `\nload average at end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ${ROUNDS} round(s), medians\n`,
    );
    console.log(
      `| Export with attachments (${MB} MB each) | ${FEW}: worker peak RSS | ${MANY}: worker peak RSS | ratio | ${FEW}: time (worker CPU) | ${MANY}: time (worker CPU) | target |`,
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const r of results) {
      const m = (xs: Sample[], k: keyof Sample) => median(xs.map((x) => x[k]));
      const ratio = m(r.many, 'peakKb') / m(r.few, 'peakKb');
      console.log(
        `| ${r.format} | ${mb(m(r.few, 'peakKb'))} | ${mb(m(r.many, 'peakKb'))} | ${ratio.toFixed(2)} | ` +
          `${(m(r.few, 'ms') / 1000).toFixed(1)} s (${(m(r.few, 'cpu') / 1000).toFixed(1)} s) | ${(m(r.many, 'ms') / 1000).toFixed(1)} s (${(m(r.many, 'cpu') / 1000).toFixed(1)} s) | ` +
          `≤ ${TARGET}× ${ratio <= TARGET ? '✓' : '✗'} |`,
      );
    }
  } finally {
    await db.end();
    worker.kill('SIGTERM');
    await new Promise((r) => worker.on('exit', r));
    await b.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
