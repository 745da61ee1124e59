import { startApp, TestApp } from '../support/app';
import { adminToken, createHostedService, createUser, get, post, read, uniq } from '../support/client';
import { spawnWorker, startWorker } from '../support/worker';

const TTL_S = 3;
const METRICS_TOKEN = 'metrics-' + 'x'.repeat(40);

type Sample = { name: string; labels: Record<string, string>; value: number };

/**
 * Prometheus text format 0.0.4: every line is a comment or `name{labels} value`; anything else fails the test. Values
 * are Go floats, whose NaN and Inf are case-insensitive (prom-client prints an unsampled event-loop mean as `Nan`).
 */
function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?(?:[0-9.e+-]+|nan|\+inf|inf))$/i.exec(line);
    if (!m) throw new Error(`not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    const rest = (m[2] ?? '').replace(
      /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g,
      (_, k: string, v: string) => ((labels[k] = v), ''),
    );
    if (rest !== '') throw new Error(`bad labels in: ${line}`);
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** Operators' view: worker heartbeat in /health, job status with no worker, /metrics. */
describe('ops: workers, health and metrics', () => {
  let t: TestApp;
  let admin: string;
  let pub: { username: string; token: string };
  let serviceItemId: string;

  const health = async () => read(await fetch(`${t.root}/health`));
  const workersDown = async () => (await health()).body.details.workers.status === 'down';
  const waitUntil = async (what: string, check: () => Promise<boolean>, ms: number) => {
    const started = Date.now();
    while (!(await check())) {
      if (Date.now() - started > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return Date.now() - started;
  };
  const exportCsv = async () => {
    const r = await post(t.base, `content/users/${pub.username}/export`, { itemId: serviceItemId, exportFormat: 'CSV' }, pub.token);
    expect(r.body.jobId).toMatch(/^[0-9a-f]{32}$/);
    return r.body as { jobId: string; exportItemId: string };
  };
  const status = async (e: { jobId: string; exportItemId: string }) =>
    (await post(t.base, `content/users/${pub.username}/items/${e.exportItemId}/status`, { jobId: e.jobId, jobType: 'export' }, pub.token))
      .body;

  beforeAll(async () => {
    t = await startApp({ WORKER_HEARTBEAT_TTL_S: String(TTL_S), METRICS_TOKEN });
    admin = await adminToken(t.base);
    pub = await createUser(t.base, admin, 'org_publisher');
    const created = await createHostedService(
      t.base,
      pub,
      [{ name: 'Pts', geometryType: 'esriGeometryPoint', fields: [{ name: 'N', type: 'esriFieldTypeInteger' }] }],
      uniq('ops'),
    );
    await t.db.query(
      `INSERT INTO "svc_${created.itemId}".l0 (n, shape) SELECT g, ST_SetSRID(ST_MakePoint(g, g), 4326) FROM generate_series(1, 50) g`,
    );
    serviceItemId = created.itemId;
    // A worker hard-killed by an earlier suite of this run may still count for up to the default TTL.
    await waitUntil('no worker alive', workersDown, 20000);
  }, 60000);
  afterAll(() => t?.close());

  it('with no worker: /health stays 200 and says workers are down; a queued export says it waits for a worker', async () => {
    const h = await health();
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({
      status: 'ok',
      error: {},
      details: { postgres: { status: 'up' }, redis: { status: 'up' }, workers: { status: 'down', alive: 0 } },
    });
    const e = await exportCsv();
    expect(await status(e)).toEqual({
      status: 'processing',
      statusMessage: 'Waiting for a worker: none is running.',
      itemId: e.exportItemId,
    });
    // The item's own status says the same.
    const own = (await post(t.base, `content/users/${pub.username}/items/${e.exportItemId}/status`, {}, pub.token)).body;
    expect(own.statusMessage).toBe('Waiting for a worker: none is running.');

    // A worker arrives: it is reported at once, and the waiting job runs.
    const worker = await startWorker(t.config);
    try {
      expect((await health()).body.details.workers).toEqual({ status: 'up', alive: 1 });
      await waitUntil('the export to complete', async () => (await status(e)).status === 'completed', 60000);
    } finally {
      await worker.close();
    }
    // A clean shutdown removes the heartbeat at once, without waiting for the TTL.
    expect((await health()).body.details.workers).toMatchObject({ status: 'down', alive: 0 });
  }, 90000);

  it('a hard-killed worker process drops out of /health within the TTL while the API keeps answering', async () => {
    const w = spawnWorker(t.config, { WORKER_HEARTBEAT_TTL_S: String(TTL_S) });
    try {
      await w.waitFor('worker started');
      expect((await health()).body.details.workers).toEqual({ status: 'up', alive: 1 });
      w.child.kill('SIGKILL');
      await w.exited;
      // Nothing removed it: only the TTL can. Two missed beats at most, plus the polling.
      const gone = await waitUntil('the killed worker to drop out', workersDown, 60000);
      expect(gone).toBeLessThan((TTL_S + 2) * 1000);
      const h = await health();
      expect(h.status).toBe(200);
      expect(h.body.status).toBe('ok');
      expect((await get(t.base, 'community/self', {}, admin)).body.username).toBe('admin');
      const e = await exportCsv();
      expect((await status(e)).statusMessage).toBe('Waiting for a worker: none is running.');
    } finally {
      w.child.kill('SIGKILL');
    }
  }, 90000);

  describe('/metrics', () => {
    const metrics = (init: { token?: string; headers?: Record<string, string> } = {}) =>
      fetch(`${t.root}/metrics${init.token ? `?token=${encodeURIComponent(init.token)}` : ''}`, { headers: init.headers }).then(read);

    it('refuses anonymous callers, bad tokens, non-administrators and a wrong metrics token', async () => {
      const user = await createUser(t.base, admin, 'org_publisher');
      const refusals: [Awaited<ReturnType<typeof metrics>>, number, number][] = [
        [await metrics(), 401, 499],
        [await metrics({ token: 'not-a-token' }), 401, 498],
        [await metrics({ token: user.token }), 403, 403],
        [await metrics({ headers: { Authorization: `Bearer ${user.token}` } }), 403, 403],
        [await metrics({ headers: { Authorization: `Bearer ${METRICS_TOKEN.slice(0, -1)}y` } }), 401, 498],
        [await metrics({ headers: { Authorization: `Bearer ${METRICS_TOKEN}x` } }), 401, 498],
      ];
      for (const [r, status, code] of refusals) {
        expect(r.status).toBe(status);
        expect(r.body.error.code).toBe(code);
        expect(r.text).not.toContain('http_request_duration_seconds');
      }
    });

    it('serves parseable Prometheus text to an administrator and to METRICS_TOKEN, with route-level HTTP figures', async () => {
      // Distinct ids on one route: they must land in one label value, not one each.
      const ids = Array.from({ length: 5 }, (_, i) => `${'0'.repeat(31)}${i}`);
      for (const id of ids) await get(t.base, `content/items/${id}`, {}, admin);

      const byAdmin = await metrics({ token: admin });
      const byHeader = await metrics({ headers: { 'X-Esri-Authorization': `Bearer ${admin}` } });
      const r = await metrics({ headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
      for (const reply of [byAdmin, byHeader, r]) {
        expect(reply.status).toBe(200);
        expect(reply.headers.get('content-type')).toMatch(/^text\/plain;(.*;)? ?version=0\.0\.4/);
      }
      const samples = parsePrometheus(r.text);
      const find = (name: string, labels: Record<string, string> = {}) =>
        samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

      const itemRoute = find('http_request_duration_seconds_count', {
        route: '/sharing/rest/content/items/:id',
        method: 'GET',
        status_code: '200',
      });
      expect(itemRoute).toHaveLength(1);
      expect(itemRoute[0].value).toBeGreaterThanOrEqual(ids.length);
      expect(r.text).not.toContain(ids[0]);
      expect(find('http_request_duration_seconds_count', { route: '/health' })[0].value).toBeGreaterThan(0);
      const buckets = find('http_request_duration_seconds_bucket', {
        route: '/sharing/rest/content/items/:id',
        method: 'GET',
        status_code: '200',
      });
      expect(buckets.find((b) => b.labels.le === '+Inf')!.value).toBe(itemRoute[0].value);

      // Queue depths: the export queued after the kill above still waits.
      expect(find('arcgis_queue_jobs', { queue: 'export', state: 'waiting' })[0].value).toBeGreaterThanOrEqual(1);
      for (const state of ['active', 'delayed', 'failed', 'completed'])
        expect(find('arcgis_queue_jobs', { queue: 'publish', state })).toHaveLength(1);
      expect(find('arcgis_workers_alive')[0].value).toBe(0);

      // The export the in-process worker completed, from the job rows and the result item.
      const jobs = find('arcgis_job_duration_seconds_count', { kind: 'export', format: 'csv', status: 'completed' });
      expect(jobs).toHaveLength(1);
      expect(jobs[0].value).toBeGreaterThanOrEqual(1);
      expect(find('arcgis_job_duration_seconds_bucket', { kind: 'export', format: 'csv', status: 'completed', le: '+Inf' })[0].value).toBe(
        jobs[0].value,
      );
      const [{ size }] = await t.db.query(
        `SELECT sum(i.size)::int AS size FROM jobs j JOIN items i ON i.id = j.result_item_id
          WHERE j.type = 'export' AND j.params->>'format' = 'csv' AND j.status = 'completed'`,
      );
      expect(size).toBeGreaterThan(0);
      expect(find('arcgis_export_bytes', { format: 'csv' })[0].value).toBe(size);

      // Default process metrics, on the app's own registry.
      expect(find('process_cpu_user_seconds_total')).toHaveLength(1);
      expect(find('nodejs_heap_size_used_bytes')[0].value).toBeGreaterThan(0);
      // The runtime's version, so a scrape tells which Node.js each replica runs.
      expect(find('nodejs_version_info', { version: process.version, major: process.version.slice(1).split('.')[0] })).toHaveLength(1);
    });
  });
});
