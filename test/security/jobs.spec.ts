import { INestApplicationContext } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import gdal from 'gdal-async';
import { copyFileSync, createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { OgrArgs, UnsafeGdalArgumentError } from '../../src/core/gdal/ogr-args';
import { bullConnection } from '../../src/core/jobs/job-queue.service';
import { buildTranslateArgs } from '../../src/export/writer/gdal/args';
import { zipDirectory } from '../../src/export/writer/zip/zip';
import { startApp, TestApp } from '../support/app';
import { adminToken, createHostedService, createUser, get, post, uniq } from '../support/client';
import { shapefileZip } from '../support/shapefile-zip';
import { waitFor } from '../support/wait-for';
import { spawnWorker, startWorker } from '../support/worker';

/**
 * Publishing and jobs under attack: option injection through names, permanent versus transient failures, a
 * delete during a large load, zip bombs and lying headers, half-written publish requests, and failed exports
 * keeping their files. Everything runs against the real API, worker, Postgres, Redis and GDAL.
 */
type User = { username: string; token: string };
type Published = { jobId: string; serviceItemId: string; serviceurl: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function helpers(get$: () => { t: TestApp; pub: User }) {
  const upload = async (type: string, name: string, body: Buffer | string, mime = 'application/octet-stream') => {
    const { t, pub } = get$();
    const form = new FormData();
    for (const [k, v] of Object.entries({ title: name, type, f: 'json', token: pub.token })) form.set(k, v);
    form.set('file', new Blob([body], { type: mime }), name);
    const r = (await (await fetch(`${t.base}/content/users/${pub.username}/addItem`, { method: 'POST', body: form })).json()) as {
      id: string;
    };
    if (!r.id) throw new Error(`upload failed: ${JSON.stringify(r)}`);
    return r.id;
  };
  const publish = async (itemId: string, filetype: string, params: object = {}) => {
    const { t, pub } = get$();
    return (
      await post(
        t.base,
        `content/users/${pub.username}/publish`,
        { itemId, filetype, publishParameters: JSON.stringify({ name: uniq('svc'), ...params }) },
        pub.token,
      )
    ).body;
  };
  const jobRow = async (id: string) =>
    (await get$().t.db.query(`SELECT status, status_message, attempts FROM jobs WHERE id = $1`, [id]))[0];
  const finished = async (jobId: string, ms = 90000) => {
    await waitFor(`job ${jobId}`, async () => ['completed', 'failed', 'cancelled'].includes((await jobRow(jobId))?.status), ms);
    return jobRow(jobId);
  };
  return { upload, publish, jobRow, finished };
}

function geojson(name: string, n: number): string {
  const features = Array.from({ length: n }, (_, i) => ({
    type: 'Feature',
    properties: { label: `f${i}`, n: i },
    geometry: { type: 'Point', coordinates: [i % 180, (i % 80) / 2] },
  }));
  return JSON.stringify({ type: 'FeatureCollection', name, features });
}

/** A one-member zip whose headers declare `declared` bytes for data that inflates to `data.length` (a lie when they differ). */
function lyingZip(name: string, data: Buffer, declared: number): Buffer {
  const deflated = deflateRawSync(data);
  const fname = Buffer.from(name);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(deflated.length, 18);
  local.writeUInt32LE(declared, 22);
  local.writeUInt16LE(fname.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(deflated.length, 20);
  central.writeUInt32LE(declared, 24);
  central.writeUInt16LE(fname.length, 28);
  central.writeUInt32LE(0, 42);
  const cdOffset = local.length + fname.length + deflated.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fname.length, 12);
  end.writeUInt32LE(cdOffset, 16);
  return Buffer.concat([local, fname, deflated, central, fname, end]);
}

/** A zip (honest headers) of the given files. */
async function zipWith(dir: string, files: Record<string, Buffer>): Promise<Buffer> {
  const src = mkdtempSync(path.join(dir, 'zip-'));
  for (const [name, data] of Object.entries(files)) writeFileSync(path.join(src, name), data);
  const zip = path.join(dir, `${path.basename(src)}.zip`);
  await zipDirectory(src, zip);
  return readFileSync(zip);
}

/** An API, a worker and a publisher, with a scratch folder: what most blocks here start from. */
async function stack(env: Record<string, string>, prefix: string) {
  const t = await startApp(env);
  const worker = await startWorker(t.config);
  const pub: User = await createUser(t.base, await adminToken(t.base), 'org_publisher');
  return { t, worker, pub, dir: mkdtempSync(path.join(tmpdir(), prefix)) };
}

async function teardown(worker: INestApplicationContext | undefined, t: TestApp | undefined, dir: string | undefined) {
  await worker?.close();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}

describe('jobs and publishing: hostile input', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let pub: User;
  let dir: string;
  const h = helpers(() => ({ t, pub }));

  beforeAll(async () => ({ t, worker, pub, dir } = await stack({ JOB_LOCK_MS: '5000' }, 'jobs-security-')));
  afterAll(() => teardown(worker, t, dir));

  describe('finding 1: names never become GDAL options', () => {
    it('publishes a GeoJSON whose layer is named -overwrite as data, every feature loaded into the defined table', async () => {
      const id = await h.upload('GeoJson', 'evil.geojson', geojson('-overwrite', 40), 'application/geo+json');
      const s = (await h.publish(id, 'geojson')).services[0] as Published;
      const row = await h.finished(s.jobId);
      expect(row.status).toBe('completed');
      const info = (await get(`${s.serviceurl}/0`, '', {}, pub.token)).body;
      expect(info.name).toBe('-overwrite');
      const q = (await get(`${s.serviceurl}/0`, 'query', { where: 'n >= 38', outFields: 'label,n', orderByFields: 'n' }, pub.token)).body;
      expect(q.features.map((f: { attributes: { label: string } }) => f.attributes.label)).toEqual(['f38', 'f39']);
      expect((await get(`${s.serviceurl}/0`, 'query', { where: '1=1', returnCountOnly: true }, pub.token)).body.count).toBe(40);
      // -overwrite would have let GDAL recreate the table its own way: the identity key and GiST index must be ours.
      const schema = `svc_${s.serviceItemId}`;
      const cols = await t.db.query(
        `SELECT column_name, is_identity FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'l0' AND is_identity = 'YES'`,
        [schema],
      );
      expect(cols).toHaveLength(1);
    });

    it('refuses option-like positional names and @file statements in every argument list', () => {
      expect(() => new OgrArgs().layer('-overwrite')).toThrow(UnsafeGdalArgumentError);
      expect(() => new OgrArgs().option('-sql', '@/etc/passwd')).toThrow(UnsafeGdalArgumentError);
      expect(() => new OgrArgs().option('-where', ' @/etc/passwd')).toThrow(UnsafeGdalArgumentError);
      expect(() => new OgrArgs().option('-overwrite', 'x')).toThrow(UnsafeGdalArgumentError);
      // Export: a hostile layer name and field names only ever follow an option that takes them.
      const args = buildTranslateArgs({
        layer: {
          id: 0,
          name: '-overwrite',
          schema: 's',
          table: 't',
          srid: 4326,
          geometryType: 'esriGeometryPoint',
          where: null,
          includeGeometry: true,
          fields: [
            { name: 'OBJECTID', column: 'objectid', type: 'esriFieldTypeOID' },
            { name: '-update', column: '-update', type: 'esriFieldTypeString' },
          ],
        } as never,
        format: 'geojson',
        layerName: '-overwrite',
        update: false,
        target: null,
      });
      const takesValue = new Set(['-f', '-nln', '-nlt', '-sql', '-t_srs', '-lco', '-dsco']);
      for (let i = 0; i < args.length; i++) {
        expect(args[i].startsWith('-')).toBe(true);
        if (takesValue.has(args[i])) i++;
      }
    });
  });

  describe('finding 2: permanent failures end the job at once', () => {
    // The row is failed just before BullMQ records the job's end, so the BullMQ state is read once it has settled.
    const attemptsOf = async (queue: string, jobId: string) => {
      const q = new Queue(queue, { connection: bullConnection(t.config), prefix: t.config.queuePrefix });
      try {
        for (let until = Date.now() + 10000; ;) {
          const job = await q.getJob(jobId);
          const state = await job?.getState();
          if (state !== 'active' || Date.now() > until) return { state, attemptsMade: job?.attemptsMade };
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        await q.close();
      }
    };

    it('fails an export whose source table is broken after exactly one attempt', async () => {
      const created = await createHostedService(
        t.base,
        pub,
        [{ name: 'L', geometryType: 'esriGeometryPoint', fields: [{ name: 'N', type: 'esriFieldTypeInteger' }] }],
        uniq('broken'),
      );
      // The layer's definition names a column its table no longer has: every attempt would fail the same way.
      await t.db.query(`ALTER TABLE "svc_${created.itemId}".l0 DROP COLUMN n`);
      const e = (
        await post(
          t.base,
          `content/users/${pub.username}/export`,
          { itemId: created.itemId, exportFormat: 'CSV', exportParameters: JSON.stringify({ layers: [{ id: 0 }] }) },
          pub.token,
        )
      ).body;
      expect(e.jobId).toBeDefined();
      // Five attempts with 2 s exponential backoff take 30 s; a permanent failure ends within a few seconds.
      const row = await h.finished(e.jobId, 15000);
      expect(row).toMatchObject({ status: 'failed', attempts: 1 });
      expect(await attemptsOf('export', e.jobId)).toEqual({ state: 'failed', attemptsMade: 1 });
      expect(row.status_message).not.toMatch(/password=|\n\s+at /);
    });

    it('fails a publish of a zip with a damaged member after one attempt instead of loading part of it', async () => {
      const zip = await shapefileZip(dir, 3000);
      // Overwrite the middle of the first member's deflated data (points.dbf, points.prj... in name order: the .dbf).
      const nameLen = zip.readUInt16LE(26);
      const extraLen = zip.readUInt16LE(28);
      const size = zip.readUInt32LE(18);
      const start = 30 + nameLen + extraLen;
      zip.fill(0xff, start + Math.floor(size / 3), start + Math.floor(size / 3) + 64);
      const id = await h.upload('Shapefile', 'damaged.zip', zip, 'application/zip');
      const s = (await h.publish(id, 'shapefile')).services[0] as Published;
      const row = await h.finished(s.jobId, 15000);
      expect(row).toMatchObject({ status: 'failed', attempts: 1 });
      expect(row.status_message).toMatch(/zip/i);
      expect(await attemptsOf('publish', s.jobId)).toEqual({ state: 'failed', attemptsMade: 1 });
    });
  });

  describe('finding 5: the service item and its job row commit together', () => {
    it('leaves nothing behind when the job row cannot be written', async () => {
      const id = await h.upload('GeoJson', 'ok.geojson', geojson('fine', 3), 'application/geo+json');
      const items = async () => Number((await t.db.query(`SELECT count(*) AS n FROM items WHERE type = 'Feature Service'`))[0].n);
      const schemas = async () => Number((await t.db.query(`SELECT count(*) AS n FROM pg_namespace WHERE nspname LIKE 'svc\\_%'`))[0].n);
      const before = { items: await items(), schemas: await schemas() };
      // A real constraint violation on the second write (the job row), after the first (item, service, schema).
      await t.db.query(`ALTER TABLE jobs ADD CONSTRAINT security_test_no_publish CHECK (type <> 'publish') NOT VALID`);
      let r;
      try {
        r = await h.publish(id, 'geojson', { name: 'half_written' });
      } finally {
        await t.db.query(`ALTER TABLE jobs DROP CONSTRAINT security_test_no_publish`);
      }
      expect(r.error).toBeDefined();
      expect(JSON.stringify(r)).not.toMatch(/security_test_no_publish|QueryFailedError|\n\s+at /);
      expect(await items()).toBe(before.items);
      expect(await schemas()).toBe(before.schemas);
      expect(await t.db.query(`SELECT 1 FROM feature_services WHERE name = 'half_written'`)).toHaveLength(0);
      // And the name is free for the retry, which succeeds.
      const ok = (await h.publish(id, 'geojson', { name: 'half_written' })).services[0] as Published;
      expect((await h.finished(ok.jobId)).status).toBe('completed');
    });
  });
});

describe('jobs: zip and feature limits', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let pub: User;
  let dir: string;
  const h = helpers(() => ({ t, pub }));

  beforeAll(
    async () => ({ t, worker, pub, dir } = await stack({ PUBLISH_MAX_UNPACKED_MB: '1', PUBLISH_MAX_FEATURES: '500' }, 'jobs-limits-')),
  );
  afterAll(() => teardown(worker, t, dir));

  const layerCount = async (serviceItemId: string) => {
    const tables = await t.db.query(`SELECT table_name FROM feature_layers WHERE service_item_id = $1`, [serviceItemId]);
    let n = 0;
    for (const { table_name } of tables)
      n += Number((await t.db.query(`SELECT count(*) AS n FROM "svc_${serviceItemId}"."${table_name}"`))[0].n);
    return n;
  };

  it('refuses at request time a zip whose directory declares more than the unpacked limit', async () => {
    const zip = await zipWith(dir, { 'padding.bin': Buffer.alloc(3 * 1024 * 1024) });
    const id = await h.upload('Shapefile', 'bomb.zip', zip, 'application/zip');
    expect(zip.length).toBeLessThan(64 * 1024);
    const r = await h.publish(id, 'shapefile');
    expect(r.error).toMatchObject({ code: 400, message: 'The file cannot be published.' });
    expect(r.error.details.join(' ')).toMatch(/unpacks to more than 1 MB/);
  });

  it('refuses at request time a shapefile whose index declares more features than allowed', async () => {
    const id = await h.upload('Shapefile', 'many.zip', await shapefileZip(dir, 600), 'application/zip');
    const r = await h.publish(id, 'shapefile');
    expect(r.error?.details.join(' ')).toMatch(/more than 500 features/);
  });

  it('fails the job when a member inflates past the limit while its headers claim a few bytes', async () => {
    const honest = await shapefileZip(dir, 10);
    // The lying member: its local and central headers declare 100 bytes; it inflates to 3 MB.
    const bomb = lyingZip('padding.bin', Buffer.alloc(3 * 1024 * 1024, 0x41), 100);
    // Merge: the honest shapefile's members plus the lying one, as one archive.
    const merged = mergeZips(honest, bomb);
    const id = await h.upload('Shapefile', 'lying.zip', merged, 'application/zip');
    const r = await h.publish(id, 'shapefile');
    expect(r.error).toBeUndefined();
    const s = r.services[0] as Published;
    const row = await h.finished(s.jobId, 30000);
    expect(row.status).toBe('failed');
    expect(row.status_message).toMatch(/padding\.bin|unpacks to more than/);
    expect(row.attempts).toBe(1);
    expect(await layerCount(s.serviceItemId)).toBe(0);
  });

  it('fails the job of a GeoJSON with more features than allowed, loading none', async () => {
    const id = await h.upload('GeoJson', 'many.geojson', geojson('many', 700), 'application/geo+json');
    const s = (await h.publish(id, 'geojson')).services[0] as Published;
    const row = await h.finished(s.jobId, 30000);
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row.status_message).toMatch(/more than 500 features/);
    expect(await layerCount(s.serviceItemId)).toBe(0);
  });

  it('stops loading at the limit when the file understates its feature count (a GeoPackage with a forged count)', async () => {
    const gpkg = path.join(dir, 'forged.gpkg');
    const ds = gdal.drivers.get('GPKG').create(gpkg);
    const layer = ds.layers.create('forged', gdal.SpatialReference.fromEPSG(4326), gdal.wkbPoint);
    layer.fields.add(new gdal.FieldDefn('n', gdal.OFTInteger));
    for (let i = 0; i < 800; i++) {
      const f = new gdal.Feature(layer);
      f.fields.set('n', i);
      f.setGeometry(new gdal.Point(i % 90, i % 45));
      layer.features.add(f);
    }
    ds.close();
    const fix = gdal.open(gpkg, 'r+');
    try {
      fix.executeSQL(`UPDATE gpkg_ogr_contents SET feature_count = 5`);
    } catch {
      // GDAL reports "no result set" for an UPDATE; the count below shows it ran
    }
    fix.close();
    const check = gdal.open(gpkg);
    const declared = check.layers.get(0).features.count(false);
    check.close();
    expect(declared).toBe(5);
    const id = await h.upload('GeoPackage', 'forged.gpkg', readFileSync(gpkg), 'application/geopackage+sqlite3');
    const s = (await h.publish(id, 'geoPackage')).services[0] as Published;
    const row = await h.finished(s.jobId, 30000);
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row.status_message).toMatch(/more than 500 features/);
    expect(await layerCount(s.serviceItemId)).toBe(0);
  });
});

