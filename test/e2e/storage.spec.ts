import { INestApplicationContext } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { newId } from '../../src/core/ids';
import { FileStore } from '../../src/core/storage/file-store';
import { PART_SIZE } from '../../src/core/storage/s3-file-store';
import { ORPHAN_GRACE_MS, STAGING_GRACE_MS, StorageSweeper } from '../../src/core/storage/storage-sweeper';
import { startApp, TestApp } from '../support/app';
import { adminToken, createUser, post } from '../support/client';
import { bucketKeys, onS3 } from '../support/s3';
import { shapefileZip } from '../support/shapefile-zip';
import { startWorker } from '../support/worker';

/**
 * Item files through the storage interface, on whichever backend the jest project chose (DATA_DIR, or a bucket on
 * s3rver): where an upload lands, deletes and the sweep, multipart uploads, ranged reads of a zip's directory by
 * the API and the worker's copy of a publish source.
 */
describe(`storage (${onS3() ? 's3' : 'local'})`, () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let files: FileStore;
  let pub: { username: string; token: string };
  let dir: string;

  beforeAll(async () => {
    t = await startApp({ PUBLISH_MAX_FEATURES: '500' });
    worker = await startWorker(t.config);
    files = t.app.get(FileStore);
    pub = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    dir = mkdtempSync(path.join(tmpdir(), 'storage-spec-'));
  }, 60000);
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The item keys in storage: objects in the bucket, or files under DATA_DIR/items. */
  async function storedKeys(): Promise<string[]> {
    const s3 = t.config.storage.s3;
    if (s3) return (await bucketKeys(s3.bucket)).map((k) => k.slice(s3.prefix.length)).sort();
    const items = path.join(t.config.dataDir, 'items');
    if (!existsSync(items)) return [];
    return readdirSync(items)
      .flatMap((id) => readdirSync(path.join(items, id)).map((f) => `items/${id}/${f}`))
      .sort();
  }

  async function upload(type: string, name: string, body: Buffer | string, mime = 'application/octet-stream'): Promise<string> {
    const form = new FormData();
    for (const [k, v] of Object.entries({ title: name, type, f: 'json', token: pub.token })) form.set(k, v);
    form.set('file', new Blob([body], { type: mime }), name);
    const r = (await (await fetch(`${t.base}/content/users/${pub.username}/addItem`, { method: 'POST', body: form })).json()) as {
      id: string;
    };
    expect(r.id).toMatch(/^[0-9a-f]{32}$/);
    return r.id;
  }

  const download = (id: string, headers: Record<string, string> = {}) =>
    fetch(`${t.base}/content/items/${id}/data?token=${pub.token}`, { headers, redirect: 'manual' });

  it('stores an upload under its item key on the configured backend, and deleting the item deletes it', async () => {
    const before = await storedKeys();
    const id = await upload('CSV', 'trees.csv', 'id,name\n1,oak\n', 'text/csv');
    const [row] = await t.db.query(`SELECT file_path FROM items WHERE id = $1`, [id]);
    expect(row.file_path).toBe(`items/${id}/trees.csv`);
    expect(await storedKeys()).toEqual([...before, `items/${id}/trees.csv`].sort());
    // On S3 nothing of the item is on this host's disk: the upload's temp file went into the bucket.
    if (onS3()) expect(existsSync(path.join(t.config.dataDir, 'items'))).toBe(false);
    expect(readdirSync(path.join(t.config.dataDir, 'tmp')).filter((f) => f.startsWith('upload-'))).toEqual([]);
    expect(await (await download(id)).text()).toBe('id,name\n1,oak\n');

    expect((await post(t.base, `content/users/${pub.username}/items/${id}/delete`, {}, pub.token)).body.success).toBe(true);
    expect(await storedKeys()).toEqual(before);
  });

  it('uploads a file larger than a part as a multipart upload, and reads any range of it back', async () => {
    const data = randomBytes(2 * PART_SIZE + 12345);
    const local = path.join(dir, 'big.bin');
    writeFileSync(local, data);
    const id = newId();
    const key = await files.adopt(id, local, 'big.bin');
    expect(existsSync(local)).toBe(false);
    expect((await files.stat(key))?.size).toBe(data.length);
    // Across the first part boundary.
    const range = { start: PART_SIZE - 10, end: PART_SIZE + 9 };
    const piece = Buffer.concat(await (await files.read(key, range)).toArray());
    expect(piece.equals(data.subarray(range.start, range.end + 1))).toBe(true);
    const copy = await files.localFile(key, dir);
    expect(readFileSync(copy).equals(data)).toBe(true);
    await files.removeItem(id);
    expect(await files.stat(key)).toBeNull();
  });

  it('sweeps objects of items that no longer exist once they are old enough, and upload temp files of killed requests', async () => {
    const kept = await upload('CSV', 'kept.csv', 'a\n1\n', 'text/csv');
    const orphan = newId();
    const stray = path.join(dir, 'stray.bin');
    writeFileSync(stray, 'stray');
    await files.adopt(orphan, stray, 'stray.bin');
    const sweeper = t.app.get(StorageSweeper);

    // Just written: an upload between its object and its row looks like this, so it is spared.
    expect((await sweeper.sweep()).items).toBe(0);
    expect(await storedKeys()).toContain(`items/${orphan}/stray.bin`);

    const tmp = path.join(t.config.dataDir, 'tmp');
    mkdirSync(tmp, { recursive: true });
    const oldTemp = path.join(tmp, 'upload-left-by-a-killed-api');
    writeFileSync(oldTemp, 'partial');
    const long = new Date(Date.now() - STAGING_GRACE_MS - 60_000);
    utimesSync(oldTemp, long, long);
    const report = await sweeper.sweep(new Date(Date.now() + ORPHAN_GRACE_MS + 60_000));
    expect(report).toMatchObject({ items: 1, temp: 1 });
    const keys = await storedKeys();
    expect(keys).not.toContain(`items/${orphan}/stray.bin`);
    expect(keys).toContain(`items/${kept}/kept.csv`);
    expect(existsSync(oldTemp)).toBe(false);
  });

  it('publishes a zipped shapefile: the API reads its directory by ranges, the worker its own copy', async () => {
    const id = await upload('Shapefile', 'points.zip', await shapefileZip(dir, 20), 'application/zip');
    const r = await post(
      t.base,
      `content/users/${pub.username}/publish`,
      { itemId: id, filetype: 'shapefile', publishParameters: JSON.stringify({ name: `storage_${Date.now()}` }) },
      pub.token,
    );
    expect(r.body.error).toBeUndefined();
    const { jobId, serviceItemId } = r.body.services[0];
    let job: { status: string; status_message: string };
    const until = Date.now() + 60000;
    do {
      await new Promise((res) => setTimeout(res, 200));
      [job] = await t.db.query(`SELECT status, status_message FROM jobs WHERE id = $1`, [jobId]);
    } while (!['completed', 'failed'].includes(job.status) && Date.now() < until);
    expect(job).toMatchObject({ status: 'completed' });
    const [layer] = await t.db.query(`SELECT table_name FROM feature_layers WHERE service_item_id = $1`, [serviceItemId]);
    expect(Number((await t.db.query(`SELECT count(*) AS n FROM "svc_${serviceItemId}"."${layer.table_name}"`))[0].n)).toBe(20);
    // The job's copy went with its private folder.
    expect(readdirSync(path.join(t.config.dataDir, 'tmp', 'jobs'))).toEqual([]);

    // What the directory declares is refused at request time, read from storage by ranges.
    const many = await upload('Shapefile', 'many.zip', await shapefileZip(dir, 600), 'application/zip');
    const refused = await post(
      t.base,
      `content/users/${pub.username}/publish`,
      { itemId: many, filetype: 'shapefile', publishParameters: JSON.stringify({ name: `storage_many_${Date.now()}` }) },
      pub.token,
    );
    expect(refused.body.error?.details.join(' ')).toMatch(/more than 500 features/);
  });

  it('names a published CSV layer after the uploaded file, as GDAL reads the worker copy under the same name', async () => {
    const id = await upload('CSV', 'sites.csv', 'site,x,y\nA,1,2\nB,3,4\n', 'text/csv');
    const r = await post(
      t.base,
      `content/users/${pub.username}/publish`,
      {
        itemId: id,
        filetype: 'csv',
        publishParameters: JSON.stringify({ name: `storage_csv_${Date.now()}`, longitudeFieldName: 'x', latitudeFieldName: 'y' }),
      },
      pub.token,
    );
    const { jobId, serviceItemId } = r.body.services[0];
    const until = Date.now() + 60000;
    while (
      !['completed', 'failed'].includes((await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [jobId]))[0].status) &&
      Date.now() < until
    )
      await new Promise((res) => setTimeout(res, 200));
    const layers = await t.db.query(`SELECT name FROM feature_layers WHERE service_item_id = $1`, [serviceItemId]);
    expect(layers.map((l: { name: string }) => l.name)).toEqual(['sites']);
  });
});

