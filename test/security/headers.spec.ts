import * as http from 'node:http';
import { startApp, TestApp } from '../support/app';

/** A plain GET: fetch marks any request with If-None-Match as Cache-Control: no-cache, which forbids a 304. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}
import { addItem, adminToken, post } from '../support/client';
import { withApp } from '../support/harness';

describe('cache headers: nothing personal or erroneous is stored by a cache', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  let privateItem: string;

  beforeAll(async () => {
    privateItem = await addItem(t.base, owner.username, owner.token, { title: 'cache-private-item' });
  });

  const noStore = (h: Headers) => {
    expect(h.get('cache-control')).toMatch(/no-store/);
    expect(h.get('etag')).toBeNull();
  };

  it('error envelopes (HTTP 200 in ArcGIS) are no-store: a cached 499 must not answer a later signed-in open', async () => {
    const required = await fetch(`${t.base}/content/users/${owner.username}?f=json`);
    expect(((await required.json()) as { error: { code: number } }).error.code).toBe(499);
    expect(required.status).toBe(200);
    noStore(required.headers);
    const missing = await fetch(`${t.base}/content/items/0123456789abcdef0123456789abcdef?f=json`);
    expect(((await missing.json()) as { error: { code: number } }).error.code).toBe(400);
    noStore(missing.headers);
  });

  it('replies to a token (parameter, Authorization or X-Esri-Authorization) are private, no-store, without ETag', async () => {
    const url = `${t.base}/content/items/${privateItem}?f=json`;
    const inits: { url: string; headers?: Record<string, string> }[] = [
      { url: `${url}&token=${owner.token}` },
      { url, headers: { Authorization: `Bearer ${owner.token}` } },
      { url, headers: { 'X-Esri-Authorization': `Bearer ${owner.token}` } },
    ];
    for (const init of inits) {
      const r = await fetch(init.url, { headers: init.headers });
      expect(((await r.json()) as { id: string }).id).toBe(privateItem);
      expect(r.headers.get('cache-control')).toBe('private, no-store');
      expect(r.headers.get('etag')).toBeNull();
    }
    const form = await post(t.base, 'search', { q: 'cache-private-item' }, owner.token);
    expect(form.headers.get('cache-control')).toBe('private, no-store');
  });

  it('anonymous public replies must be revalidated, vary on the auth headers, and a signed-in revalidation gets its own body', async () => {
    const url = `${t.base}/search?f=json&q=cache-private-item`;
    const anon = await fetch(url);
    const anonBody = (await anon.json()) as { total: number };
    expect(anonBody.total).toBe(0);
    expect(anon.headers.get('cache-control')).toBe('no-cache');
    expect(anon.headers.get('vary')).toMatch(/Authorization/);
    expect(anon.headers.get('vary')).toMatch(/X-Esri-Authorization/);
    const etag = anon.headers.get('etag');
    expect(etag).toBeTruthy();
    // What QGIS does with its URL-keyed cache: revalidate the stored anonymous reply, now with a token header.
    const signedIn = await rawGet(url, { 'If-None-Match': etag!, Authorization: `Bearer ${owner.token}` });
    expect(signedIn.status).toBe(200);
    expect(JSON.parse(signedIn.body).total).toBe(1);
    // And an unchanged anonymous reply revalidates to a 304.
    expect((await rawGet(url, { 'If-None-Match': etag! })).status).toBe(304);
  });
});

describe('CORS: any origin without credentials, credentials only for listed origins', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ CORS_CREDENTIAL_ORIGINS: 'https://app.example.org' });
  });
  afterAll(() => t?.close());

  const preflight = (origin: string) =>
    fetch(`${t.base}/search`, {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,x-esri-authorization,content-type',
      },
    });

  it('a page on any origin may call the API with a token header, but never with credentials', async () => {
    const p = await preflight('https://evil.example.com');
    expect(p.status).toBeLessThan(300);
    expect(p.headers.get('access-control-allow-origin')).toBe('https://evil.example.com');
    expect(p.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    expect(p.headers.get('access-control-allow-headers')).toMatch(/x-esri-authorization/i);
    expect(p.headers.get('access-control-allow-credentials')).toBeNull();
    const r = await fetch(`${t.base}/search?f=json&q=x`, { headers: { Origin: 'https://evil.example.com' } });
    expect(r.headers.get('access-control-allow-origin')).toBe('https://evil.example.com');
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    expect(r.headers.get('vary')).toMatch(/Origin/);
  });

  it('a listed origin (any case) gets Access-Control-Allow-Credentials', async () => {
    for (const origin of ['https://app.example.org', 'https://APP.example.org']) {
      const p = await preflight(origin);
      expect(p.headers.get('access-control-allow-origin')).toBe(origin);
      expect(p.headers.get('access-control-allow-credentials')).toBe('true');
    }
    const r = await fetch(`${t.base}/search?f=json&q=x`, { headers: { Origin: 'https://app.example.org' } });
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
    // A look-alike is not listed.
    const other = await preflight('https://app.example.org.evil.com');
    expect(other.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describe('Bull Board cannot be framed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t?.close());

  const framedOut = (h: Headers) => {
    expect(h.get('x-frame-options')).toBe('DENY');
    expect(h.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
  };

  it("the board, its assets and API, and its refusals say X-Frame-Options: DENY and frame-ancestors 'none'", async () => {
    const board = `${t.root}/admin/queues`;
    const token = await adminToken(t.base);
    const page = await fetch(`${board}?token=${token}`, { redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    framedOut(page.headers);
    const api = await fetch(`${board}/api/queues`, { headers: { Authorization: `Bearer ${token}` } });
    expect(api.status).toBe(200);
    await api.text();
    framedOut(api.headers);
    const refused = await fetch(board, { redirect: 'manual' });
    expect(refused.status).toBe(401);
    await refused.text();
    framedOut(refused.headers);
  });
});
