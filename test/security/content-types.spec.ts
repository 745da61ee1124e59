import { HeadObjectCommand } from '@aws-sdk/client-s3';
import * as http from 'node:http';
import { s3Client } from '../../src/core/storage/s3-client';
import { startApp, TestApp } from '../support/app';
import { adminToken, createUser, post } from '../support/client';
import { onS3 } from '../support/s3';
import { withApp } from '../support/harness';

type Owner = { username: string; token: string };

/** A multipart addItem as a browser sends it: the part's Content-Type is whatever the uploader claims. */
async function upload(t: TestApp, owner: Owner, type: string, name: string, body: string, mime: string): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ title: name, type, f: 'json', token: owner.token })) form.set(k, v);
  form.set('file', new Blob([body], { type: mime }), name);
  const r = (await (await fetch(`${t.base}/content/users/${owner.username}/addItem`, { method: 'POST', body: form })).json()) as {
    id: string;
  };
  expect(r.id).toMatch(/^[0-9a-f]{32}$/);
  // Public, so that the browser case is the anonymous one: any page may point a <script> at the URL.
  expect(
    (await post(t.base, `content/users/${owner.username}/items/${r.id}/share`, { everyone: true }, owner.token)).body.error,
  ).toBeUndefined();
  return r.id;
}

const SCRIPT = 'alert(document.domain)//,\n';

/** A plain GET: fetch marks a request with If-None-Match as Cache-Control: no-cache, which forbids a 304. */
function rawGet(url: string, headers: Record<string, string>): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res));
      })
      .on('error', reject);
  });
}

/**
 * Uploaded files come back with the Content-Type of their item type (never the uploader's) and nosniff, on every way a
 * download can go: streamed from disk or from the bucket, ranged, revalidated, or redirected to a signed bucket URL.
 */
describe(`item data Content-Type (${onS3() ? 's3' : 'local'})`, () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;

  const data = (id: string, headers: Record<string, string> = {}) =>
    fetch(`${t.base}/content/items/${id}/data`, { headers, redirect: 'manual' });

  it('a script uploaded as text/javascript into a CSV item is served as CSV, with nosniff, whole, ranged and revalidated', async () => {
    const id = await upload(t, owner, 'CSV', 'evil.js', SCRIPT, 'text/javascript');
    const whole = await data(id);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    expect(whole.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(await whole.text()).toBe(SCRIPT);

    const part = await data(id, { Range: 'bytes=0-4' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(part.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await part.text()).toBe(SCRIPT.slice(0, 5));

    const etag = whole.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const again = await rawGet(`${t.base}/content/items/${id}/data`, { 'If-None-Match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.headers['x-content-type-options']).toBe('nosniff');
  });

  it('a type the table does not know, or a name the item type does not list, is application/octet-stream', async () => {
    const unknown = await upload(t, owner, 'Dashboard Script', 'app.js', SCRIPT, 'application/javascript');
    const svg = await upload(t, owner, 'Image', 'logo.svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', 'image/svg+xml');
    const html = await upload(t, owner, 'PDF', 'page.html', '<script>alert(1)</script>', 'text/html');
    for (const id of [unknown, svg]) {
      const r = await data(id);
      expect(r.headers.get('content-type')).toBe('application/octet-stream');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      await r.arrayBuffer();
    }
    const pdf = await data(html);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    await pdf.arrayBuffer();
    const png = await data(await upload(t, owner, 'Image', 'logo.PNG', 'not really a png', 'text/html'));
    expect(png.headers.get('content-type')).toBe('image/png');
    await png.arrayBuffer();
  });

  (onS3() ? it : it.skip)('a presigned redirect names the item type, and the bucket answers with it', async () => {
    const signed = await startApp({ S3_PRESIGNED_DOWNLOAD_S: '60' });
    try {
      const o = await createUser(signed.base, await adminToken(signed.base), 'org_publisher');
      const id = await upload(signed, o, 'CSV', 'evil.js', SCRIPT, 'text/javascript');
      const r = await fetch(`${signed.base}/content/items/${id}/data`, { redirect: 'manual' });
      expect(r.status).toBe(302);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      const location = new URL(r.headers.get('location')!);
      expect(location.searchParams.get('response-content-type')).toBe('text/csv; charset=utf-8');
      const object = await fetch(location);
      expect(object.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(await object.text()).toBe(SCRIPT);
      // The object's own stored type is not the uploader's either, for anything that reads the bucket directly.
      const s3 = signed.config.storage.s3!;
      const [{ file_path }] = await signed.db.query(`SELECT file_path FROM items WHERE id = $1`, [id]);
      const stored = await s3Client(s3).send(new HeadObjectCommand({ Bucket: s3.bucket, Key: s3.prefix + file_path }));
      expect(stored.ContentType).toBe('application/octet-stream');
    } finally {
      await signed.close();
    }
  });
});