describe(`storage downloads (${onS3() ? 's3' : 'local'})`, () => {
  const body = Buffer.from(Array.from({ length: 20000 }, (_, i) => `row ${i}\n`).join(''));

  async function withApp(env: Record<string, string>, run: (t: TestApp, id: string, token: string) => Promise<void>) {
    const t = await startApp(env);
    try {
      const pub = await createUser(t.base, await adminToken(t.base), 'org_publisher');
      const form = new FormData();
      for (const [k, v] of Object.entries({ title: 'Rows', type: 'CSV', f: 'json', token: pub.token })) form.set(k, v);
      form.set('file', new Blob([body], { type: 'text/csv' }), 'rows é.csv');
      const { id } = (await (await fetch(`${t.base}/content/users/${pub.username}/addItem`, { method: 'POST', body: form })).json()) as {
        id: string;
      };
      await run(t, id, pub.token);
    } finally {
      await t.close();
    }
  }

  it('streams with Range, If-Range, If-Match and HEAD as express does for a local file', () =>
    withApp({}, async (t, id, token) => {
      const url = `${t.base}/content/items/${id}/data?token=${token}`;
      const whole = await fetch(url);
      const etag = whole.headers.get('etag')!;
      expect(whole.headers.get('last-modified')).toBeTruthy();
      await whole.arrayBuffer();
      const mid = await fetch(url, { headers: { Range: 'bytes=100-199' } });
      expect(mid.status).toBe(206);
      expect(mid.headers.get('content-range')).toBe(`bytes 100-199/${body.length}`);
      expect(Buffer.from(await mid.arrayBuffer()).equals(body.subarray(100, 200))).toBe(true);
      const suffix = await fetch(url, { headers: { Range: 'bytes=-50' } });
      expect(Buffer.from(await suffix.arrayBuffer()).equals(body.subarray(body.length - 50))).toBe(true);
      // Several ranges are answered with the whole file, as send does.
      const multi = await fetch(url, { headers: { Range: 'bytes=0-1,5-6' } });
      expect(multi.status).toBe(200);
      expect((await multi.arrayBuffer()).byteLength).toBe(body.length);
      expect((await fetch(url, { headers: { 'If-Match': '"other"' } })).status).toBe(412);
      const matched = await fetch(url, { headers: { 'If-Match': etag, Range: 'bytes=0-9' } });
      expect(matched.status).toBe(206);
      await matched.arrayBuffer();
      const head = await fetch(url, { method: 'HEAD' });
      expect(head.headers.get('content-length')).toBe(String(body.length));
    }));

  (onS3() ? it : it.skip)('redirects to a short-lived signed URL when S3_PRESIGNED_DOWNLOAD_S is set, which honours Range', () =>
    withApp({ S3_PRESIGNED_DOWNLOAD_S: '60' }, async (t, id, token) => {
      const r = await fetch(`${t.base}/content/items/${id}/data?token=${token}`, { redirect: 'manual' });
      expect(r.status).toBe(302);
      expect(r.headers.get('cache-control')).toMatch(/no-store/);
      const location = new URL(r.headers.get('location')!);
      expect(location.origin).toBe(t.config.storage.s3!.endpoint);
      expect(location.searchParams.get('X-Amz-Expires')).toBe('60');
      const part = await fetch(location, { headers: { Range: 'bytes=10-19' } });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-disposition')).toContain("filename*=UTF-8''rows%20%C3%A9.csv");
      expect(Buffer.from(await part.arrayBuffer()).equals(body.subarray(10, 20))).toBe(true);
      // What the bucket will send is part of the signed query (s3rver does not check SigV4 signatures; S3 and MinIO do).
      expect(location.searchParams.get('response-content-disposition')).toContain('attachment;');
      expect(location.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    }),
  );
});
