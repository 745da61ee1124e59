/**
 * What S3 storage costs an export: the same service (POINTS points) exported to CSV and GeoPackage by a worker on
 * DATA_DIR and by a worker on a bucket, request sent → job row completed, the two taking turns (BENCH_REPEAT rounds,
 * medians). On S3 the finished file is uploaded (multipart, 8 MiB parts, 4 in flight) before the row completes.
 * The bucket is s3rver on loopback, in a process of its own: it writes what it receives to local disk, as MinIO would.
 *
 *   npx ts-node --transpile-only bench/storage.bench.ts      (POINTS=1000000 BENCH_REPEAT=3)
 */
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { s3Client } from '../src/core/storage/s3-client';
import { WorkerModule } from '../src/worker.module';
import { BenchApp, BENCH_ADMIN, createHostedService, form, startBenchApp } from './support/bench-app';

const POINTS = Number(process.env.POINTS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const FORMATS = ['CSV', 'GeoPackage'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function s3rver(dir: string): Promise<{ endpoint: string; stop(): void }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `new (require('s3rver'))({ address: '127.0.0.1', port: 0, directory: ${JSON.stringify(dir)}, silent: true }).run().then(({ port }) => console.log(port))`,
    ],
    { cwd: path.resolve(__dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (d) => resolve(String(d).trim())));
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

interface Side {
  name: string;
  b: BenchApp;
  worker: INestApplicationContext;
  serviceItemId: string;
  times: Record<string, number[]>;
}

async function side(name: string, env: Record<string, string>): Promise<Side> {
  const b = await startBenchApp({ WORKER_CONCURRENCY: '1', STORAGE_SWEEP_INTERVAL_S: '0', ...env });
  const created = await createHostedService(b.base, { username: BENCH_ADMIN.username, token: b.token }, { name: `storage_${name}` }, [
    {
      name: 'Points',
      geometryType: 'esriGeometryPoint',
      fields: [
        { name: 'Name', type: 'esriFieldTypeString' },
        { name: 'N', type: 'esriFieldTypeInteger' },
        { name: 'V', type: 'esriFieldTypeDouble' },
      ],
    },
  ]);
  await b.db.query(
    `INSERT INTO "svc_${created.itemId}".l0 (name, n, v, shape)
     SELECT 'point ' || g, g, g / 7.0, ST_SetSRID(ST_MakePoint(g % 360 - 180 + 0.123456, (g % 170) - 85 + 0.654321), 4326)
       FROM generate_series(1, $1) g`,
    [POINTS],
  );
  await b.db.query(`ANALYZE "svc_${created.itemId}".l0`);
  const worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(b.config), { logger: false });
  await worker.init();
  return { name, b, worker, serviceItemId: created.itemId, times: {} };
}

async function exportOnce(s: Side, format: string): Promise<number> {
  const started = Date.now();
  const r = await form(`${s.b.base}/content/users/${BENCH_ADMIN.username}/export`, {
    token: s.b.token,
    itemId: s.serviceItemId,
    exportFormat: format,
    exportParameters: JSON.stringify({ layers: [{ id: 0 }] }),
  });
  for (;;) {
    const [row] = await s.b.db.query(`SELECT status, status_message FROM jobs WHERE id = $1`, [r.jobId]);
    if (row.status === 'completed') break;
    if (row.status === 'failed') throw new Error(`${s.name} ${format}: ${row.status_message}`);
    await new Promise((res) => setTimeout(res, 100));
  }
  return Date.now() - started;
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'storage-bench-'));
  const server = await s3rver(dir);
  const sides: Side[] = [];
  try {
    const bucket = 'storage-bench';
    const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
    await s3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true, credentials }).send(
      new CreateBucketCommand({ Bucket: bucket }),
    );
    sides.push(await side('local', {}));
    sides.push(
      await side('s3', {
        STORAGE_URL: `s3://${bucket}/bench`,
        S3_ENDPOINT: server.endpoint,
        S3_FORCE_PATH_STYLE: 'true',
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      }),
    );
    for (let round = 0; round < REPEAT; round++) {
      for (const format of FORMATS) {
        for (const s of round % 2 ? [...sides].reverse() : sides) (s.times[format] ??= []).push(await exportOnce(s, format));
      }
    }
    console.log(`\n${POINTS.toLocaleString('en-US')} points, median of ${REPEAT}: request → completed\n`);
    console.log('| format | DATA_DIR | S3 (s3rver) | S3 / local |\n|---|---|---|---|');
    for (const format of FORMATS) {
      const [l, s] = sides.map((x) => median(x.times[format]));
      console.log(`| ${format} | ${(l / 1000).toFixed(2)} s | ${(s / 1000).toFixed(2)} s | ${(s / l).toFixed(2)}× |`);
    }
  } finally {
    for (const s of sides) {
      await s.worker.close();
      await s.b.close();
    }
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
