import { INestApplicationContext } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import gdal from 'gdal-async';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startApp, TestApp } from '../support/app';
import { adminToken, createHostedService, createUser, get, post, uniq } from '../support/client';
import { waitFor as waitUntil } from '../support/wait-for';
import { spawnWorker, startWorker } from '../support/worker';

/**
 * Faults the export pipeline must survive: a worker killed mid-job, SIGTERM during a job, Redis restarted while
 * jobs wait, and a layer deleted while its export is queued. Nothing may be lost: every item ends completed or
 * failed with a message.
 */
describe('export pipeline under faults', () => {
  let t: TestApp;
  let pub: { username: string; token: string };
  let service: { itemId: string; url: string };
  let dir: string;
  const POINTS = Number(process.env.FAULT_POINTS ?? 300_000);

  beforeAll(async () => {
    t = await startApp({ JOB_LOCK_MS: '4000' });
    dir = mkdtempSync(path.join(tmpdir(), 'export-faults-'));
    pub = await createUser(t.base, await adminToken(t.base), 'org_publisher');
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
        { name: 'Small', geometryType: 'esriGeometryPoint', fields: [{ name: 'N', type: 'esriFieldTypeInteger' }] },
      ],
      uniq('faults'),
    );
    // Enough rows that an export takes seconds, so it can be interrupted.
    await t.db.query(
      `INSERT INTO "svc_${created.itemId}".l0 (name, n, shape) SELECT 'point ' || g, g, ST_SetSRID(ST_MakePoint(g % 360 - 180, (g % 170) - 85), 4326) FROM generate_series(1, $1) g`,
      [POINTS],
    );
    await t.db.query(
      `INSERT INTO "svc_${created.itemId}".l1 (n, shape) SELECT g, ST_SetSRID(ST_MakePoint(g, g), 4326) FROM generate_series(1, 10) g`,
    );
    service = { itemId: created.itemId, url: created.serviceurl };
  }, 120000);

  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const exportLayer = async (layer: number, format = 'GeoPackage') => {
    const r = await post(
      t.base,
      `content/users/${pub.username}/export`,
      { itemId: service.itemId, exportFormat: format, exportParameters: JSON.stringify({ layers: [{ id: layer }] }) },
      pub.token,
    );
    expect(r.body.jobId).toBeDefined();
    return r.body as { jobId: string; exportItemId: string };
  };
  const tmpEntries = async () => (existsSync(path.join(t.config.dataDir, 'tmp')) ? readdirSync(path.join(t.config.dataDir, 'tmp')) : []);
  const jobRow = async (id: string) => (await t.db.query(`SELECT status, status_message, attempts FROM jobs WHERE id = $1`, [id]))[0];
  const waitFor = (what: string, check: () => Promise<boolean>, ms = 90000) => waitUntil(what, check, ms, 200);
  const status = (e: { jobId: string; exportItemId: string }) =>
    post(t.base, `content/users/${pub.username}/items/${e.exportItemId}/status`, { jobId: e.jobId, jobType: 'export' }, pub.token).then(
      (r) => r.body,
    );
  const featureCount = async (e: { exportItemId: string }) => {
    const res = await fetch(`${t.base}/content/items/${e.exportItemId}/data?token=${pub.token}`);
    expect(res.status).toBe(200);
    const file = path.join(dir, `${e.exportItemId}.gpkg`);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const ds = gdal.open(file);
    const n = ds.layers.get(0).features.count();
    ds.close();
    return n;
  };

  it('hands the job of a worker killed mid-export to another worker, which completes it', async () => {
    const a = spawnWorker(t.config);
    await a.waitFor('worker started');
    const e = await exportLayer(0);
    await waitFor('the job to start', async () => (await jobRow(e.jobId)).status === 'processing');
    await new Promise((r) => setTimeout(r, 500));
    a.child.kill('SIGKILL');
    await a.exited;
    expect((await jobRow(e.jobId)).status).toBe('processing');
    expect((await status(e)).status).toBe('processing');
    const b = spawnWorker(t.config);
    try {
      await waitFor('the job to complete', async () => (await jobRow(e.jobId)).status === 'completed', 120000);
      expect((await jobRow(e.jobId)).attempts).toBeGreaterThanOrEqual(2);
      expect(await status(e)).toEqual({ status: 'completed', statusMessage: 'completed', itemId: e.exportItemId });
      expect(await featureCount(e)).toBe(POINTS);
    } finally {
      b.child.kill('SIGTERM');
      await b.exited;
    }
  }, 180000);

  it('finishes the running export on SIGTERM, then exits 0', async () => {
    const w = spawnWorker(t.config);
    await w.waitFor('worker started');
    const e = await exportLayer(0);
    await waitFor('the job to start', async () => (await jobRow(e.jobId)).status === 'processing');
    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    expect((await jobRow(e.jobId)).status).toBe('completed');
    expect(await featureCount(e)).toBe(POINTS);
  }, 180000);

  it('re-enqueues jobs Redis lost in a restart, and completes them', async () => {
    const jobs = [await exportLayer(1), await exportLayer(1, 'CSV')];
    execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', '6379', 'shutdown', 'nosave']);
    try {
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      execFileSync('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no']);
    }
    await waitFor('Redis to answer again', async () => (await fetch(`${t.root}/health`)).status === 200, 20000);
    // Rows younger than a few seconds may still be on their way into Redis, so the reconciler leaves them alone.
    await new Promise((r) => setTimeout(r, 5500));
    let worker: INestApplicationContext | undefined;
    try {
      worker = await startWorker(t.config);
      for (const e of jobs) {
        await waitFor(`job ${e.jobId}`, async () => (await jobRow(e.jobId)).status === 'completed', 60000);
        expect((await status(e)).status).toBe('completed');
      }
    } finally {
      await worker?.close();
    }
  }, 120000);

  it('stops a running export when its item is deleted, leaving no file behind', async () => {
    const worker = await startWorker(t.config);
    try {
      const e = await exportLayer(0);
      await waitFor('the job to start', async () => (await jobRow(e.jobId)).status === 'processing');
      expect((await post(t.base, `content/users/${pub.username}/items/${e.exportItemId}/delete`, {}, pub.token)).body.success).toBe(true);
      expect((await jobRow(e.jobId)).status).toBe('cancelled');
      // The worker notices within its polling interval and abandons the job; its temporary folder goes with it.
      await waitFor('the temporary folder to go', async () => !(await tmpEntries()).some((n) => n.includes(e.jobId)), 30000);
      expect((await jobRow(e.jobId)).status).toBe('cancelled');
      expect(existsSync(path.join(t.config.dataDir, 'items', e.exportItemId))).toBe(false);
    } finally {
      await worker.close();
    }
  }, 120000);

  it('checks the where clause the request was parsed to against the layer as it is when the job runs', async () => {
    const r = await post(
      t.base,
      `content/users/${pub.username}/export`,
      { itemId: service.itemId, exportFormat: 'CSV', exportParameters: JSON.stringify({ layers: [{ id: 1, where: 'N > 5' }] }) },
      pub.token,
    );
    const e = r.body as { jobId: string; exportItemId: string };
    // The job carries the clause as the API parsed it, so the worker compiles nothing from text.
    const [{ params }] = await t.db.query(`SELECT params FROM jobs WHERE id = $1`, [e.jobId]);
    expect(params.layers[0]).toMatchObject({ id: 1, where: 'N > 5', whereTree: expect.any(Object) });
    // While it waits, layer 1 is replaced by one without the field the clause reads.
    const admin = service.url.replace('/rest/services/', '/rest/admin/services/');
    const replace = async (op: string, def: object) => (await post(admin, op, { [op]: JSON.stringify(def) }, pub.token)).body;
    expect(await replace('deleteFromDefinition', { layers: [{ id: 1 }] })).toEqual({ success: true });
    expect(
      await replace('addToDefinition', {
        layers: [{ id: 1, name: 'Small', geometryType: 'esriGeometryPoint', fields: [{ name: 'M', type: 'esriFieldTypeInteger' }] }],
      }),
    ).toMatchObject({ success: true });
    const worker = await startWorker(t.config);
    try {
      await waitFor('the job to fail', async () => (await jobRow(e.jobId)).status === 'failed', 60000);
      const { status: s, statusMessage } = await status(e);
      expect(s).toBe('failed');
      expect(statusMessage).toMatch(/^Layer 1 where: Unknown field 'N'/);
      expect((await jobRow(e.jobId)).attempts).toBe(1);
    } finally {
      await worker.close();
    }
  }, 120000);

  it('fails a queued export whose layer was deleted, with a message the client sees', async () => {
    const e = await exportLayer(1);
    const admin = service.url.replace('/rest/services/', '/rest/admin/services/');
    expect(
      (await post(admin, 'deleteFromDefinition', { deleteFromDefinition: JSON.stringify({ layers: [{ id: 1 }] }) }, pub.token)).body,
    ).toEqual({ success: true });
    const worker = await startWorker(t.config);
    try {
      await waitFor('the job to fail', async () => (await jobRow(e.jobId)).status === 'failed', 60000);
      expect(await status(e)).toEqual({
        status: 'failed',
        statusMessage: 'Layer 1 no longer exists in the service.',
        itemId: e.exportItemId,
      });
      const item = (await get(t.base, `content/items/${e.exportItemId}`, {}, pub.token)).body;
      expect(item).toMatchObject({ size: 0 });
      expect((await get(t.base, `content/items/${e.exportItemId}/data`, {}, pub.token)).body.error.code).toBe(400);
    } finally {
      await worker.close();
    }
  }, 120000);
});
