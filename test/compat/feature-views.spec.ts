/**
 * Hosted feature layer views through @esri/arcgis-rest-feature-service and -portal 4.x, as a client makes one:
 * createFeatureService with isView, addToServiceDefinition naming the source layer in
 * adminLayerInfo.viewLayerDefinition with a viewDefinitionQuery, then getViewSources, getService, getLayer and
 * queryFeatures on the view; the view shared on its own while its source stays private; edits through the view; the
 * source kept while the view exists.
 */
import { ArcGISIdentityManager, IField } from '@esri/arcgis-rest-request';
import { getItem, removeItem, setItemAccess } from '@esri/arcgis-rest-portal';
import {
  addFeatures,
  addToServiceDefinition,
  createFeatureService,
  getLayer,
  getService,
  getViewSources,
  queryFeatures,
  updateFeatures,
} from '@esri/arcgis-rest-feature-service';
import { withApp } from '../support/harness';
import { uniq } from '../support/client';
import { caught } from '../support/caught';

/* eslint-disable @typescript-eslint/no-explicit-any */

const FIELDS: IField[] = [
  { name: 'OBJECTID', type: 'esriFieldTypeOID', alias: 'OBJECTID', nullable: false, editable: false },
  { name: 'Name', type: 'esriFieldTypeString', alias: 'Name', length: 64, nullable: true, editable: true },
  { name: 'Kind', type: 'esriFieldTypeString', alias: 'Kind', length: 16, nullable: true, editable: true },
  { name: 'Owner', type: 'esriFieldTypeString', alias: 'Owner', length: 64, nullable: true, editable: true },
  { name: 'Visits', type: 'esriFieldTypeInteger', alias: 'Visits', nullable: true, editable: true },
];
const ROWS = 30;
/** Every third site is 'open': 10 of 30. */
const site = (i: number) => ({
  attributes: { Name: `site-${i}`, Kind: i % 3 === 0 ? 'open' : 'closed', Owner: `owner-${i}`, Visits: i },
  geometry: { x: 10 + i * 0.1, y: 50, spatialReference: { wkid: 4326 } },
});

