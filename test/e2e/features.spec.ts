import { addUsers, createGroup, get, post, uniq } from '../support/client';
import { withApp } from '../support/harness';

const FIELDS = [
  { name: 'Name', type: 'esriFieldTypeString', length: 50 },
  { name: 'Pop', type: 'esriFieldTypeInteger' },
  { name: 'Area', type: 'esriFieldTypeDouble' },
  { name: 'Founded', type: 'esriFieldTypeDate' },
];

describe('hosted feature services', () => {
  const t = withApp({ users: { pub: 'org_publisher', reader: 'org_user' } });
  const { pub, reader } = t.users;

  async function newService(geometryType = 'esriGeometryPoint', extra: Record<string, unknown> = {}) {
    const name = uniq('svc');
    const created = await post(
      t.base,
      `content/users/${pub.username}/createService`,
      { createParameters: JSON.stringify({ name, maxRecordCount: 3, ...extra }), outputType: 'featureService' },
      pub.token,
    );
    expect(created.body).toMatchObject({ success: true, name, type: 'Feature Service', isView: false, size: -1 });
    expect(created.body.serviceurl).toBe(`${t.root}/arcgis/rest/services/${name}/FeatureServer`);
    const url = created.body.serviceurl as string;
    const admin = url.replace('/rest/services/', '/rest/admin/services/');
    const def = await post(
      admin,
      'addToDefinition',
      {
        addToDefinition: JSON.stringify({
          layers: [{ name: 'Cities', geometryType, fields: FIELDS, extent: { spatialReference: { wkid: 4326 } } }],
        }),
      },
      pub.token,
    );
    expect(def.body).toEqual({ success: true, layers: [{ id: 0, name: 'Cities' }] });
    return { name, url, itemId: created.body.itemId as string, layer: `${url}/0` };
  }

  it('creates a service, a layer, and reports their info', async () => {
    const s = await newService();
    const info = (await get(s.url, '', {}, pub.token)).body;
    expect(info).toMatchObject({
      serviceItemId: s.itemId,
      maxRecordCount: 3,
      layers: [{ id: 0, name: 'Cities', type: 'Feature Layer', geometryType: 'esriGeometryPoint' }],
      tables: [],
    });
    const layer = (await get(s.layer, '', {}, pub.token)).body;
    expect(layer).toMatchObject({
      id: 0,
      objectIdField: 'OBJECTID',
      geometryType: 'esriGeometryPoint',
      useStandardizedQueries: true,
      supportedQueryFormats: 'JSON, geoJSON, PBF',
      maxRecordCount: 3,
    });
    expect(layer.fields.map((f: { name: string; type: string }) => `${f.name}:${f.type}`)).toEqual([
      'OBJECTID:esriFieldTypeOID',
      'Name:esriFieldTypeString',
      'Pop:esriFieldTypeInteger',
      'Area:esriFieldTypeDouble',
      'Founded:esriFieldTypeDate',
    ]);
    const item = (await get(t.base, `content/items/${s.itemId}`, {}, pub.token)).body;
    expect(item).toMatchObject({ type: 'Feature Service', url: s.url, owner: pub.username });
  });

  it('refuses a duplicate service name', async () => {
    const s = await newService();
    const dup = await post(
      t.base,
      `content/users/${pub.username}/createService`,
      { createParameters: JSON.stringify({ name: s.name.toUpperCase() }), outputType: 'featureService' },
      pub.token,
    );
    expect(dup.body.error).toMatchObject({ code: 400, message: 'Service name already exists.' });
  });

  it('adds, queries, updates and deletes features', async () => {
    const s = await newService();
    const founded = Date.UTC(1850, 5, 1);
    const features = [
      { attributes: { Name: 'Alpha', Pop: 100, Area: 1.5, Founded: founded }, geometry: { x: 10, y: 50 } },
      { attributes: { name: "O'Brien", pop: 2000, area: 2.5 }, geometry: { x: 11, y: 51 } },
      { attributes: { Name: 'Gamma', Pop: 30 }, geometry: { x: 12, y: 52 } },
      { attributes: { Name: 'Delta', Pop: 4000 }, geometry: { x: 13, y: 53 } },
    ];
    const added = (await post(s.layer, 'addFeatures', { features: JSON.stringify(features) }, pub.token)).body;
    expect(added.addResults).toEqual([1, 2, 3, 4].map((id) => ({ objectId: id, globalId: null, success: true })));

    const q = (params: Record<string, string>) => get(s.layer, 'query', params, pub.token).then((r) => r.body);
    const all = await q({ where: '1=1', outFields: '*', orderByFields: 'OBJECTID' });
    expect(all.exceededTransferLimit).toBe(true);
    expect(all.features).toHaveLength(3);
    expect(all.features[0]).toEqual({
      attributes: { OBJECTID: 1, Name: 'Alpha', Pop: 100, Area: 1.5, Founded: founded },
      geometry: { x: 10, y: 50 },
    });
    const page2 = await q({ where: '1=1', outFields: 'OBJECTID', resultOffset: '3', orderByFields: 'OBJECTID' });
    expect(page2.features.map((f: { attributes: { OBJECTID: number } }) => f.attributes.OBJECTID)).toEqual([4]);
    expect(page2.exceededTransferLimit).toBeUndefined();

    expect(await q({ where: "Name = 'O''Brien'", returnCountOnly: 'true' })).toEqual({ count: 1 });
    // The extent of what matches, in one request (the SDK's queryExtent, ogrinfo's summary), in the layer's or outSR's reference.
    const wgs84 = { wkid: 4326, latestWkid: 4326 };
    expect(await q({ where: 'Pop >= 100', returnExtentOnly: 'true' })).toEqual({
      extent: { xmin: 10, ymin: 50, xmax: 13, ymax: 53, spatialReference: wgs84 },
    });
    expect(await q({ where: 'Pop >= 100', returnExtentOnly: 'true', returnCountOnly: 'true' })).toMatchObject({ count: 3 });
    const mercExtent = (await q({ objectIds: '1,4', returnExtentOnly: 'true', outSR: '102100' })).extent;
    expect(mercExtent.spatialReference).toEqual({ wkid: 102100, latestWkid: 3857 });
    expect(mercExtent.xmin).toBeCloseTo(1113194.9, 0);
    expect(mercExtent.xmax).toBeCloseTo(1447153.4, 0);
    expect(await q({ where: '1=0', returnExtentOnly: 'true', returnCountOnly: 'true' })).toEqual({
      count: 0,
      extent: { xmin: 'NaN', ymin: 'NaN', xmax: 'NaN', ymax: 'NaN', spatialReference: wgs84 },
    });
    // More than a page with returnExceededLimitFeatures=false: no features, only the flag (the SDK then splits its tile).
    expect(await q({ where: '1=1', returnExceededLimitFeatures: 'false' })).toMatchObject({ exceededTransferLimit: true, features: [] });
    expect((await q({ where: 'Pop > 1000', returnExceededLimitFeatures: 'false' })).features).toHaveLength(2);
    // Statistics and distinct values are answered as such, not as features (test/e2e/query-statistics.spec.ts has the rest).
    expect((await q({ where: 'Pop > 1000', outStatistics: '[{"statisticType":"count","onStatisticField":"Pop"}]' })).features).toEqual([
      { attributes: { COUNT_Pop: 2 } },
    ]);
    expect(await q({ where: '1=1', outFields: 'Area', returnDistinctValues: 'true', returnCountOnly: 'true' })).toEqual({ count: 3 });
    expect(await q({ where: 'pop >= 100 AND area IS NULL', returnIdsOnly: 'true' })).toEqual({
      objectIdFieldName: 'OBJECTID',
      objectIds: [4],
    });
    expect((await q({ where: "Founded < DATE '1900-01-01'", outFields: 'name' })).features[0].attributes).toEqual({ Name: 'Alpha' });
    const sorted = await q({ where: 'Pop > 0', outFields: 'Name', orderByFields: 'Pop DESC', returnGeometry: 'false' });
    expect(sorted.features.map((f: { attributes: { Name: string } }) => f.attributes.Name)).toEqual(['Delta', "O'Brien", 'Alpha']);
    expect(sorted.features[0].geometry).toBeUndefined();

    const merc = await q({ objectIds: '1', outSR: '102100', outFields: 'OBJECTID' });
    expect(merc.spatialReference).toEqual({ wkid: 102100, latestWkid: 3857 });
    expect(merc.features[0].geometry.x).toBeCloseTo(1113194.9, 0);

    const gj = await q({ where: "Name LIKE 'A%'", f: 'geojson' });
    expect(gj).toMatchObject({
      type: 'FeatureCollection',
      features: [{ type: 'Feature', id: 1, geometry: { type: 'Point', coordinates: [10, 50] }, properties: { Name: 'Alpha' } }],
    });

    const upd = (
      await post(
        s.layer,
        'updateFeatures',
        {
          features: JSON.stringify([{ attributes: { OBJECTID: 2, Pop: 2500 } }, { attributes: { OBJECTID: 99, Pop: 1 } }]),
          rollbackOnFailure: 'false',
        },
        pub.token,
      )
    ).body;
    expect(upd.updateResults[0]).toEqual({ objectId: 2, globalId: null, success: true });
    expect(upd.updateResults[1]).toMatchObject({ objectId: 99, success: false, error: { code: 1019 } });
    expect((await q({ objectIds: '2', outFields: 'Pop,Name' })).features[0].attributes).toEqual({ Pop: 2500, Name: "O'Brien" });

    const del = (await post(s.layer, 'deleteFeatures', { where: 'Pop < 50' }, pub.token)).body;
    expect(del.deleteResults).toEqual([{ objectId: 3, globalId: null, success: true }]);
    expect(await q({ returnCountOnly: 'true' })).toEqual({ count: 3 });
  });

  it('validates attributes and geometry per feature, rolling back by default', async () => {
    const s = await newService('esriGeometryPolygon');
    const bad = [
      {
        attributes: { Name: 'x'.repeat(51) },
        geometry: {
          rings: [
            [
              [0, 0],
              [0, 1],
              [1, 1],
              [0, 0],
            ],
          ],
        },
      },
      { attributes: { Pop: 1.5 }, geometry: { rings: [] } },
    ];
    const r = await post(s.layer, 'addFeatures', { features: JSON.stringify(bad) }, pub.token);
    expect(r.body.error.code).toBe(400);
    expect(r.body.error.details.join(' ')).toContain("Field 'Name' is longer than 50 characters.");
    const partial = await post(
      s.layer,
      'addFeatures',
      {
        features: JSON.stringify([
          bad[0],
          {
            attributes: { Name: 'ok' },
            geometry: {
              rings: [
                [
                  [0, 0],
                  [0, 1],
                  [1, 1],
                  [1, 0],
                  [0, 0],
                ],
                [
                  [0.2, 0.2],
                  [0.8, 0.2],
                  [0.8, 0.8],
                  [0.2, 0.2],
                ],
              ],
            },
          },
        ]),
        rollbackOnFailure: 'false',
      },
      pub.token,
    );
    expect(partial.body.addResults[0]).toMatchObject({ success: false, error: { code: 1000 } });
    expect(partial.body.addResults[1]).toMatchObject({ success: true, objectId: 1 });
    const back = (await get(s.layer, 'query', { objectIds: '1' }, pub.token)).body.features[0].geometry;
    expect(back.rings).toHaveLength(2);
  });

  it('refuses a whole edit request whose feature list is not a JSON array, naming the list', async () => {
    const s = await newService();
    const refusal = async (op: string, params: Record<string, string>) => (await post(s.layer, op, params, pub.token)).body.error;
    const syntax = await refusal('addFeatures', { features: '[{"attributes":' });
    expect(syntax).toMatchObject({ code: 400, message: "'features' is not valid JSON." });
    expect(syntax.details).toHaveLength(1);
    expect(syntax.details[0]).toMatch(/JSON/);
    expect(await refusal('applyEdits', { updates: '{"attributes":{}}' })).toEqual({
      code: 400,
      message: "'updates' must be a JSON array.",
      details: [],
    });
    expect(await refusal('addFeatures', { features: '[{"attributes":{"Name":"a\\u0000b"}}]' })).toEqual({
      code: 400,
      message: "'features' holds the character U+0000, which cannot be stored.",
      details: ['\\u0000 is not allowed'],
    });
    expect((await get(s.layer, 'query', { where: '1=1', returnCountOnly: 'true' }, pub.token)).body.count).toBe(0);
  });

  it('follows the item sharing: unsharing takes effect on the next query', async () => {
    const s = await newService();
    await post(s.layer, 'addFeatures', { features: JSON.stringify([{ attributes: { Name: 'A' }, geometry: { x: 1, y: 1 } }]) }, pub.token);
    const g = await createGroup(t.base, pub.token);
    await addUsers(t.base, pub.token, g, [reader.username]);
    const asReader = () => get(s.layer, 'query', { where: '1=1' }, reader.token).then((r) => r.body);
    expect((await asReader()).error.code).toBe(400);
    expect((await get(s.layer, 'query', { where: '1=1' })).body.error.code).toBe(499);
    await post(t.base, `content/users/${pub.username}/shareItems`, { items: s.itemId, groups: g }, pub.token);
    expect((await asReader()).features).toHaveLength(1);
    expect((await post(s.layer, 'addFeatures', { features: '[]' }, reader.token)).body.error.code).toBe(403);
    await post(t.base, `content/users/${pub.username}/unshareItems`, { items: s.itemId, groups: g }, pub.token);
    expect((await asReader()).error.code).toBe(400);
    await post(t.base, `content/users/${pub.username}/items/${s.itemId}/share`, { everyone: 'true' }, pub.token);
    expect((await get(s.layer, 'query', { where: '1=1' })).body.features).toHaveLength(1);
    // A public page keeps its ETag, so a cache can revalidate it.
    const open = await fetch(`${s.layer}/query?f=json&where=1%3D1`);
    expect(open.headers.get('cache-control')).toBe('no-cache');
    const etag = open.headers.get('etag');
    expect(etag).toBeTruthy();
    // fetch sends no-cache with a conditional request unless told otherwise, and no-cache makes Express answer in full.
    const again = await fetch(`${s.layer}/query?f=json&where=1%3D1`, { headers: { 'If-None-Match': etag!, 'Cache-Control': 'max-age=0' } });
    expect(again.status).toBe(304);
  });

  it('answers a query on a layer the service lacks only to callers who may see the service, after its capabilities', async () => {
    const s = await newService();
    const q = (layer: string, token?: string) => get(`${s.url}/${layer}`, 'query', { where: '1=1' }, token).then((r) => r.body);
    for (const layer of ['7', 'x', '1234567890']) {
      expect((await q(layer, pub.token)).error).toMatchObject({ code: 400, message: 'Layer does not exist.' });
      expect((await q(layer, reader.token)).error).toMatchObject({ code: 400, message: 'Service does not exist or is inaccessible.' });
      expect((await q(layer)).error.code).toBe(499);
    }
    const noQuery = await newService('esriGeometryPoint', { capabilities: 'Create' });
    const refused = (await get(`${noQuery.url}/7`, 'query', { where: '1=1' }, pub.token)).body.error;
    expect(refused).toMatchObject({ code: 400, message: 'This service does not allow queries.' });
    expect((await q('0', pub.token)).features).toEqual([]);
  });

  it('reads a layer replaced since the last query as it is now, and tells callers who may not see it nothing more', async () => {
    const s = await newService();
    await post(s.layer, 'addFeatures', { features: JSON.stringify([{ attributes: { Name: 'A' }, geometry: { x: 1, y: 1 } }]) }, pub.token);
    const q = (params: Record<string, string>, token?: string) =>
      get(s.layer, 'query', { where: '1=1', ...params }, token).then((r) => r.body);
    expect((await q({ outFields: 'Name' }, pub.token)).features).toHaveLength(1);
    // The layer is remembered now: a hidden service still answers as hidden, whatever the request gets wrong.
    expect((await q({ where: 'Nope = 1' }, reader.token)).error.message).toBe('Service does not exist or is inaccessible.');
    expect((await q({ f: 'pbf' }, reader.token)).error.message).toBe('Service does not exist or is inaccessible.');
    expect((await q({ outFields: 'Nope' })).error.code).toBe(499);
    expect((await q({ where: 'Nope = 1' }, pub.token)).error.message).toBe('Cannot perform query. Invalid query parameters.');
    const admin = s.url.replace('/rest/services/', '/rest/admin/services/');
    await post(admin, 'deleteFromDefinition', { deleteFromDefinition: JSON.stringify({ layers: [{ id: 0 }] }) }, pub.token);
    const layer = { id: 0, name: 'Again', geometryType: 'esriGeometryPoint', fields: [{ name: 'Other', type: 'esriFieldTypeInteger' }] };
    await post(admin, 'addToDefinition', { addToDefinition: JSON.stringify({ layers: [layer] }) }, pub.token);
    const again = await q({ outFields: '*' }, pub.token);
    expect(again.fields.map((f: { name: string }) => f.name)).toEqual(['OBJECTID', 'Other']);
    expect(again.features).toEqual([]);
    expect((await q({ outFields: 'Name' }, pub.token)).error.details[0]).toContain("'outFields' names 'Name'");
  });

  it('rejects hostile where clauses with the ArcGIS query error and changes nothing', async () => {
    const s = await newService();
    await post(s.layer, 'addFeatures', { features: JSON.stringify([{ attributes: { Name: 'A' }, geometry: { x: 1, y: 1 } }]) }, pub.token);
    for (const where of [
      '1=1; DELETE FROM items',
      "Name = 'a' OR pg_sleep(5) IS NULL",
      '1=1 --',
      'EXISTS (SELECT 1 FROM users)',
      'Nope = 1',
    ]) {
      const r = await get(s.layer, 'query', { where }, pub.token);
      expect(r.body.error).toMatchObject({ code: 400, message: 'Cannot perform query. Invalid query parameters.' });
      const d = await post(s.layer, 'deleteFeatures', { where }, pub.token);
      expect(d.body.error.code).toBe(400);
    }
    expect((await get(s.layer, 'query', { returnCountOnly: 'true' }, pub.token)).body).toEqual({ count: 1 });
  });

  it('refuses unknown spatial references, empty definitions and malformed envelopes with a 400', async () => {
    const s = await newService();
    const cases: Record<string, string>[] = [
      { outSR: '12345' },
      { geometry: 'null' },
      { geometry: '1,2,3', geometryType: 'esriGeometryEnvelope' },
      { inSR: '12345', geometry: '0,0,1,1' },
    ];
    for (const params of cases) {
      const r = await get(s.layer, 'query', params, pub.token);
      expect(r.body.error).toMatchObject({ code: 400 });
    }
    const empty = await post(
      t.base,
      `content/users/${pub.username}/createService`,
      { createParameters: ' ', outputType: 'featureService' },
      pub.token,
    );
    expect(empty.body.error).toMatchObject({ code: 400, message: "'createParameters' is required." });
    const admin = s.url.replace('/rest/services/', '/rest/admin/services/');
    expect((await post(admin, 'deleteFromDefinition', { deleteFromDefinition: '{"layers":{}}' }, pub.token)).body.error.code).toBe(400);
    const tiny = await post(
      s.layer,
      'addFeatures',
      { features: JSON.stringify([{ attributes: { Founded: 8.64e15 }, geometry: { x: 0, y: 0 } }]) },
      pub.token,
    );
    expect(tiny.body.error.details[0]).toContain('years 1 to 9999');
  });

  it('adds all of a definition or none of it: a layer id clash leaves no layer or table behind', async () => {
    const s = await newService();
    const admin = s.url.replace('/rest/services/', '/rest/admin/services/');
    const layer = (id: number, name: string) => ({ id, name, geometryType: 'esriGeometryPoint', fields: FIELDS });
    for (const layers of [
      [layer(5, 'A'), layer(5, 'B')],
      [layer(6, 'C'), layer(0, 'D')],
    ]) {
      const r = await post(admin, 'addToDefinition', { addToDefinition: JSON.stringify({ layers }) }, pub.token);
      expect(r.body.error).toMatchObject({
        code: 400,
        message: 'Invalid layer definition.',
        details: [expect.stringMatching(/^Layer id \d is already in use\.$/)],
      });
    }
    expect((await get(s.url, '', {}, pub.token)).body.layers.map((l: { id: number }) => l.id)).toEqual([0]);
    const tables = await t.db.query(`SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY 1`, [`svc_${s.itemId}`]);
    expect(tables.map((r: { tablename: string }) => r.tablename)).toEqual(['l0']);
  });

  it('refuses U+0000 in JSON parameters, which PostgreSQL cannot store', async () => {
    const r = await post(
      t.base,
      `content/users/${pub.username}/createService`,
      { createParameters: JSON.stringify({ name: uniq('svc'), serviceDescription: 'a\u0000b' }), outputType: 'featureService' },
      pub.token,
    );
    expect(r.body.error).toMatchObject({ code: 400, message: "'createParameters' holds the character U+0000, which cannot be stored." });
  });

  it('answers rest/info for the token flow and exchanges a token for a server', async () => {
    const info = (await post(t.root, 'arcgis/rest/info', {})).body;
    expect(info).toEqual({
      currentVersion: 11.1,
      fullVersion: '11.1.0',
      owningSystemUrl: t.root,
      authInfo: { isTokenBasedSecurity: true, tokenServicesUrl: `${t.base}/generateToken` },
    });
    expect((await post(t.base, 'info', {})).body.owningSystemUrl).toBe(t.root);
    const r = (await post(t.base, 'generateToken', { serverUrl: `${t.root}/arcgis`, expiration: 10 }, pub.token)).body;
    expect(typeof r.token).toBe('string');
    expect((await get(t.base, 'community/self', {}, r.token)).body.username).toBe(pub.username);
  });

  it('removes layers and drops the data with the service item', async () => {
    const s = await newService();
    const admin = s.url.replace('/rest/services/', '/rest/admin/services/');
    expect(
      (await post(admin, 'deleteFromDefinition', { deleteFromDefinition: JSON.stringify({ layers: [{ id: 0 }] }) }, pub.token)).body,
    ).toEqual({ success: true });
    expect((await get(s.layer, '', {}, pub.token)).body.error.message).toBe('Layer does not exist.');
    await post(
      admin,
      'addToDefinition',
      { addToDefinition: JSON.stringify({ layers: [{ name: 'Again', geometryType: 'esriGeometryPolyline', fields: [] }] }) },
      pub.token,
    );
    const schema = `svc_${s.itemId}`;
    expect((await t.db.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1`, [schema]))[0].n).toBe(1);
    await post(t.base, `content/users/${pub.username}/items/${s.itemId}/delete`, {}, pub.token);
    expect((await t.db.query(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1`, [schema]))[0].n).toBe(0);
  });
});
