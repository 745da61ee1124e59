import { post } from '../support/client';
import { withApp } from '../support/harness';

type Owner = { username: string; token: string };

/** One multipart POST, the token first, as a careful client sends it. */
async function multipart(url: string, token: string, fields: Record<string, string>, file?: [string, Blob, string]) {
  const form = new FormData();
  form.set('f', 'json');
  form.set('token', token);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (file) form.set(file[0], file[1], file[2]);
  const res = await fetch(url, { method: 'POST', body: form });
  return {
    status: res.status,
    body: (await res.json()) as { error?: { code: number; message: string; details: string[] }; success?: boolean },
  };
}

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.domain)"><script>alert(1)</script></svg>';

/**
 * An item's resources, info files and thumbnail are the owner's bytes served from this origin: none may come back as
 * something a browser runs, none may be named out of its item, and each is bounded while it arrives.
 */
describe('item resources, info files and thumbnails', () => {
  const t = withApp({ users: { owner: 'org_publisher' }, env: { ITEM_RESOURCE_MAX_MB: '1' } });
  const { owner } = t.users as { owner: Owner };
  let item: string;
  const user = () => `${t.base}/content/users/${owner.username}/items/${item}`;

  beforeAll(async () => {
    const r = await post(t.base, `content/users/${owner.username}/addItem`, { title: 'files', type: 'Web Map', text: '{}' }, owner.token);
    item = r.body.id;
    // Public: the browser case is an anonymous page pointing at the URL.
    await post(t.base, `content/users/${owner.username}/items/${item}/share`, { everyone: 'true' }, owner.token);
  });

  it('serves an SVG resource holding script as an attachment, sandboxed and nosniff', async () => {
    expect((await post(user(), 'addResources', { fileName: 'icon.svg', text: SVG }, owner.token)).body).toMatchObject({ success: true });
    const res = await fetch(`${t.base}/content/items/${item}/resources/icon.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe(SVG);
  });

  it('refuses resource and info file types a browser would run as a page or a script', async () => {
    for (const name of ['page.html', 'page.htm', 'app.js', 'app.mjs', 'page.xhtml', 'x.svg.html']) {
      const r = await post(user(), 'addResources', { fileName: name, text: '<script>alert(1)</script>' }, owner.token);
      expect({ name, error: r.body.error?.message }).toEqual({ name, error: 'File type not allowed for item resources.' });
      const info = await multipart(`${user()}/updateinfo`, owner.token, {}, ['file', new Blob(['<script>alert(1)</script>']), name]);
      expect({ name, error: info.body.error?.message }).toEqual({ name, error: 'File type not allowed for item info files.' });
    }
  });

  it('refuses a thumbnail that is not the image its name says', async () => {
    for (const [name, bytes] of [
      ['x.png', '<html><script>alert(1)</script></html>'],
      ['x.jpg', SVG],
      ['x.svg', SVG],
      ['x.html', '<html></html>'],
    ]) {
      const r = await multipart(`${user()}/update`, owner.token, {}, ['thumbnail', new Blob([bytes]), name]);
      expect({ name, error: r.body.error?.code }).toEqual({ name, error: 400 });
    }
    const [{ thumbnail }] = await t.db.query('SELECT thumbnail FROM items WHERE id = $1', [item]);
    expect(thumbnail).toBeNull();
  });

  it('names every file inside its item: no path climbs out, starts with a dot or reaches the item data', async () => {
    const bad: [string, Record<string, string>][] = [
      ['fileName', { fileName: '../../../etc/passwd.txt', text: 'x' }],
      ['fileName', { fileName: '..\\..\\x.txt', text: 'x' }],
      ['resourcesPrefix', { fileName: 'a.txt', resourcesPrefix: '..', text: 'x' }],
      ['resourcesPrefix', { fileName: 'a.txt', resourcesPrefix: 'a/../../b', text: 'x' }],
      ['resourcesPrefix', { fileName: 'a.txt', resourcesPrefix: '.info', text: 'x' }],
      ['fileName', { fileName: '%2e%2e%2fx.txt', text: 'x' }],
    ];
    for (const [param, params] of bad) {
      const r = await post(user(), 'addResources', params, owner.token);
      expect({ params, error: r.body.error?.message }).toEqual({ params, error: `'${param}' is not a valid file name.` });
    }
    const info = await multipart(`${user()}/updateinfo`, owner.token, { folderName: '../../x' }, ['file', new Blob(['{}']), 'a.json']);
    expect(info.body.error?.message).toBe("'folderName' is not a valid file name.");
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM item_files WHERE item_id = $1 AND path LIKE '%..%'`, [item]);
    expect(n).toBe(0);
    // A path in the URL is looked up, never resolved on disk: a climb reads nothing.
    const res = await fetch(`${t.base}/content/items/${item}/resources/..%2F..%2F..%2Fetc%2Fpasswd`);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Resource does not exist or is inaccessible.');
  });

  it('refuses a resource larger than ITEM_RESOURCE_MAX_MB as it arrives (413), keeping nothing', async () => {
    const big = new Blob([Buffer.alloc(2 * 1024 * 1024, 120)]);
    const r = await multipart(`${user()}/addResources`, owner.token, { fileName: 'big.txt' }, ['file', big, 'big.txt']);
    expect(r.status).toBe(413);
    expect(r.body.error?.details.join(' ')).toContain('ITEM_RESOURCE_MAX_MB');
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM item_files WHERE item_id = $1 AND path = 'big.txt'`, [item]);
    expect(n).toBe(0);
  });

  it('takes a file part on no other route', async () => {
    const r = await multipart(`${t.base}/content/users/${owner.username}/addRelationship`, owner.token, {}, [
      'file',
      new Blob(['x']),
      'x.txt',
    ]);
    expect(r.body.error).toMatchObject({ code: 400, message: 'Too many files.' });
  });
});
