/**
 * The S3 side of a benchmark: a deployment of its own (database, queue prefix, DATA_DIR) whose item files live in a
 * bucket on s3rver, a process of its own that writes what it receives to local disk, as MinIO would. API and worker
 * run as separate processes from dist/, as `npm start` and `npm run start:worker` run them, so each one's memory is
 * its own. (Two deployments cannot share a database: each worker re-enqueues unfinished jobs it finds missing from
 * its own queues.)
 */
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { s3Client } from '../../src/core/storage/s3-client';
import { BENCH_ADMIN, createBenchDatabase, form } from './bench-app';
import { cpuMs, rssKb } from './proc';
import { API, benchWorkerEnv, WORKER } from './worker-command';

const ROOT = path.resolve(__dirname, '../..');
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface S3Side {
  /** The S3 API's REST base (…/sharing/rest). */
  base: string;
  databaseUrl: string;
  token: string;
  api: ChildProcess;
  worker: ChildProcess;
  /** CPU time s3rver has used so far, in ms: the share of this machine the storage server takes from the export. */
  serverCpuMs(): number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

async function s3rver(dir: string): Promise<{ endpoint: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `new (require('s3rver'))({ address: '127.0.0.1', port: 0, directory: ${JSON.stringify(dir)}, silent: true }).run().then(({ port }) => console.log(port))`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (d) => resolve(String(d).trim())));
  return { endpoint: `http://127.0.0.1:${port}`, child };
}

export async function startS3Side(): Promise<S3Side> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-s3-'));
  const db = await createBenchDatabase();
  const server = await s3rver(path.join(dir, 'bucket'));
  const bucket = 'bench';
  await s3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS }).send(
    new CreateBucketCommand({ Bucket: bucket }),
  );
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: db.url,
    QUEUE_PREFIX: db.name,
    DATA_DIR: path.join(dir, 'data'),
    ADMIN_USERNAME: BENCH_ADMIN.username,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    STORAGE_URL: `s3://${bucket}/bench`,
    S3_ENDPOINT: server.endpoint,
    S3_REGION: 'us-east-1',
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    STORAGE_SWEEP_INTERVAL_S: '0',
    WORKER_CONCURRENCY: '1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    // As `npm run start:worker` and the image run processes.
    ...benchWorkerEnv(),
    NODE_NO_WARNINGS: '1',
  };
  const api = spawn(process.execPath, [...API.flags, API.script], { cwd: ROOT, env: { ...env, ...API.env }, stdio: 'inherit' });
  const worker = spawn(process.execPath, [...WORKER.flags, WORKER.script], { cwd: ROOT, env, stdio: 'inherit' });
  const root = `http://127.0.0.1:${port}`;
  for (let until = Date.now() + 60_000; ;) {
    const up = await fetch(`${root}/health`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (up) break;
    if (Date.now() > until || api.exitCode !== null) throw new Error('the S3 side API did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  const stopped = (c: ChildProcess) => (c.exitCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r)));
  const base = `${root}/sharing/rest`;
  const { token } = await form(`${base}/generateToken`, { ...BENCH_ADMIN, client: 'requestip' });
  return {
    base,
    databaseUrl: db.url,
    token,
    api,
    worker,
    serverCpuMs: () => cpuMs(server.child.pid!),
    async stop() {
      for (const c of [api, worker, server.child]) c.kill();
      await Promise.all([api, worker, server.child].map(stopped));
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TransferMemory {
  /** RSS before the upload, and before the download. */
  baselineKb: number;
  downloadBaselineKb: number;
  uploadMs: number;
  uploadGrowthKb: number;
  downloadMs: number;
  downloadGrowthKb: number;
}

/**
 * Uploads a file of `mb` MiB to the S3 side's API as a file item (multipart addItem, streamed into the bucket) and
 * downloads it again, while the API process's RSS is sampled every 20 ms: how much more memory it holds at most
 * than just before, for each direction. A 1 MiB file goes up and down first, so the API has loaded the AWS SDK
 * (lazily, on first use) before anything is measured. The file is random bytes, written to `dir` and removed.
 */
export async function transferMemory(side: S3Side, mb: number, dir: string): Promise<TransferMemory> {
  const file = path.join(dir, 'transfer.bin');
  const out = createWriteStream(file);
  const block = randomBytes(1024 * 1024);
  for (let i = 0; i < mb; i++) if (!out.write(block)) await new Promise<void>((r) => out.once('drain', () => r()));
  await new Promise<void>((r) => out.end(() => r()));
  const pid = side.api.pid!;
  const upload = async (path: string) => {
    const body = new FormData();
    for (const [k, v] of Object.entries({ title: 'transfer', type: 'CSV', f: 'json', token: side.token })) body.set(k, v);
    body.set('file', await openAsBlob(path), 'transfer.csv');
    const r = (await (await fetch(`${side.base}/content/users/${BENCH_ADMIN.username}/addItem`, { method: 'POST', body })).json()) as {
      id?: string;
      error?: unknown;
    };
    if (!r.id) throw new Error(`upload failed: ${JSON.stringify(r.error)}`);
    return r.id;
  };
  const download = async (itemId: string) => {
    const res = await fetch(`${side.base}/content/items/${itemId}/data?token=${side.token}`);
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    return bytes;
  };
  /** Peak RSS growth over what it was when fn started, how long fn took, and that RSS. */
  const watched = async (fn: () => Promise<void>): Promise<[number, number, number]> => {
    const before = rssKb(pid);
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, rssKb(pid))), 20);
    const t0 = Date.now();
    try {
      await fn();
    } finally {
      clearInterval(timer);
    }
    return [Date.now() - t0, Math.max(0, peak - before), before];
  };
  const small = path.join(dir, 'warm-up.bin');
  writeFileSync(small, randomBytes(1024 * 1024));
  await download(await upload(small));
  rmSync(small, { force: true });
  await new Promise((r) => setTimeout(r, 1000));
  let itemId = '';
  const [uploadMs, uploadGrowthKb, baselineKb] = await watched(async () => {
    itemId = await upload(file);
  });
  rmSync(file, { force: true });
  await new Promise((r) => setTimeout(r, 1000));
  const [downloadMs, downloadGrowthKb, downloadBaselineKb] = await watched(async () => {
    const bytes = await download(itemId);
    if (bytes !== mb * 1024 * 1024) throw new Error(`downloaded ${bytes} bytes of ${mb * 1024 * 1024}`);
  });
  return { baselineKb, downloadBaselineKb, uploadMs, uploadGrowthKb, downloadMs, downloadGrowthKb };
}
