import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startApp, TestApp } from '../support/app';
import { adminToken, createHostedService, createUser, post, uniq } from '../support/client';
import { bucketKeys, holdS3, s3Env, testS3 } from '../support/s3';
import { waitFor as waitUntil } from '../support/wait-for';
import { spawnWorker } from '../support/worker';

type Worker = ReturnType<typeof spawnWorker>;
interface Exported {
  jobId: string;
  exportItemId: string;
}

const FORMATS = [
  'Shapefile',
  'CSV',
  'File Geodatabase',
  'GeoJson',
  'KML',
  'Excel',
  'Feature Collection',
  'GeoPackage',
  'FlatGeobuf',
  'SQLite',
];

/** Every file under a folder (empty folders left by the scratch spaces do not count). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(path.join(dir, f)).isFile());
}

/** Jobs here move files through a bucket: allow two minutes, looking five times a second. */
const waitFor = (what: string, check: () => Promise<boolean>, ms = 120000) => waitUntil(what, check, ms, 200);

/**
 * API and workers as if on separate hosts: the API in this process and workers as processes of their own, each with
 * its own DATA_DIR, nothing shared but PostgreSQL, Redis and the bucket (s3rver on loopback). Runs in the local
 * project only: it sets up S3 itself.
 */
describe('two hosts: API and workers sharing only the bucket', () => {
  let t: TestApp;
  let release: () => Promise<void>;
  let bucket: string;
  let pub: { username: string; token: string };
  const workerDirs: string[] = [];
  const workers: Worker[] = [];

  beforeAll(async () => {
    release = await holdS3();
    const env = await s3Env('cluster');
    // Locks long enough that a loaded machine does not mistake a slow worker for a dead one.
    t = await startApp({ ...env, JOB_LOCK_MS: '10000' });
    bucket = t.config.storage.s3!.bucket;
    pub = await createUser(t.base, await adminToken(t.base), 'org_publisher');
  }, 60000);
  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await t?.close();
    await release?.();
    for (const d of workerDirs) rmSync(d, { recursive: true, force: true });
  });

  function worker(extraEnv: Record<string, string> = {}): Worker {
    const dir = mkdtempSync(path.join(tmpdir(), 'arcgis-host-'));
    workerDirs.push(dir);
    const w = spawnWorker(t.config, { DATA_DIR: dir, WORKER_CONCURRENCY: '1', ...extraEnv });
    workers.push(w);
    return w;
  }
  const stop = async (w: Worker) => {
    if (w.child.exitCode === null) w.child.kill('SIGTERM');
    await w.exited;
  };
  // A test that fails half-way must not leave its workers to take the next test's jobs.
  afterEach(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
  });
  const started = (w: Worker) => w.waitFor('worker started', 120000);

  const jobRow = async (id: string) =>
    (await t.db.query(`SELECT status, status_message, attempts FROM jobs WHERE id = $1`, [id]))[0] as {
      status: string;
      status_message: string;
      attempts: number;
    };
  const itemRow = async (id: string) =>
    (await t.db.query(`SELECT status, size, file_path FROM items WHERE id = $1`, [id]))[0] as
      { status: string; size: string; file_path: string | null } | undefined;
  const finished = (id: string) => waitFor(`job ${id}`, async () => ['completed', 'failed'].includes((await jobRow(id)).status));
  const keysOf = async (itemId: string) => (await bucketKeys(bucket)).filter((k) => k.includes(`/items/${itemId}/`));
  /**
   * Keys that belong to no live item. The workers share the run's queue, so they may also export for an earlier
   * suite's job; that item still exists and its file is not a leak.
   */
  async function orphanKeys(): Promise<string[]> {
    const keys = await bucketKeys(bucket);
    const ids = [...new Set(keys.map((k) => /\/items\/(\w+)\//.exec(k)?.[1]).filter((id): id is string => !!id))];
    const live = new Set(((await t.db.query(`SELECT id FROM items WHERE id = ANY($1)`, [ids])) as { id: string }[]).map((r) => r.id));
    return keys.filter((k) => !live.has(/\/items\/(\w+)\//.exec(k)?.[1] ?? ''));
  }

  async function publishPoints(n: number): Promise<{ sourceId: string; serviceItemId: string }> {
    const features = Array.from({ length: n }, (_, i) => ({
      type: 'Feature',
      properties: { name: `point number ${i}`, n: i },
      geometry: { type: 'Point', coordinates: [(i % 360) - 180 + 0.5, (i % 170) - 85 + 0.25] },
    }));
    const form = new FormData();
    for (const [k, v] of Object.entries({ title: 'points', type: 'GeoJson', f: 'json', token: pub.token })) form.set(k, v);
    form.set('file', new Blob([JSON.stringify({ type: 'FeatureCollection', features })]), 'points.geojson');
    const { id } = (await (await fetch(`${t.base}/content/users/${pub.username}/addItem`, { method: 'POST', body: form })).json()) as {
      id: string;
    };
    const r = await post(
      t.base,
      `content/users/${pub.username}/publish`,
      { itemId: id, filetype: 'geojson', publishParameters: JSON.stringify({ name: `hosts_${Date.now()}` }) },
      pub.token,
    );
    const { jobId, serviceItemId } = r.body.services[0];
    await finished(jobId);
    expect(await jobRow(jobId)).toMatchObject({ status: 'completed' });
    return { sourceId: id, serviceItemId };
  }

  async function exportAs(serviceItemId: string, exportFormat: string): Promise<Exported> {
    const r = await post(
      t.base,
      `content/users/${pub.username}/export`,
      { itemId: serviceItemId, exportFormat, exportParameters: JSON.stringify({ layers: [{ id: 0 }] }) },
      pub.token,
    );
    expect(r.body.jobId).toBeDefined();
    return r.body;
  }

  const remove = (id: string) => post(t.base, `content/users/${pub.username}/items/${id}/delete`, {}, pub.token);

  it('publishes, exports every format, downloads with Range and deletes, leaving nothing in the bucket or any DATA_DIR', async () => {
    const a = worker();
    const b = worker();
    await Promise.all([started(a), started(b)]);
    const { sourceId, serviceItemId } = await publishPoints(500);

    const exports = [];
    for (const format of FORMATS) exports.push(await exportAs(serviceItemId, format));
    for (const e of exports) await finished(e.jobId);
    for (const e of exports) {
      expect(await jobRow(e.jobId)).toMatchObject({ status: 'completed' });
      const item = (await itemRow(e.exportItemId))!;
      const size = Number(item.size);
      expect(await keysOf(e.exportItemId)).toEqual([`cluster/${item.file_path}`]);
      // Resumed in two pieces, as a download manager would, and compared with a whole download.
      const url = `${t.base}/content/items/${e.exportItemId}/data?token=${pub.token}`;
      const whole = Buffer.from(await (await fetch(url)).arrayBuffer());
      expect(whole.length).toBe(size);
      const cut = Math.floor(size / 3);
      const first = await fetch(url, { headers: { Range: `bytes=0-${cut - 1}` } });
      const rest = await fetch(url, { headers: { Range: `bytes=${cut}-`, 'If-Range': first.headers.get('etag')! } });
      expect([first.status, rest.status]).toEqual([206, 206]);
      const joined = Buffer.concat([Buffer.from(await first.arrayBuffer()), Buffer.from(await rest.arrayBuffer())]);
      expect(joined.equals(whole)).toBe(true);
    }
    // Both hosts took jobs: each wrote exports in its own DATA_DIR and uploaded them.
    expect(a.output()).toMatch(/job export \S+ attempt 1 started/);
    expect(b.output()).toMatch(/job export \S+ attempt 1 started/);
    // Every export was uploaded while it was written (parts the writer changed afterwards sent again), and the
    // Range downloads above compared each object with its whole.
    const ahead = [...(a.output() + b.output()).matchAll(/job file \S+ of item (\w+) stored while it was written/g)].map((m) => m[1]);
    // The workers share the run's queue, so a job an earlier suite left queued may be among theirs.
    expect(ahead).toEqual(expect.arrayContaining(exports.map((e) => e.exportItemId)));

    for (const e of exports) expect((await remove(e.exportItemId)).body.success).toBe(true);
    expect((await remove(serviceItemId)).body.success).toBe(true);
    expect((await remove(sourceId)).body.success).toBe(true);
    expect(await orphanKeys()).toEqual([]);
    await Promise.all([stop(a), stop(b)]);
    for (const dir of [t.config.dataDir, ...workerDirs]) expect({ dir, files: filesUnder(dir) }).toEqual({ dir, files: [] });
  }, 400000);

  it('completes on another worker the export of a worker killed mid-upload, leaving exactly one object', async () => {
    const { endpoint } = await testS3();
    const upstream = new URL(endpoint);
    // Worker A reaches the bucket through this proxy, which kills A when A sends its first part.
    let a: Worker | undefined;
    let killedMidUpload = false;
    const sockets = new Set<Socket>();
    const proxy: Server = createServer((client) => {
      const server = new Socket();
      sockets.add(client).add(server);
      server.connect(Number(upstream.port), upstream.hostname);
      client.on('data', (chunk) => {
        if (!killedMidUpload && /^PUT \S+[?&]partNumber=/m.test(chunk.toString('latin1', 0, 2048))) {
          killedMidUpload = true;
          a?.child.kill('SIGKILL');
        }
        server.write(chunk);
      });
      server.pipe(client);
      client.on('error', () => server.destroy());
      server.on('error', () => client.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    try {
      const { serviceItemId } = await bigService();
      a = worker({ S3_ENDPOINT: `http://127.0.0.1:${(proxy.address() as { port: number }).port}` });
      await started(a);
      // Larger than one 8 MiB part, so the result is a multipart upload.
      const e = await exportAs(serviceItemId, 'CSV');
      await a.exited;
      expect(killedMidUpload).toBe(true);
      expect((await jobRow(e.jobId)).status).toBe('processing');
      expect(await keysOf(e.exportItemId)).toEqual([]);
      const b = worker();
      await finished(e.jobId);
      const job = await jobRow(e.jobId);
      expect(job).toMatchObject({ status: 'completed' });
      expect(job.attempts).toBeGreaterThanOrEqual(2);
      const item = (await itemRow(e.exportItemId))!;
      expect(await keysOf(e.exportItemId)).toEqual([`cluster/${item.file_path}`]);
      const res = await fetch(`${t.base}/content/items/${e.exportItemId}/data?token=${pub.token}`);
      expect((await res.arrayBuffer()).byteLength).toBe(Number(item.size));
      expect(Number(item.size)).toBeGreaterThan(8 * 1024 * 1024);
      await stop(b);
      for (const id of [e.exportItemId, serviceItemId]) await remove(id);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => proxy.close(r));
    }
  }, 400000);

  it('retries jobs while the storage server is down: items end completed with their file, or failed with a message', async () => {
    const { serviceItemId } = await bigService();
    const w = worker();
    await started(w);
    const s3 = await testS3();
    const exports = [await exportAs(serviceItemId, 'CSV'), await exportAs(serviceItemId, 'GeoJson'), await exportAs(serviceItemId, 'CSV')];
    await waitFor('the first job to run', async () => (await jobRow(exports[0].jobId)).status === 'processing');
    await s3.stop();
    try {
      // Down until an upload has failed and its job went back to the queue with backoff.
      await w.waitFor(/will retry: The file storage is unavailable/, 180000);
    } finally {
      await s3.start();
    }
    for (const e of exports) await finished(e.jobId);
    for (const e of exports) {
      const job = await jobRow(e.jobId);
      const item = (await itemRow(e.exportItemId))!;
      if (job.status === 'completed') {
        expect(item.status).toBe('completed');
        expect(await keysOf(e.exportItemId)).toEqual([`cluster/${item.file_path}`]);
        const res = await fetch(`${t.base}/content/items/${e.exportItemId}/data?token=${pub.token}`);
        expect((await res.arrayBuffer()).byteLength).toBe(Number(item.size));
      } else {
        expect(job.status_message).toMatch(/\w/);
        expect(await keysOf(e.exportItemId)).toEqual([]);
      }
    }
    await stop(w);
    for (const id of [...exports.map((e) => e.exportItemId), serviceItemId]) await remove(id);
  }, 400000);

  /** A hosted service of 400,000 points: a CSV export of it is larger than one 8 MiB part. */
  async function bigService(): Promise<{ serviceItemId: string }> {
    const created = await createHostedService(
      t.base,
      pub,
      [
        {
          name: 'Big',
          geometryType: 'esriGeometryPoint',
          fields: [
            { name: 'Name', type: 'esriFieldTypeString' },
            { name: 'N', type: 'esriFieldTypeInteger' },
          ],
        },
      ],
      uniq('hosts'),
    );
    await t.db.query(
      `INSERT INTO "svc_${created.itemId}".l0 (name, n, shape)
       SELECT 'point number ' || g, g, ST_SetSRID(ST_MakePoint(g % 360 - 180, (g % 170) - 85), 4326) FROM generate_series(1, 400000) g`,
    );
    return { serviceItemId: created.itemId };
  }
});
