import { createHostedService, get, post, uniq } from '../support/client';
import { sampleService, SampleService } from '../support/sample-service';
import { withApp } from '../support/harness';

/**
 * What ArcGIS Pro, QGIS and the web clients read from a hosted service's root, layer and `layers` resources before
 * they add a layer: renderer, templates, extents, units, and the members ArcGIS Online gives a hosted layer.
 */
describe('service and layer JSON', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  let sample: SampleService;

  beforeAll(async () => {
    sample = await sampleService(t.base, owner);
  });

  /** A service made as clients make one, with createParameters and an addToDefinition of layers and tables. */
  async function newService(params: Record<string, unknown>, definition: { layers?: object[]; tables?: object[] }) {
    const created = await post(
      t.base,
      `content/users/${owner.username}/createService`,
      { createParameters: JSON.stringify({ name: uniq('json'), ...params }), outputType: 'featureService' },
      owner.token,
    );
    const url = created.body.serviceurl as string;
    const admin = url.replace('/rest/services/', '/rest/admin/services/');
    const def = await post(admin, 'addToDefinition', { addToDefinition: JSON.stringify(definition) }, owner.token);
    expect(def.body.success).toBe(true);
    return { url, itemId: created.body.itemId as string };
  }

  const json = async (url: string, path = '') => {
    const r = await get(url, path, {}, owner.token);
    expect(r.body?.error).toBeUndefined();
    return r.body;
  };

  /** The table behind a layer, named from the stored metadata (never from a request). */
  async function table(serviceUrl: string, layerId: number): Promise<string> {
    const name = serviceUrl.split('/').slice(-2)[0];
    const [r] = await t.db.query(
      `SELECT s.schema_name, l.table_name FROM feature_services s JOIN feature_layers l ON l.service_item_id = s.item_id
        WHERE s.name = $1 AND l.layer_id = $2`,
      [name, layerId],
    );
    return `"${r.schema_name}"."${r.table_name}"`;
  }

  /** ST_Extent of a layer's data, optionally reprojected first. */
  async function dataExtent(serviceUrl: string, layerId: number, srid?: number) {
    const g = srid ? `ST_Transform(shape, ${Number(srid)})` : 'shape';
    const [r] = await t.db.query(
      `SELECT ST_XMin(e) AS xmin, ST_YMin(e) AS ymin, ST_XMax(e) AS xmax, ST_YMax(e) AS ymax
         FROM (SELECT ST_Extent(${g}) AS e FROM ${await table(serviceUrl, layerId)}) x`,
    );
    return r as { xmin: number; ymin: number; xmax: number; ymax: number };
  }

  function expectClose(actual: Record<string, number>, expected: Record<string, number>, tolerance: number) {
    for (const k of ['xmin', 'ymin', 'xmax', 'ymax']) expect(Math.abs(actual[k] - expected[k])).toBeLessThanOrEqual(tolerance);
  }

  it('draws each geometry type with a simple renderer and offers one template named after the layer', async () => {
    const expected = [
      { id: 0, name: 'Areas', symbol: 'esriSFS', tool: 'esriFeatureEditToolPolygon' },
      { id: 1, name: 'Roads', symbol: 'esriSLS', tool: 'esriFeatureEditToolLine' },
      { id: 2, name: 'Sites', symbol: 'esriSMS', tool: 'esriFeatureEditToolPoint' },
    ];
    for (const e of expected) {
      const layer = await json(`${sample.url}/${e.id}`);
      expect(layer.drawingInfo).toMatchObject({
        renderer: { type: 'simple', symbol: { type: e.symbol } },
        transparency: 0,
        labelingInfo: null,
      });
      expect(layer.drawingInfo.renderer.symbol.color).toEqual([
        expect.any(Number),
        expect.any(Number),
        expect.any(Number),
        expect.any(Number),
      ]);
      expect(layer.templates).toEqual([
        { name: e.name, description: '', drawingTool: e.tool, prototype: { attributes: { Name: null, Kind: null, Opened: null } } },
      ]);
      expect(layer).toMatchObject({
        name: e.name,
        displayField: 'Name',
        types: [],
        typeIdField: '',
        hasZ: false,
        hasM: false,
        hasAttachments: false,
        htmlPopupType: 'esriServerHTMLPopupTypeNone',
        objectIdField: 'OBJECTID',
        globalIdField: '',
        uniqueIdField: { name: 'OBJECTID', isSystemMaintained: true },
        geometryField: { name: 'Shape', type: 'esriFieldTypeGeometry' },
        editFieldsInfo: null,
        ownershipBasedAccessControlForFeatures: null,
        relationships: [],
        syncEnabled: false,
        allowGeometryUpdates: true,
        supportsRollbackOnFailureParameter: true,
        supportsApplyEditsWithGlobalIds: false,
        maxRecordCount: 2000,
        standardMaxRecordCount: 2000,
        tileMaxRecordCount: 2000,
        maxRecordCountFactor: 1,
        spatialReference: { wkid: 4326 },
      });
    }
    const polygon = (await json(`${sample.url}/0`)).drawingInfo.renderer.symbol;
    expect(polygon.outline).toMatchObject({ type: 'esriSLS', style: 'esriSLSSolid' });
  });

  it("reports each layer's extent as its data's, and the service's as their union, in decimal degrees", async () => {
    const union = { xmin: Infinity, ymin: Infinity, xmax: -Infinity, ymax: -Infinity };
    for (const id of [0, 1, 2]) {
      const layer = await json(`${sample.url}/${id}`);
      const data = await dataExtent(sample.url, id);
      expect(layer.extent.spatialReference).toEqual({ wkid: 4326, latestWkid: 4326 });
      expectClose(layer.extent, data, 1e-9);
      union.xmin = Math.min(union.xmin, data.xmin);
      union.ymin = Math.min(union.ymin, data.ymin);
      union.xmax = Math.max(union.xmax, data.xmax);
      union.ymax = Math.max(union.ymax, data.ymax);
    }
    const service = await json(sample.url);
    expect(service).toMatchObject({ units: 'esriDecimalDegrees', spatialReference: { wkid: 4326 } });
    expectClose(service.fullExtent, union, 1e-9);
    expect(service.initialExtent).toEqual(service.fullExtent);
    expect(service.fullExtent.spatialReference).toEqual({ wkid: 4326 });
    expect(service.layers[2]).toEqual({
      id: 2,
      name: 'Sites',
      type: 'Feature Layer',
      parentLayerId: -1,
      defaultVisibility: true,
      subLayerIds: null,
      minScale: 0,
      maxScale: 0,
      geometryType: 'esriGeometryPoint',
    });
    expect(service).toMatchObject({
      syncEnabled: false,
      supportsApplyEditsWithGlobalIds: false,
      allowGeometryUpdates: true,
      relationships: [],
      documentInfo: { Author: owner.username },
    });
  });

  it('gives the service extent in its own spatial reference, and its units', async () => {
    // The layer keeps WGS 84 while the service is Web Mercator: the extent is reprojected.
    const { url } = await newService(
      { spatialReference: { wkid: 102100 } },
      { layers: [{ name: 'Pts', geometryType: 'esriGeometryPoint', fields: [], extent: { spatialReference: { wkid: 4326 } } }] },
    );
    const empty = await json(url);
    expect(empty).toMatchObject({ units: 'esriMeters', fullExtent: null, initialExtent: null });
    expect((await json(`${url}/0`)).extent).toBeNull();

    const pts = [
      { x: -3, y: 40 },
      { x: 12.5, y: 55.25 },
      { x: 4, y: 47 },
    ];
    await post(`${url}/0`, 'addFeatures', { features: JSON.stringify(pts.map((geometry) => ({ attributes: {}, geometry }))) }, owner.token);
    const service = await json(url);
    expect(service.fullExtent.spatialReference).toEqual({ wkid: 102100, latestWkid: 3857 });
    expectClose(service.fullExtent, await dataExtent(url, 0, 3857), 0.01);

    // New York Long Island, in US survey feet.
    const feet = await newService(
      { spatialReference: { wkid: 2263 } },
      { layers: [{ name: 'P', geometryType: 'esriGeometryPoint', fields: [] }] },
    );
    expect(await json(feet.url)).toMatchObject({ units: 'esriFeet', spatialReference: { wkid: 2263 } });
  });

  it('answers FeatureServer/layers with the full JSON of every layer and table', async () => {
    const { url } = await newService({}, { tables: [{ name: 'Visits', fields: [{ name: 'Note', type: 'esriFieldTypeString' }] }] });
    const all = await json(url, 'layers');
    expect(all.layers).toEqual([]);
    expect(all.tables).toEqual([await json(`${url}/0`)]);
    expect(all.tables[0]).toMatchObject({
      type: 'Table',
      displayField: 'Note',
      templates: [{ name: 'Visits', drawingTool: 'esriFeatureEditToolNone', prototype: { attributes: { Note: null } } }],
    });
    expect(all.tables[0].drawingInfo).toBeUndefined();
    expect(all.tables[0].extent).toBeUndefined();

    const sampleAll = await json(sample.url, 'layers');
    expect(sampleAll.tables).toEqual([]);
    expect(sampleAll.layers).toEqual(await Promise.all([0, 1, 2].map((id) => json(`${sample.url}/${id}`))));
  });

  it('offers no template when the service takes no new features', async () => {
    const { url } = await newService(
      { capabilities: 'Query' },
      { layers: [{ name: 'Pts', geometryType: 'esriGeometryPoint', fields: [] }] },
    );
    expect((await json(`${url}/0`)).templates).toEqual([]);
  });

  it("keeps a large layer's extent cheap and covering, and a small layer's exact after deletes", async () => {
    const created = await createHostedService(t.base, owner, [
      { name: 'Big', geometryType: 'esriGeometryPoint', fields: [] },
      { name: 'Small', geometryType: 'esriGeometryPoint', fields: [] },
    ]);
    const url = created.serviceurl;
    // Over the 1 MiB below which the table is scanned: the extent comes from the GiST index.
    await t.db.query(
      `INSERT INTO ${await table(url, 0)} (shape)
       SELECT ST_SetSRID(ST_MakePoint(-170 + (g % 340) + g / 1e6, -80 + (g % 160) + g / 1e6), 4326) FROM generate_series(1, 40000) g`,
    );
    const [{ bytes }] = await t.db.query(`SELECT pg_table_size('${await table(url, 0)}') AS bytes`);
    expect(Number(bytes)).toBeGreaterThan(1024 * 1024);
    const big = (await json(`${url}/0`)).extent;
    const data = await dataExtent(url, 0);
    // float4 boxes, rounded outwards: covering, and within their rounding of the data.
    expect(big.xmin).toBeLessThanOrEqual(data.xmin);
    expect(big.ymin).toBeLessThanOrEqual(data.ymin);
    expect(big.xmax).toBeGreaterThanOrEqual(data.xmax);
    expect(big.ymax).toBeGreaterThanOrEqual(data.ymax);
    expectClose(big, data, 1e-4);
    // Read from the index, not a scan: the exact extent has no float4 rounding.
    expect(['xmin', 'ymin', 'xmax', 'ymax'].some((k) => big[k] !== data[k as keyof typeof data])).toBe(true);

    const pts = [
      { x: 1, y: 1 },
      { x: 2, y: 2 },
      { x: 30, y: 40 },
    ];
    const added = await post(
      `${url}/1`,
      'addFeatures',
      { features: JSON.stringify(pts.map((geometry) => ({ attributes: {}, geometry }))) },
      owner.token,
    );
    expect((await json(`${url}/1`)).extent).toMatchObject({ xmin: 1, ymin: 1, xmax: 30, ymax: 40 });
    await post(`${url}/1`, 'deleteFeatures', { objectIds: String(added.body.addResults[2].objectId) }, owner.token);
    expect((await json(`${url}/1`)).extent).toMatchObject({ xmin: 1, ymin: 1, xmax: 2, ymax: 2 });
  });
});