describe('hosted feature layer views through @esri/arcgis-rest-feature-service', () => {
  const t = withApp({ users: { owner: 'org_publisher', reader: 'org_user' } });
  let owner: ArcGISIdentityManager;
  let reader: ArcGISIdentityManager;
  let source: { name: string; url: string; itemId: string };
  let view: { name: string; url: string; itemId: string };

  beforeAll(async () => {
    owner = await ArcGISIdentityManager.signIn({ username: t.users.owner.username, password: t.users.owner.password, portal: t.base });
    reader = await ArcGISIdentityManager.signIn({ username: t.users.reader.username, password: t.users.reader.password, portal: t.base });
    const name = uniq('src');
    const created = await createFeatureService({
      item: { name, capabilities: 'Create,Delete,Query,Update,Editing', spatialReference: { wkid: 4326 } } as any,
      authentication: owner,
    });
    await addToServiceDefinition(created.serviceurl, {
      layers: [{ name: 'Sites', type: 'Feature Layer', geometryType: 'esriGeometryPoint', fields: FIELDS } as any],
      authentication: owner,
    });
    const added = await addFeatures({
      url: `${created.serviceurl}/0`,
      features: Array.from({ length: ROWS }, (_, i) => site(i)),
      authentication: owner,
    });
    expect(added.addResults.every((r) => r.success)).toBe(true);
    source = { name, url: created.serviceurl, itemId: created.serviceItemId };
  }, 60_000);

  it('createFeatureService with isView makes a view item, and addToServiceDefinition gives it a filtered layer', async () => {
    const name = uniq('view');
    const created = await createFeatureService({
      item: { name, capabilities: 'Query,Create,Update,Editing', spatialReference: { wkid: 4326 } } as any,
      params: { isView: true },
      authentication: owner,
    });
    expect(created.isView).toBe(true);
    const item = await getItem(created.serviceItemId, { authentication: owner });
    expect(item.type).toBe('Feature Service');
    expect(item.typeKeywords).toContain('View Service');
    const def = await addToServiceDefinition(created.serviceurl, {
      layers: [
        {
          name: 'Open sites',
          viewDefinitionQuery: "Kind = 'open'",
          adminLayerInfo: {
            viewLayerDefinition: {
              sourceServiceName: source.name,
              sourceLayerId: 0,
              sourceLayerFields: [
                { name: 'Name', alias: 'Site', source: 'Name' },
                { name: 'Visits', alias: 'Visits', source: 'Visits' },
              ],
            },
          },
        } as any,
      ],
      authentication: owner,
    });
    expect(def.success).toBe(true);
    view = { name, url: created.serviceurl, itemId: created.serviceItemId };
  });

  it('getViewSources names the source service', async () => {
    const sources = await getViewSources(view.url, owner);
    expect(sources.services).toEqual([{ name: source.name, type: 'FeatureServer', url: source.url, serviceItemId: source.itemId }]);
  });

  it('getService and getLayer say isView, and the layer lists only the visible fields', async () => {
    const service: any = await getService({ url: view.url, authentication: owner });
    expect(service).toMatchObject({ isView: true, isUpdatableView: true, sourceSchemaChangesAllowed: true });
    const layer: any = await getLayer({ url: `${view.url}/0`, authentication: owner });
    expect(layer).toMatchObject({ isView: true, name: 'Open sites', geometryType: 'esriGeometryPoint' });
    expect(layer.fields.map((f: IField) => [f.name, f.alias])).toEqual([
      ['OBJECTID', 'OBJECTID'],
      ['Name', 'Site'],
      ['Visits', 'Visits'],
    ]);
    const plain: any = await getService({ url: source.url, authentication: owner });
    expect(plain.isView).toBeUndefined();
  });

  it('queryFeatures on the view answers only its rows and fields', async () => {
    const r: any = await queryFeatures({
      url: `${view.url}/0`,
      where: '1=1',
      outFields: '*',
      orderByFields: 'Visits',
      authentication: owner,
    });
    expect(r.features).toHaveLength(ROWS / 3);
    expect(r.features.map((f: any) => f.attributes.Visits)).toEqual(Array.from({ length: ROWS / 3 }, (_, i) => i * 3));
    for (const f of r.features) expect(Object.keys(f.attributes).sort()).toEqual(['Name', 'OBJECTID', 'Visits']);
    expect(r.fields.map((f: IField) => f.name)).toEqual(['OBJECTID', 'Name', 'Visits']);
    const count: any = await queryFeatures({ url: `${view.url}/0`, where: 'Visits > 10', returnCountOnly: true, authentication: owner });
    expect(count.count).toBe(6);
  });

  it('a hidden field answers as a field that does not exist', async () => {
    const hidden = await caught(() => queryFeatures({ url: `${view.url}/0`, where: "Owner = 'owner-3'", authentication: owner }));
    const missing = await caught(() => queryFeatures({ url: `${view.url}/0`, where: "Zzzzz = 'owner-3'", authentication: owner }));
    expect(hidden.message).toContain('Invalid query parameters');
    expect(JSON.stringify(hidden.response)).toBe(JSON.stringify(missing.response).replace(/Zzzzz/g, 'Owner'));
  });

  it('the view is shared on its own: a reader queries it while the source stays private', async () => {
    await setItemAccess({ id: view.itemId, owner: t.users.owner.username, access: 'org', authentication: owner });
    const r: any = await queryFeatures({ url: `${view.url}/0`, where: '1=1', returnCountOnly: true, authentication: reader });
    expect(r.count).toBe(ROWS / 3);
    const refused = await caught(() => queryFeatures({ url: `${source.url}/0`, where: '1=1', authentication: reader }));
    expect(refused.message).toContain('Service does not exist or is inaccessible');
    // Who may read the view is not told where it reads from.
    const sources = await caught(() => getViewSources(view.url, reader));
    expect(sources.response.error).toMatchObject({
      code: 403,
      details: ['Only the owner of the view or an administrator may list its sources.'],
    });
  });

  it('edits through the view reach the source, inside its filter only', async () => {
    // The new row's Kind is empty, outside "Kind = 'open'": refused, and nothing was written.
    const refused = await caught(() =>
      addFeatures({
        url: `${view.url}/0`,
        features: [{ attributes: { Name: 'new', Visits: 99 }, geometry: { x: 11, y: 50 } as any }],
        authentication: owner,
      }),
    );
    expect(refused.message).toContain('Unable to complete operation.');
    const seen: any = await queryFeatures({ url: `${source.url}/0`, where: "Name = 'new'", returnCountOnly: true, authentication: owner });
    expect(seen.count).toBe(0);
    const closed: any = await queryFeatures({
      url: `${source.url}/0`,
      where: "Kind = 'closed'",
      outFields: ['OBJECTID'],
      authentication: owner,
    });
    const outside = closed.features[0].attributes.OBJECTID;
    const open: any = await queryFeatures({ url: `${view.url}/0`, where: 'Visits = 3', outFields: ['OBJECTID'], authentication: owner });
    const inside = open.features[0].attributes.OBJECTID;
    const updated = await updateFeatures({
      url: `${view.url}/0`,
      features: [{ attributes: { OBJECTID: inside, Name: 'renamed' } }, { attributes: { OBJECTID: outside, Name: 'renamed' } }],
      params: { rollbackOnFailure: false },
      authentication: owner,
    });
    expect(updated.updateResults.map((u) => u.success)).toEqual([true, false]);
    const after: any = await queryFeatures({
      url: `${source.url}/0`,
      where: "Name = 'renamed'",
      outFields: ['OBJECTID', 'Owner'],
      authentication: owner,
    });
    expect(after.features.map((f: any) => f.attributes)).toEqual([{ OBJECTID: inside, Owner: 'owner-3' }]);
  });

  it('the source cannot be removed while the view exists; once the view is gone, it can', async () => {
    const refused = await caught(() => removeItem({ id: source.itemId, authentication: owner }));
    expect(refused.message).toContain('Unable to delete item. This service item has a related Service item');
    expect((await getItem(source.itemId, { authentication: owner })).id).toBe(source.itemId);
    expect((await removeItem({ id: view.itemId, authentication: owner })).success).toBe(true);
    expect((await removeItem({ id: source.itemId, authentication: owner })).success).toBe(true);
  });
});
