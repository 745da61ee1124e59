import * as http from 'node:http';
import { FeatureDataRepository } from '../../src/feature-server/feature-data.repository';
import { PbfQueryService } from '../../src/feature-server/pbf/pbf-query.service';
import { get, post, uniq } from '../support/client';
import { withApp } from '../support/harness';
import { Nginx, startNginx } from '../support/nginx';

type Raw = { status: number; headers: http.IncomingHttpHeaders; body: string; json: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A plain GET (fetch marks conditional requests no-cache, and keeps connections the suite would wait for). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('latin1');
          let json: unknown;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
        });
      })
      .on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The cacheMaxAge the layers here get: short, so that expiry can be waited for. */
const MAX_AGE = 2;
/** nginx counts validity in whole seconds: a reply stored at t is served until the second after t + max-age. */
const PAST_MAX_AGE_MS = (MAX_AGE + 1.2) * 1000;

const QUERY = { f: 'json', where: '1=1', outFields: '*', orderByFields: 'OBJECTID' };

describe('a shared cache (nginx proxy_cache as docs/operations.md configures it) in front of the API', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  let nginx: Nginx;

  beforeAll(async () => {
    nginx = await startNginx(Number(new URL(t.root).port));
  });
  afterAll(() => nginx?.stop());

  /** A layer with `n` points, shared with everyone unless asked not to, whose service has cacheMaxAge = MAX_AGE. */
  async function layer(n = 2, share = true) {
    const name = uniq('cached');
    const created = await post(
      t.base,
      `content/users/${owner.username}/createService`,
      { createParameters: JSON.stringify({ name }), outputType: 'featureService' },
      owner.token,
    );
    const url = created.body.serviceurl as string;
    const admin = url.replace('/rest/services/', '/rest/admin/services/');
    const fields = [{ name: 'label', type: 'esriFieldTypeString', length: 20 }];
    await post(
      admin,
      'addToDefinition',
      { addToDefinition: JSON.stringify({ layers: [{ name: 'pts', geometryType: 'esriGeometryPoint', fields }] }) },
      owner.token,
    );
    expect(
      (await post(admin, 'updateDefinition', { updateDefinition: JSON.stringify({ cacheMaxAge: MAX_AGE }) }, owner.token)).body,
    ).toEqual({
      success: true,
    });
    const features = Array.from({ length: n }, (_, i) => ({ attributes: { label: `p${i}` }, geometry: { x: i, y: i } }));
    await post(`${url}/0`, 'addFeatures', { features: JSON.stringify(features) }, owner.token);
    const itemId = created.body.itemId as string;
    if (share) await post(t.base, `content/users/${owner.username}/items/${itemId}/share`, { everyone: 'true' }, owner.token);
    const path = new URL(`${url}/0/query`).pathname;
    const qs = (extra: Record<string, string> = {}) => new URLSearchParams({ ...QUERY, ...extra }).toString();
    return {
      url,
      admin,
      itemId,
      layer: `${url}/0`,
      /** Through nginx. */
      cached: (headers: Record<string, string> = {}, extra: Record<string, string> = {}) =>
        rawGet(`${nginx.root}${path}?${qs(extra)}`, headers),
      /** Straight to the API. */
      origin: (headers: Record<string, string> = {}, extra: Record<string, string> = {}) =>
        rawGet(`${t.root}${path}?${qs(extra)}`, headers),
    };
  }

  const status = (r: Raw) => r.headers['x-cache-status'];
  const count = (r: Raw) => (r.json as { features?: unknown[] }).features?.length;

  it("sets a service's cacheMaxAge through its definition, shown where ArcGIS shows it", async () => {
    const l = await layer();
    const info = (await get(l.admin, '', {}, owner.token)).body;
    expect(info.adminServiceInfo.cacheMaxAge).toBe(MAX_AGE);
    await post(l.admin, 'updateDefinition', { updateDefinition: JSON.stringify({ adminServiceInfo: { cacheMaxAge: 60 } }) }, owner.token);
    expect((await get(l.admin, '', {}, owner.token)).body.adminServiceInfo.cacheMaxAge).toBe(60);
    for (const bad of [-1, 86401, 1.5, 'x', null, true])
      expect(
        (await post(l.admin, 'updateDefinition', { updateDefinition: JSON.stringify({ cacheMaxAge: bad }) }, owner.token)).body.error,
      ).toMatchObject({
        code: 400,
        details: ["'cacheMaxAge' must be 0-86400 seconds."],
      });
    const onLayer = await post(`${l.admin}/0`, 'updateDefinition', { updateDefinition: JSON.stringify({ cacheMaxAge: 5 }) }, owner.token);
    expect(onLayer.body.error.details[0]).toMatch(/'cacheMaxAge' is set on the service/);
    // createService takes it too; a service without one follows CACHE_MAX_AGE_S (0 here: revalidate every time).
    const name = uniq('created');
    const created = await post(
      t.base,
      `content/users/${owner.username}/createService`,
      { createParameters: JSON.stringify({ name, cacheMaxAge: 300 }), outputType: 'featureService' },
      owner.token,
    );
    expect(
      (await get(created.body.serviceurl.replace('/rest/services/', '/rest/admin/services/'), '', {}, owner.token)).body.adminServiceInfo
        .cacheMaxAge,
    ).toBe(300);
    const plain = await layer(1);
    await post(plain.admin, 'updateDefinition', { updateDefinition: JSON.stringify({ cacheMaxAge: 0 }) }, owner.token);
    const r = await plain.origin();
    expect(r.headers['cache-control']).toBe('no-cache');
    expect(r.headers.etag).toMatch(/^"/);
  });

  it('serves an anonymous public reply from the cache for max-age, then revalidates it to a 304 the API answers unbuilt', async () => {
    const l = await layer(3);
    const first = await l.cached();
    expect(status(first)).toBe('MISS');
    expect(count(first)).toBe(3);
    expect(first.headers['cache-control']).toBe(`public, max-age=${MAX_AGE}`);
    expect(first.headers.etag).toMatch(/^"[^"]+"$/); // strong
    const hit = await l.cached();
    expect(status(hit)).toBe('HIT');
    expect(hit.body).toBe(first.body);
    const pages = jest.spyOn(t.app.get(FeatureDataRepository), 'featurePage');
    try {
      await sleep(PAST_MAX_AGE_MS);
      const again = await l.cached();
      expect(status(again)).toBe('REVALIDATED');
      expect(again.body).toBe(first.body);
      expect(pages).not.toHaveBeenCalled();
      expect(status(await l.cached())).toBe('HIT');
      // The API itself: a 304 with the headers the 200 had, the page not read.
      const direct = await l.origin({ 'If-None-Match': first.headers.etag! });
      expect(direct.status).toBe(304);
      expect(direct.headers['cache-control']).toBe(`public, max-age=${MAX_AGE}`);
      expect(direct.headers.etag).toBe(first.headers.etag);
      expect(direct.headers.vary).toMatch(/Authorization/);
      expect(pages).not.toHaveBeenCalled();
      // The path in another case is the same query to the API, and cached as such.
      const shouting = `${nginx.root}${new URL(l.layer).pathname.replace('FeatureServer', 'featureserver')}/QUERY?${new URLSearchParams(QUERY)}`;
      expect(status(await rawGet(shouting))).toBe('MISS');
      expect(status(await rawGet(shouting))).toBe('HIT');
    } finally {
      pages.mockRestore();
    }
  });

  it('does the same for f=pbf, counts and extents, each its own URL', async () => {
    const l = await layer(2);
    const pbf = jest.spyOn(t.app.get(PbfQueryService), 'query');
    try {
      const variants: Record<string, string>[] = [
        { f: 'pbf' },
        { returnCountOnly: 'true' },
        { returnExtentOnly: 'true' },
        { f: 'geojson' },
      ];
      for (const extra of variants) {
        const first = await l.cached({}, extra);
        expect(status(first)).toBe('MISS');
        expect(first.headers['cache-control']).toBe(`public, max-age=${MAX_AGE}`);
        expect(status(await l.cached({}, extra))).toBe('HIT');
        expect((await l.origin({ 'If-None-Match': first.headers.etag! }, extra)).status).toBe(304);
      }
      expect(pbf).toHaveBeenCalledTimes(1);
    } finally {
      pbf.mockRestore();
    }
  });

  it('shows edits once max-age has passed, and at once to a revalidation', async () => {
    const l = await layer(2);
    const first = await l.cached();
    expect(count(first)).toBe(2);
    await post(
      l.layer,
      'addFeatures',
      { features: JSON.stringify([{ attributes: { label: 'new' }, geometry: { x: 9, y: 9 } }]) },
      owner.token,
    );
    // The validator moved with the edit's commit: the API answers in full.
    const direct = await l.origin({ 'If-None-Match': first.headers.etag! });
    expect(direct.status).toBe(200);
    expect(count(direct)).toBe(3);
    expect(direct.headers.etag).not.toBe(first.headers.etag);
    // Within max-age the cache may still hand out what it holds; past it, never.
    await sleep(PAST_MAX_AGE_MS);
    const after = await l.cached();
    expect(status(after)).toBe('EXPIRED');
    expect(count(after)).toBe(3);
    // An edit of the definition moves it too.
    const etag = after.headers.etag!;
    await post(
      `${l.admin}/0`,
      'updateDefinition',
      { updateDefinition: JSON.stringify({ fields: [{ name: 'label', alias: 'Label' }] }) },
      owner.token,
    );
    const redefined = await l.origin({ 'If-None-Match': etag });
    expect(redefined.status).toBe(200);
    expect((redefined.json as { fields: { alias: string }[] }).fields.map((f) => f.alias)).toContain('Label');
    // An edit made in SQL, outside the API, moves it as well (the trigger counts it in the edit's transaction).
    const now = redefined.headers.etag!;
    await t.db.query(`UPDATE "svc_${l.itemId}"."l0" SET label = 'sql'`);
    expect((await l.origin({ 'If-None-Match': now })).status).toBe(200);
  });

  it("stops serving an unshared layer's replies within max-age, and at once on revalidation", async () => {
    const l = await layer(2);
    const first = await l.cached();
    expect(status(await l.cached())).toBe('HIT');
    await post(t.base, `content/users/${owner.username}/items/${l.itemId}/share`, { everyone: 'false', org: 'false' }, owner.token);
    // A revalidation gets the refusal, not a 304: the caller's access is checked before the validator.
    const direct = await l.origin({ 'If-None-Match': first.headers.etag! });
    expect(direct.status).toBe(200);
    expect((direct.json as { error: { code: number } }).error.code).toBe(499);
    expect(direct.headers['cache-control']).toBe('no-store');
    expect(direct.headers.etag).toBeUndefined();
    await sleep(PAST_MAX_AGE_MS);
    for (let i = 0; i < 3; i++) {
      const r = await l.cached();
      expect(count(r)).toBeUndefined();
      expect((r.json as { error: { code: number } }).error.code).toBe(499);
      expect(status(r)).not.toBe('HIT');
    }
  });

  it("stops serving a deleted layer's replies within max-age, and at once on revalidation", async () => {
    const l = await layer(2);
    const first = await l.cached();
    expect(status(await l.cached())).toBe('HIT');
    await post(t.base, `content/users/${owner.username}/items/${l.itemId}/delete`, {}, owner.token);
    const direct = await l.origin({ 'If-None-Match': first.headers.etag! });
    expect((direct.json as { error: { code: number } }).error).toBeDefined();
    expect(direct.headers.etag).toBeUndefined();
    await sleep(PAST_MAX_AGE_MS);
    const r = await l.cached();
    expect(count(r)).toBeUndefined();
    expect(status(r)).not.toBe('HIT');
  });

  it('never answers a request with a token (query string, headers) or a cookie from the cache, nor stores its reply', async () => {
    const l = await layer(2);
    const anonymous = await l.cached();
    expect(status(await l.cached())).toBe('HIT');
    const personal: [Record<string, string>, Record<string, string>][] = [
      [{ Authorization: `Bearer ${owner.token}` }, {}],
      [{ 'X-Esri-Authorization': `Bearer ${owner.token}` }, {}],
      [{ Cookie: 'arcgis_page=anything' }, {}],
      [{}, { token: owner.token }],
      [{}, { TOKEN: owner.token }],
    ];
    for (const [headers, extra] of personal)
      for (let i = 0; i < 2; i++) {
        const r = await l.cached(headers, extra);
        expect(status(r)).toBe('BYPASS');
        expect(r.headers['cache-control']).toBe('private, no-store');
        expect(r.headers.etag).toBeUndefined();
      }
    expect((await l.cached()).body).toBe(anonymous.body);
    // The API decodes the parameter's name, so a percent-encoded letter anywhere in it is still a token to the cache.
    for (const key of ['tok%65n', 't%6Fken', '%74%6F%6B%65%6E'])
      for (let i = 0; i < 2; i++) {
        const r = await rawGet(`${nginx.root}${new URL(l.layer).pathname}/query?${new URLSearchParams(QUERY)}&${key}=${owner.token}`, {});
        expect(status(r)).toBe('BYPASS');
        expect(r.headers['cache-control']).toBe('private, no-store');
      }

    // A layer only its owner may read: the owner's replies, however the token comes, are not kept for anyone.
    const own = await layer(2, false);
    // (The API reads `token` alone; TOKEN= is no sign-in there, though both it and the cache treat it as one.)
    for (const [headers, extra] of personal.filter(([h, q]) => !h.Cookie && !q.TOKEN)) {
      const r = await own.cached(headers, extra);
      expect(count(r)).toBe(2);
      expect(status(r)).toBe('BYPASS');
    }
    const stranger = await own.cached();
    expect(status(stranger)).toBe('MISS');
    expect((stranger.json as { error: { code: number } }).error.code).toBe(499);
    expect(status(await own.cached({}, { token: owner.token }))).toBe('BYPASS');
    // Nor does the API mark them cacheable when no cache stands between (belt and braces with the cache's own rule).
    const direct = await own.origin({ 'X-Esri-Authorization': `Bearer ${owner.token}` });
    expect(direct.headers['cache-control']).toBe('private, no-store');
  });

  it('gives no validator to a clause on the clock, whose rows change with no edit', async () => {
    const l = await layer(1);
    const r = await l.origin({}, { where: "label = 'p0' AND CURRENT_TIMESTAMP > DATE '2000-01-01'" });
    expect(count(r)).toBe(1);
    expect(r.headers['cache-control']).toBe(`public, max-age=${MAX_AGE}`);
    // Express's hash of the body, made once the page is built, is all it gets.
    expect(r.headers.etag ?? 'W/').toMatch(/^W\//);
  });
});
