import { request } from '@esri/arcgis-rest-request';
import { addItem, addUsers, adminToken, createGroup, createUser, get, post } from '../support/client';
import { MARKUP, sampleService, SampleService } from '../support/sample-service';
import { withApp } from '../support/harness';

/** A page's text as a person reads it: tags out, entities back. Enough for assertions on plain server-rendered HTML. */
const textOf = (page: string) =>
  page
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

/** A page session as the sign-in form makes one (the browser's Fetch Metadata included): its Cookie header. */
async function pageSession(base: string, who: { username: string; password: string }): Promise<string> {
  const body = new URLSearchParams({ f: 'html', username: who.username, password: who.password });
  const res = await fetch(`${base}/generateToken`, {
    method: 'POST',
    body,
    redirect: 'manual',
    headers: { 'Sec-Fetch-Site': 'same-origin' },
  });
  expect(res.status).toBe(303);
  return res.headers.getSetCookie()[0].split(';')[0];
}

async function html(url: string, params: Record<string, string> = {}, init: RequestInit = {}) {
  const qs = new URLSearchParams({ f: 'html', ...params });
  const res = await fetch(`${url}?${qs}`, init);
  return { status: res.status, headers: res.headers, body: await res.text() };
}

describe('services catalog and HTML services directory', () => {
  const t = withApp({ users: { owner: 'org_publisher', other: 'org_user' } });
  const { owner, other } = t.users;
  let pub: SampleService;
  let priv: SampleService;

  beforeAll(async () => {
    pub = await sampleService(t.base, owner, 'public');
    priv = await sampleService(t.base, owner, 'private');
  });

  const catalogUrl = () => `${t.root}/arcgis/rest/services`;
  const names = (body: { services: { name: string }[] }) => body.services.map((s) => s.name);

  describe('catalog JSON', () => {
    it('has the ArcGIS shape, and lists private services only to those who may read them', async () => {
      const anon = await get(catalogUrl(), '');
      expect(anon.body).toMatchObject({ currentVersion: expect.any(Number), folders: [] });
      expect(anon.body.services).toContainEqual({
        name: pub.name,
        type: 'FeatureServer',
        url: `${t.root}/arcgis/rest/services/${pub.name}/FeatureServer`,
      });
      expect(names(anon.body)).not.toContain(priv.name);
      expect(names((await get(catalogUrl(), '', {}, owner.token)).body)).toEqual(expect.arrayContaining([pub.name, priv.name]));
      expect(names((await get(catalogUrl(), '', {}, other.token)).body)).not.toContain(priv.name);
    });

    it('answers f=pjson indented, and an invalid token with the 498 envelope', async () => {
      const pretty = await fetch(`${catalogUrl()}?f=pjson`);
      expect(await pretty.text()).toMatch(/^\{\n {2}"currentVersion"/);
      expect((await get(catalogUrl(), '', {}, 'not-a-token')).body.error.code).toBe(498);
    });

    it('is what arcgis-rest-js reads, down to a layer through the service URL it gives', async () => {
      const catalog = await request(catalogUrl(), { httpMethod: 'GET' });
      const entry = catalog.services.find((s: { name: string }) => s.name === pub.name);
      const service = await request(entry.url, { httpMethod: 'GET' });
      expect(service.layers.map((l: { name: string }) => l.name)).toEqual(['Areas', 'Roads', 'Sites']);
      const layer = await request(`${entry.url}/${service.layers[2].id}`, { httpMethod: 'GET' });
      expect(layer).toMatchObject({ geometryType: 'esriGeometryPoint', objectIdField: 'OBJECTID' });
    });
  });

  describe('pages', () => {
    it('catalog: links to the services the caller may read, never carrying a token', async () => {
      const anon = await html(catalogUrl());
      expect(anon.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(anon.body).toContain(`href="/arcgis/rest/services/${pub.name}/FeatureServer?f=html"`);
      expect(anon.body).not.toContain(priv.name);
      // Opened with ?token=: drawn for that token, which no link carries on.
      const mine = await html(catalogUrl(), { token: owner.token });
      expect(mine.body).toContain(`href="/arcgis/rest/services/${priv.name}/FeatureServer?f=html"`);
      expect(mine.body).not.toContain(owner.token);
      expect(textOf(mine.body)).toContain(`Opened as ${owner.username} with the token in its URL`);
      expect(mine.headers.get('cache-control')).toBe('private, no-store');
      // Through the page session: signed in, with a sign-out form.
      const session = await html(catalogUrl(), {}, { headers: { cookie: await pageSession(t.base, owner), 'sec-fetch-site': 'none' } });
      expect(session.body).toContain(`href="/arcgis/rest/services/${priv.name}/FeatureServer?f=html"`);
      expect(textOf(session.body)).toContain(`Signed in as ${owner.username}`);
      expect(session.body).toMatch(/<form class="sign-out" method="post" action="\/sharing\/rest\/html\/signout">/);
      expect(session.headers.get('cache-control')).toBe('private, no-store');
    });

    it('are sent with a policy that loads nothing from elsewhere and no inline script', async () => {
      const r = await html(`${pub.url}`);
      const csp = r.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
      expect(r.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    });

    it('service: layers with links, capabilities, units and full extent', async () => {
      const r = await html(pub.url);
      const text = textOf(r.body);
      expect(text).toContain(`${pub.name} (FeatureServer)`);
      expect(text).toMatch(/Capabilities: Query,Create,Update,Delete,Editing/);
      expect(text).toContain('Units: esriDecimalDegrees');
      expect(text).toMatch(/Full extent: XMin: 10 YMin: 50 XMax: 11 YMax: 50\.9/);
      for (const [id, name] of ['Areas', 'Roads', 'Sites'].entries()) {
        expect(r.body).toContain(`<a href="/arcgis/rest/services/${pub.name}/FeatureServer/${id}?f=html">${name}</a>`);
      }
    });

    it('layer: fields with types and aliases, geometry type, spatial reference, extent, capabilities, operations', async () => {
      const r = await html(`${pub.url}/0`);
      const text = textOf(r.body);
      expect(text).toContain('Areas (ID: 0)');
      expect(text).toContain('Geometry type: esriGeometryPolygon');
      expect(text).toContain('Spatial reference: 4326');
      expect(text).toMatch(/XMin: 10 YMin: 50\.1 XMax: 10\.9 YMax: 50\.9/);
      expect(text).toMatch(/Name esriFieldTypeString Place name 80/);
      expect(text).toMatch(/Opened esriFieldTypeDate Opened on/);
      expect(text).toMatch(/OBJECTID esriFieldTypeOID OBJECTID/);
      expect(text).toContain('Capabilities: Query,Create,Update,Delete,Editing');
      expect(r.body).toContain(`href="/arcgis/rest/services/${pub.name}/FeatureServer/0/query?f=html"`);
      expect(r.body).toContain(`href="/arcgis/rest/services/${pub.name}/FeatureServer/0/preview?f=html"`);
      expect(r.body).toContain(`href="/arcgis/rest/services/${pub.name}/FeatureServer/0?f=pjson"`);
    });

    it('query: the form alone until something is asked', async () => {
      const r = await html(`${pub.url}/2/query`);
      expect(r.body).toContain('<form class="query" method="get"');
      for (const name of [
        'where',
        'outFields',
        'geometry',
        'spatialRel',
        'returnGeometry',
        'outSR',
        'orderByFields',
        'returnCountOnly',
        'returnIdsOnly',
        'f',
      ]) {
        expect(r.body).toContain(`name="${name}"`);
      }
      expect(r.body).not.toContain('class="result"');
    });

    it('query: features as a table with aliases, dates as ISO time, in the order asked', async () => {
      const r = await html(`${pub.url}/2/query`, { where: "Kind = 'site'", outFields: 'Name,Opened', orderByFields: 'Name DESC' });
      const text = textOf(r.body);
      expect(text).toContain('3 feature(s).');
      expect(text).toMatch(
        /Place name Opened on Geometry Well null Point \(10\.9, 50\.9\) Tower null Point \(10\.5, 50\.75\) Mill 1850-04-03T00:00:00\.000Z/,
      );
      // The form shows what was asked, escaped.
      expect(r.body).toContain('value="Kind = &#39;site&#39;"');
    });

    it('query: counts, ids, a rectangle, and a next page when the limit is reached', async () => {
      expect(textOf((await html(`${pub.url}/2/query`, { where: '1=1', returnCountOnly: 'true' })).body)).toContain('Count: 3');
      expect(textOf((await html(`${pub.url}/2/query`, { where: '1=1', returnIdsOnly: 'true' })).body)).toMatch(
        /3 OBJECTID value\(s\): 1, 2, 3/,
      );
      const box = await html(`${pub.url}/2/query`, {
        geometry: '10,50,10.6,50.8',
        spatialRel: 'esriSpatialRelIntersects',
        outFields: 'Name',
      });
      expect(textOf(box.body)).toMatch(/2 feature\(s\)\. .*Mill .*Tower/);
      const paged = await html(`${pub.url}/2/query`, {
        where: '1=1',
        resultRecordCount: '2',
        orderByFields: 'OBJECTID',
        token: owner.token,
      });
      expect(textOf(paged.body)).toContain('2 feature(s), more exist.');
      const next = /<a rel="next" href="([^"]+)">/.exec(paged.body)?.[1].replace(/&amp;/g, '&');
      expect(next).toContain('resultOffset=2');
      expect(next).not.toContain('token=');
      expect(textOf(await (await fetch(`${t.root.replace(/\/$/, '')}${next!.slice(t.config.contextPath.length)}`)).text())).toContain(
        '1 feature(s).',
      );
    });

    it('query: the form shows a true or false as the query read it', async () => {
      const r = await html(`${pub.url}/2/query`, { where: '1=1', returnCountOnly: ' TRUE ', returnGeometry: 'False' });
      expect(textOf(r.body)).toContain('Count: 3');
      expect(r.body).toMatch(/name="returnCountOnly" value="true"\s+checked/);
      expect(r.body).toMatch(/name="returnGeometry" value="false"\s+checked/);
    });

    it('query: a POSTed form is answered too, and a bad clause is shown as the error it is', async () => {
      const res = await fetch(`${pub.url}/1/query`, {
        method: 'POST',
        body: new URLSearchParams({ f: 'html', where: '1=1', outFields: '*' }),
      });
      expect(textOf(await res.text())).toContain('1 feature(s).');
      const bad = await html(`${pub.url}/1/query`, { where: 'NoSuchField = 1' });
      expect(bad.body).toContain('role="alert"');
      expect(bad.body).toContain('<form class="query"');
      expect(textOf(bad.body)).toMatch(/Error 400/);
    });

    it('query: the result in the format asked for is the JSON route', async () => {
      const r = await fetch(`${pub.url}/2/query?${new URLSearchParams({ where: '1=1', returnCountOnly: 'true', f: 'json' })}`);
      expect(await r.json()).toEqual({ count: 3 });
    });

    it('escapes every value that reaches a page: data, names and parameters', async () => {
      const table = await html(`${pub.url}/0/query`, { where: '1=1', outFields: '*' });
      expect(table.body).not.toContain(MARKUP);
      expect(table.body).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;amp;');
      const reflected = await html(`${pub.url}/0/query`, { where: `'"><script>alert(1)</script>` });
      expect(reflected.body).not.toContain('<script>alert(1)');
      // The form keeps what was asked, with the error under it.
      expect(reflected.body).toContain('value="&#39;&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
      expect(textOf(reflected.body)).toContain('Error 400: Cannot perform query. Invalid query parameters.');
      const unknown = await html(`${t.root}/arcgis/rest/services/%3Cb%3Ex%3C%2Fb%3E/FeatureServer`, { token: owner.token });
      expect(unknown.body).not.toContain('<b>x</b>');
      expect(textOf(unknown.body)).toContain('Service does not exist or is inaccessible.');
    });

    it('follows the JSON routes on who may see what: a token for anonymous visitors, nothing for others', async () => {
      const anon = await html(priv.url);
      expect(textOf(anon.body)).toMatch(/Error 499: Token Required/);
      expect(anon.body).not.toContain('Areas');
      expect(anon.headers.get('cache-control')).toMatch(/no-store/);
      const stranger = await html(`${priv.url}/0`, { token: other.token });
      expect(textOf(stranger.body)).toContain('Service does not exist or is inaccessible.');
      expect(stranger.body).not.toContain('Place name');
      const query = await html(`${priv.url}/2/query`, { token: other.token, where: '1=1' });
      expect(query.body).not.toContain('Mill');
      const preview = await html(`${priv.url}/0/preview`);
      expect(textOf(preview.body)).toMatch(/Error 499/);
      const mine = await html(`${priv.url}/0`, { token: owner.token });
      expect(textOf(mine.body)).toContain('Areas (ID: 0)');
      expect(mine.body).toContain(`href="/arcgis/rest/services/${priv.name}/FeatureServer/0/query?f=html"`);
      expect(mine.body).not.toContain(owner.token);
      expect((await html(priv.url, { token: 'expired' })).body).toMatch(/Error 498/);
    });

    it('map preview: the layer query URL and the extent in Web Mercator for the script, and no token', async () => {
      const r = await html(`${priv.url}/0/preview`, { token: owner.token });
      expect(r.body).toContain(`data-query="/arcgis/rest/services/${priv.name}/FeatureServer/0/query"`);
      expect(r.body).not.toContain(owner.token);
      const extent = /data-extent="([^"]+)"/.exec(r.body)![1].split(',').map(Number);
      // 10°E..10.9°E, 50.1°N..50.9°N in EPSG:3857.
      expect(extent[0]).toBeCloseTo(1113194.9, 0);
      expect(extent[2]).toBeCloseTo(1213382.4, 0);
      expect(extent[1]).toBeCloseTo(6463612.1, 0);
      expect(extent[3]).toBeCloseTo(6603623.9, 0);
      expect(r.body).toContain('src="/arcgis/rest/static/ol/ol.js"');
      expect(r.body).toContain('src="/arcgis/rest/static/preview.js"');
    });

    it('serves its stylesheet and scripts itself, and nothing else by that path', async () => {
      for (const [file, type] of [
        ['directory.css', 'text/css'],
        ['preview.js', 'javascript'],
        ['session.js', 'javascript'],
        ['export.js', 'javascript'],
        ['ol/ol.js', 'javascript'],
        ['ol/ol.css', 'text/css'],
      ]) {
        const res = await fetch(`${t.root}/arcgis/rest/static/${file}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain(type);
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(500);
      }
      for (const file of ['..%2Fpackage.json', 'ol%2F..%2F..%2Fpackage.json', 'nothing.js']) {
        const res = await fetch(`${t.root}/arcgis/rest/static/${file}`);
        expect(await res.text()).not.toContain('"dependencies"');
      }
    });

    it('refuses f=html where there is no page', async () => {
      const r = await post(pub.url, '0/addFeatures', { f: 'html', features: '[]' }, owner.token);
      expect(r.body.error.message).toMatch(/Invalid value for parameter 'f'/);
    });
  });

  describe('portal pages', () => {
    let member: { username: string; token: string };
    let group: string;
    let item: string;

    beforeAll(async () => {
      member = await createUser(t.base, await adminToken(t.base), 'org_user');
      group = await createGroup(t.base, owner.token, { access: 'private', title: `Field team ${MARKUP}` });
      await addUsers(t.base, owner.token, group, [member.username]);
      item = await addItem(t.base, owner.username, owner.token, { title: `Survey notes ${MARKUP}`, tags: 'survey,notes' });
      const shared = await post(t.base, `content/users/${owner.username}/items/${item}/share`, { org: 'true', groups: group }, owner.token);
      expect(shared.body.notSharedWith).toEqual([]);
    });

    it('item: title, type, owner, size, access, and the groups it is shared with that the visitor may see', async () => {
      const asMember = await html(`${t.base}/content/items/${item}`, { token: member.token });
      const text = textOf(asMember.body);
      expect(text).toContain(`Survey notes ${MARKUP}`);
      expect(text).toMatch(new RegExp(`Type: Web Map Owner: ${owner.username} Size: \\d+ bytes Access: org`));
      expect(text).toContain('Tags: survey, notes');
      expect(asMember.body).toContain(`href="/sharing/rest/community/groups/${group}?f=html"`);
      expect(asMember.body).not.toContain(MARKUP);
      // An org member outside the private group sees the item (shared with the org), not the group.
      const asOther = await html(`${t.base}/content/items/${item}`, { token: other.token });
      expect(textOf(asOther.body)).toContain('None that you can see.');
      expect(asOther.body).not.toContain(group);
      expect(textOf((await html(`${t.base}/content/items/${item}`)).body)).toContain('Error 400: Item does not exist or is inaccessible.');
    });

    it('a hosted service item links to its directory page', async () => {
      const r = await html(`${t.base}/content/items/${pub.itemId}`);
      expect(textOf(r.body)).toContain('Type: Feature Service');
      expect(r.body).toContain(`href="/arcgis/rest/services/${pub.name}/FeatureServer?f=html"`);
      // The export form only where export would accept it: to the owner (or an administrator).
      expect(r.body).not.toContain('export-form');
      expect((await html(`${t.base}/content/items/${pub.itemId}`, { token: other.token })).body).not.toContain('export-form');
      // The form acts through the page session, so a page opened with ?token= has none.
      expect((await html(`${t.base}/content/items/${pub.itemId}`, { token: owner.token })).body).not.toContain('export-form');
      const cookie = await pageSession(t.base, owner);
      const mine = await html(`${t.base}/content/items/${pub.itemId}`, {}, { headers: { cookie, 'sec-fetch-site': 'same-origin' } });
      expect(mine.body).toMatch(/<form[^>]*id="export-form"/);
      for (const format of ['CSV', 'Shapefile', 'File Geodatabase', 'GeoJson'])
        expect(mine.body).toMatch(new RegExp(`<option[^>]*>${format}</option>`));
      expect(textOf(mine.body)).toMatch(/Areas \(0, Feature Layer\) Roads \(1, Feature Layer\) Sites \(2, Feature Layer\)/);
      expect(mine.body).toContain(`data-export="/sharing/rest/content/users/${owner.username}/export"`);
      expect(mine.body).toContain('src="/arcgis/rest/static/export.js"');
    });

    it('group: its facts and the content the visitor may see, for members only when private', async () => {
      const r = await html(`${t.base}/community/groups/${group}`, { token: member.token });
      const text = textOf(r.body);
      expect(text).toContain(`Group: Field team ${MARKUP}`);
      expect(text).toContain('Access: private');
      expect(text).toContain('Your membership: member');
      expect(text).toContain(`Survey notes ${MARKUP}`);
      expect(textOf((await html(`${t.base}/community/groups/${group}`, { token: other.token })).body)).toContain(
        'Group does not exist or is inaccessible.',
      );
    });

    it("user content: the owner's items to the owner, refused to others and to anonymous visitors", async () => {
      const mine = await html(`${t.base}/content/users/${owner.username}`, { token: owner.token });
      const text = textOf(mine.body);
      expect(text).toContain(`Content of ${owner.username}`);
      expect(text).toContain(`Survey notes ${MARKUP}`);
      expect(text).toContain(pub.name);
      expect(textOf((await html(`${t.base}/content/users/${owner.username}`, { token: other.token })).body)).toContain('Error 403');
      expect(textOf((await html(`${t.base}/content/users/${owner.username}`)).body)).toContain('Error 499');
    });

    it('sign-in: a form posted to generateToken with f=html; GET generateToken without f=html is still refused', async () => {
      const r = await html(`${t.base}/generateToken`, { next: '/arcgis/rest/services' });
      expect(r.body).toMatch(/<form[^>]*\bid="sign-in-form"[^>]*\bmethod="post"[^>]*\baction="\/sharing\/rest\/generateToken"/);
      expect(r.body).toContain('<input type="hidden" name="next" value="/arcgis/rest/services?f=html" />');
      expect((await get(t.base, 'generateToken')).body.error.details).toEqual(['generateToken requires POST.']);
    });
  });
});