/** The members of two zips (names distinct) as one archive, headers copied byte for byte (lies included). */
function mergeZips(a: Buffer, b: Buffer): Buffer {
  const parse = (z: Buffer) => {
    const eocd = z.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    const count = z.readUInt16LE(eocd + 10);
    let p = z.readUInt32LE(eocd + 16);
    const out: { local: Buffer; central: Buffer }[] = [];
    for (let i = 0; i < count; i++) {
      const nameLen = z.readUInt16LE(p + 28);
      const extraLen = z.readUInt16LE(p + 30);
      const commentLen = z.readUInt16LE(p + 32);
      const central = Buffer.from(z.subarray(p, p + 46 + nameLen + extraLen + commentLen));
      const off = z.readUInt32LE(p + 42);
      const lNameLen = z.readUInt16LE(off + 26);
      const lExtraLen = z.readUInt16LE(off + 28);
      const compressed = central.readUInt32LE(20);
      out.push({ local: Buffer.from(z.subarray(off, off + 30 + lNameLen + lExtraLen + compressed)), central });
      p += central.length;
    }
    return out;
  };
  const members = [...parse(a), ...parse(b)];
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    m.central.writeUInt32LE(offset, 42);
    locals.push(m.local);
    centrals.push(m.central);
    offset += m.local.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

describe('jobs: transient failures are retried', () => {
  let t: TestApp;
  let worker: INestApplicationContext | undefined;
  let pub: User;
  const h = helpers(() => ({ t, pub }));
  // A TCP relay between the worker and Postgres that the test can take down: real "connection refused" errors.
  let relay: Server | undefined;
  const sockets = new Set<Socket>();
  let port = 0;
  const relayUp = () =>
    new Promise<void>((resolve) => {
      relay = createServer((c) => {
        const upstream = new Socket();
        upstream.connect(5432, '127.0.0.1');
        for (const s of [c, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        c.pipe(upstream).pipe(c);
      });
      relay.listen(port, '127.0.0.1', () => {
        port = (relay!.address() as { port: number }).port;
        resolve();
      });
    });
  // close() calls back once every connection has ended, so the open ones (the worker's pool, its webhook
  // dispatcher's) are cut first.
  const relayDown = async () => {
    const closed = new Promise<void>((resolve) => relay!.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await closed;
  };

  beforeAll(async () => {
    t = await startApp();
    pub = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    await relayUp();
    const url = new URL(t.config.databaseUrl);
    url.host = `127.0.0.1:${port}`;
    worker = await startWorker({ ...t.config, databaseUrl: url.toString() });
  });
  afterAll(async () => {
    await worker?.close().catch(() => undefined);
    for (const s of sockets) s.destroy();
    relay?.close();
    await t?.close();
  });

  it('retries a publish whose database connection was refused, and completes it once the database is back', async () => {
    const id = await h.upload('GeoJson', 'retry.geojson', geojson('retry', 5), 'application/geo+json');
    await relayDown();
    const s = (await h.publish(id, 'geojson')).services[0] as Published;
    const q = new Queue('publish', { connection: bullConnection(t.config), prefix: t.config.queuePrefix });
    try {
      // The first attempt fails on the refused connection and is scheduled again (delayed), not failed.
      await waitFor('a failed first attempt', async () => ((await q.getJob(s.jobId))?.attemptsMade ?? 0) >= 1, 20000);
      expect(await (await q.getJob(s.jobId))!.getState()).toMatch(/delayed|waiting|active/);
      expect((await h.jobRow(s.jobId)).status).toBe('queued');
      await relayUp();
      const row = await h.finished(s.jobId, 60000);
      expect(row.status).toBe('completed');
      expect((await q.getJob(s.jobId))!.attemptsMade).toBeGreaterThanOrEqual(1);
    } finally {
      await q.close();
    }
  }, 90000);
});

describe('jobs: delete during a large publish', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let pub: User;
  let dir: string;
  const h = helpers(() => ({ t, pub }));
  const ROWS = Number(process.env.DELETE_ROWS ?? 1_200_000);

  beforeAll(async () => ({ t, worker, pub, dir } = await stack({ UPLOAD_MAX_MB: '512' }, 'jobs-delete-')));
  afterAll(() => teardown(worker, t, dir));

  it('answers the delete quickly, stops the load and leaves the job cancelled with a message', async () => {
    const csv = path.join(dir, 'big.csv');
    await new Promise<void>((resolve, reject) => {
      const out = createWriteStream(csv);
      out.on('error', reject).on('finish', () => resolve());
      out.write('name,value,longitude,latitude\n');
      let chunk = '';
      for (let i = 0; i < ROWS; i++) {
        chunk += `p${i},${i},${(i % 3600) / 10 - 180},${(i % 1700) / 10 - 85}\n`;
        if (chunk.length > 1 << 20) {
          out.write(chunk);
          chunk = '';
        }
      }
      out.end(chunk);
    });
    // The upload path is not under test here: a small upload, then the stored file is replaced by the large one.
    const id = await h.upload('CSV', 'big.csv', 'name,value,longitude,latitude\np0,0,0,0\n', 'text/csv');
    const stored = (await t.db.query(`SELECT file_path FROM items WHERE id = $1`, [id]))[0].file_path as string;
    copyFileSync(csv, path.join(t.config.dataDir, stored));
    const s = (await h.publish(id, 'csv')).services[0] as Published;
    // Wait until the COPY is streaming rows (the progress message reports a percentage above 0).
    await waitFor('the load to start', async () => /processing: [1-9]/.test((await h.jobRow(s.jobId))?.status_message ?? ''), 120000, 50);
    const t0 = Date.now();
    const del = (await post(t.base, `content/users/${pub.username}/items/${s.serviceItemId}/delete`, {}, pub.token)).body;
    const latency = Date.now() - t0;
    console.log(`delete during a ${ROWS.toLocaleString('en-US')}-row load answered in ${latency} ms`);
    expect(del).toMatchObject({ success: true });
    expect(latency).toBeLessThan(2000);
    const row = await h.jobRow(s.jobId);
    expect(row.status).toBe('cancelled');
    expect(row.status_message).toMatch(/Cancelled/);
    // The load really stopped: no backend of the job is left, and the schema is gone.
    await waitFor(
      'the job sessions to end',
      async () => (await t.db.query(`SELECT 1 FROM pg_stat_activity WHERE application_name LIKE $1`, [`job-${s.jobId}-%`])).length === 0,
      10000,
    );
    expect(await t.db.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [`svc_${s.serviceItemId}`])).toHaveLength(0);
  }, 300000);
});

describe('jobs: a failed export keeps no file', () => {
  let t: TestApp;
  let pub: User;
  let service: { itemId: string };
  const POINTS = 300_000;

  beforeAll(async () => {
    t = await startApp({ JOB_LOCK_MS: '2000' });
    pub = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    const created = await createHostedService(
      t.base,
      pub,
      [{ name: 'Big', geometryType: 'esriGeometryPoint', fields: [{ name: 'N', type: 'esriFieldTypeInteger' }] }],
      uniq('stall'),
    );
    await t.db.query(
      `INSERT INTO "svc_${created.itemId}".l0 (n, shape) SELECT g, ST_SetSRID(ST_MakePoint(g % 360 - 180, (g % 170) - 85), 4326) FROM generate_series(1, $1) g`,
      [POINTS],
    );
    service = { itemId: created.itemId };
  }, 60000);
  afterAll(async () => {
    await t?.close();
  });

  it('removes the file of an export failed by a stall, even when the stalled worker wakes up and finishes it', async () => {
    const w1 = spawnWorker(t.config, { JOB_LOCK_MS: '2000' });
    let checker: Worker | undefined;
    let w2: INestApplicationContext | undefined;
    try {
      await w1.waitFor(/Nest application successfully started|PublishProcessor|ExportProcessor|started/i, 60000).catch(() => undefined);
      const e = (
        await post(
          t.base,
          `content/users/${pub.username}/export`,
          { itemId: service.itemId, exportFormat: 'GeoPackage', exportParameters: JSON.stringify({ layers: [{ id: 0 }] }) },
          pub.token,
        )
      ).body;
      expect(e.jobId).toBeDefined();
      const row = async () => (await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [e.jobId]))[0].status as string;
      await waitFor('the export to start', async () => (await row()) === 'processing', 60000, 10);
      w1.child.kill('SIGSTOP');
      expect(await row()).toBe('processing');
      // Another process's stalled-job check finds the lock expired and, with no stall allowance, marks the job to
      // be failed; the next worker to fetch it (a live one, started now) fails it and closes the row.
      await sleep(2500);
      checker = new Worker('export', null, {
        connection: bullConnection(t.config),
        prefix: t.config.queuePrefix,
        maxStalledCount: 0,
        stalledInterval: 200,
        autorun: false,
      });
      const q = new Queue('export', { connection: bullConnection(t.config), prefix: t.config.queuePrefix });
      try {
        await waitFor(
          'the stalled-job check',
          async () => {
            await (checker as unknown as { moveStalledJobsToWait(): Promise<unknown> }).moveStalledJobsToWait();
            return (await (await q.getJob(e.jobId))?.getState()) !== 'active';
          },
          20000,
          300,
        );
        w2 = await startWorker(t.config);
        await waitFor('BullMQ to fail the stalled job', async () => (await (await q.getJob(e.jobId))?.getState()) === 'failed', 20000);
      } finally {
        await q.close();
      }
      await waitFor('the row to be failed', async () => (await row()) === 'failed', 10000);
      expect((await t.db.query(`SELECT status_message FROM jobs WHERE id = $1`, [e.jobId]))[0].status_message).toMatch(/stalled/);
      // The stalled worker wakes up and completes its export: the item must still end without a file.
      w1.child.kill('SIGCONT');
      await w1.waitFor(new RegExp(`job ${e.jobId} (done|stopped)`), 60000);
      const item = (await t.db.query(`SELECT status, file_path FROM items WHERE id = $1`, [e.exportItemId]))[0];
      expect(item.status).toBe('failed');
      const folder = path.join(t.config.dataDir, 'items', e.exportItemId);
      expect(existsSync(folder) ? readdirSync(folder) : []).toEqual([]);
      const tmp = path.join(t.config.dataDir, 'tmp');
      expect((existsSync(tmp) ? readdirSync(tmp) : []).filter((n) => n.includes(e.jobId))).toEqual([]);
      const data = await fetch(`${t.base}/content/items/${e.exportItemId}/data?token=${pub.token}`);
      expect(JSON.stringify(await data.json())).toMatch(/error/);
    } finally {
      w1.child.kill('SIGCONT');
      w1.child.kill('SIGKILL');
      await w1.exited;
      await checker?.close();
      await w2?.close();
    }
  }, 180000);
});
