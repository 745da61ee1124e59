/**
 * Compatibility suite: @esri/arcgis-rest-feature-service 4.10.2 driving the admin side of hosted feature services and
 * the reads that come with it: getFeature, getServiceAdminInfo, updateServiceDefinition (on the service and on a
 * layer), addToServiceDefinition on a layer, queryRelated and getAllLayersAndTables, each as its docs show, checking
 * the reply and that the state changed (or, when refused, did not).
 */
import { ArcGISIdentityManager, IField } from '@esri/arcgis-rest-request';
import { exportItem, getItem, getItemData, getItemStatus, setItemAccess } from '@esri/arcgis-rest-portal';
import gdal from 'gdal-async';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  addFeatures,
  addToServiceDefinition,
  createFeatureService,
  deleteFeatures,
  getAllLayersAndTables,
  getFeature,
  getLayer,
  getService,
  getServiceAdminInfo,
  queryFeatures,
  queryRelated,
  updateServiceDefinition,
} from '@esri/arcgis-rest-feature-service';
import { withApp } from '../support/harness';
import { post, uniq } from '../support/client';
import { caught } from '../support/caught';

/* eslint-disable @typescript-eslint/no-explicit-any */

const ONE_TO_MANY = 'esriRelCardinalityOneToMany';
const SITE_SIDE = {
  id: 0,
  name: 'Inspections',
  relatedTableId: 1,
  cardinality: ONE_TO_MANY,
  role: 'esriRelRoleOrigin',
  keyField: 'OBJECTID',
  composite: false,
};
const INSPECTION_SIDE = {
  id: 0,
  name: 'Sites',
  relatedTableId: 0,
  cardinality: ONE_TO_MANY,
  role: 'esriRelRoleDestination',
  keyField: 'SiteId',
  composite: false,
};

const SITES = {
  id: 0,
  name: 'Sites',
  type: 'Feature Layer',
  geometryType: 'esriGeometryPoint',
  fields: [
    { name: 'OBJECTID', type: 'esriFieldTypeOID', alias: 'OBJECTID', nullable: false, editable: false },
    { name: 'Name', type: 'esriFieldTypeString', alias: 'Name', length: 64, nullable: true, editable: true },
    { name: 'Kind', type: 'esriFieldTypeInteger', alias: 'Kind', nullable: true, editable: true },
  ] as IField[],
  relationships: [SITE_SIDE],
};
const INSPECTIONS = {
  id: 1,
  name: 'Inspections',
  type: 'Table',
  fields: [
    { name: 'SiteId', type: 'esriFieldTypeInteger', alias: 'Site', nullable: true, editable: true },
    { name: 'Note', type: 'esriFieldTypeString', alias: 'Note', length: 200, nullable: true, editable: true },
  ] as IField[],
  relationships: [INSPECTION_SIDE],
};

describe('@esri/arcgis-rest-feature-service 4.10.2: admin definitions, getFeature and related records', () => {
  const t = withApp({ users: { owner: 'org_publisher', reader: 'org_user' }, worker: true });
  let auth: ArcGISIdentityManager;
  let readerAuth: ArcGISIdentityManager;

  beforeAll(async () => {
    auth = await ArcGISIdentityManager.signIn({ username: t.users.owner.username, password: t.users.owner.password, portal: t.base });
    readerAuth = await ArcGISIdentityManager.signIn({
      username: t.users.reader.username,
      password: t.users.reader.password,
      portal: t.base,
    });
  });

  interface Service {
    name: string;
    url: string;
    itemId: string;
    /** Object ids of sites a, b, c. */
    sites: number[];
  }

  /** Sites a, b and c; inspections: two of a, one of b, none of c, and one of no site. */
  async function newService(): Promise<Service> {
    const name = uniq('adm');
    const created = await createFeatureService({
      item: { name, capabilities: 'Create,Delete,Query,Update,Editing', spatialReference: { wkid: 4326 }, maxRecordCount: 100 },
      authentication: auth,
    });
    const url = created.serviceurl;
    const def = await addToServiceDefinition(url, { layers: [SITES as any], tables: [INSPECTIONS as any], authentication: auth });
    expect(def.success).toBe(true);
    const added = await addFeatures({
      url: `${url}/0`,
      features: ['a', 'b', 'c'].map((n, i) => ({ attributes: { Name: n, Kind: i }, geometry: { x: i, y: i } })),
      authentication: auth,
    });
    const sites = added.addResults.map((r) => r.objectId);
    await addFeatures({
      url: `${url}/1`,
      features: [
        { attributes: { SiteId: sites[0], Note: 'a1' } },
        { attributes: { SiteId: sites[0], Note: 'a2' } },
        { attributes: { SiteId: sites[1], Note: 'b1' } },
        { attributes: { SiteId: null, Note: 'orphan' } },
      ],
      authentication: auth,
    });
    return { name, url, itemId: created.serviceItemId, sites };
  }

  let svc: Service;
  beforeAll(async () => {
    svc = await newService();
  });

  describe('getFeature', () => {
    it('answers {feature} with every field and the geometry', async () => {
      const feature = await getFeature({ url: `${svc.url}/0`, id: svc.sites[1], authentication: auth });
      expect(feature).toEqual({ attributes: { OBJECTID: svc.sites[1], Name: 'b', Kind: 1 }, geometry: { x: 1, y: 1 } });
      const row = await getFeature({ url: `${svc.url}/1`, id: 1, authentication: auth });
      expect(row).toEqual({ attributes: { OBJECTID: 1, SiteId: svc.sites[0], Note: 'a1' } });
    });

    it('answers a missing object id with the 404 envelope', async () => {
      const e = await caught(() => getFeature({ url: `${svc.url}/0`, id: 999999, authentication: auth }));
      expect(e).toMatchObject({ name: 'ArcGISRequestError', code: 404 });
    });

    it('follows the service: another user reads it once it is shared with the organisation', async () => {
      const e = await caught(() => getFeature({ url: `${svc.url}/0`, id: svc.sites[0], authentication: readerAuth }));
      expect(e.message).toContain('Service does not exist or is inaccessible.');
      const s = await newService();
      await setItemAccess({ id: s.itemId, access: 'org', owner: t.users.owner.username, authentication: auth });
      const feature = await getFeature({ url: `${s.url}/0`, id: s.sites[0], authentication: readerAuth });
      expect(feature.attributes.Name).toBe('a');
    });
  });

  describe('getServiceAdminInfo', () => {
    it('answers the service with its layers and tables in full and adminServiceInfo', async () => {
      const info: any = await getServiceAdminInfo(svc.url, auth);
      expect(info.adminServiceInfo).toMatchObject({ name: svc.name, type: 'FeatureServer', status: 'Started' });
      expect(info.serviceItemId).toBe(svc.itemId);
      expect(info.layers.map((l: any) => [l.id, l.name, l.type])).toEqual([[0, 'Sites', 'Feature Layer']]);
      expect(info.tables.map((l: any) => [l.id, l.name, l.type])).toEqual([[1, 'Inspections', 'Table']]);
      expect(info.layers[0].fields.map((f: any) => f.name)).toEqual(['OBJECTID', 'Name', 'Kind']);
      expect(info.tables[0].relationships).toEqual([INSPECTION_SIDE]);
    });

    it('is refused to a user who may read the service but not change it', async () => {
      const s = await newService();
      await setItemAccess({ id: s.itemId, access: 'org', owner: t.users.owner.username, authentication: auth });
      const e = await caught(() => getServiceAdminInfo(s.url, readerAuth));
      expect(e).toMatchObject({ code: 'GWM_0003', response: { error: { code: 403 } } });
    });
  });

  describe('updateServiceDefinition', () => {
    it('changes the service capabilities and maxRecordCount, which queries then follow', async () => {
      const s = await newService();
      const r = await updateServiceDefinition(s.url, {
        updateDefinition: { capabilities: 'Query', maxRecordCount: 2, serviceDescription: 'Sites of interest' } as any,
        authentication: auth,
      });
      expect(r).toEqual({ success: true });
      const service: any = await getService({ url: s.url, authentication: auth });
      expect(service).toMatchObject({ capabilities: 'Query', maxRecordCount: 2, serviceDescription: 'Sites of interest' });
      const page: any = await queryFeatures({ url: `${s.url}/0`, where: '1=1', authentication: auth });
      expect(page.features).toHaveLength(2);
      expect(page.exceededTransferLimit).toBe(true);
      const e = await caught(() =>
        addFeatures({ url: `${s.url}/0`, features: [{ attributes: { Name: 'd' }, geometry: { x: 5, y: 5 } }], authentication: auth }),
      );
      expect(e.message).toContain('does not allow');
    });

    it('renames a layer, describes it and gives a field an alias and a coded-value domain', async () => {
      const s = await newService();
      const domain = {
        type: 'codedValue',
        name: 'Kinds',
        codedValues: [
          { name: 'Well', code: 0 },
          { name: 'Spring', code: 1 },
        ],
      };
      const r = await updateServiceDefinition(`${s.url}/0`, {
        updateDefinition: { name: 'Places', description: 'Where we go', fields: [{ name: 'kind', alias: 'Kind of place', domain }] } as any,
        authentication: auth,
      });
      expect(r).toEqual({ success: true });
      const layer: any = await getLayer({ url: `${s.url}/0`, authentication: auth });
      expect(layer).toMatchObject({ name: 'Places', description: 'Where we go' });
      expect(layer.fields.find((f: any) => f.name === 'Kind')).toMatchObject({ alias: 'Kind of place', domain });
      expect((await getService({ url: s.url, authentication: auth })).layers[0].name).toBe('Places');
    });

    it('adds a field to a layer and deletes it again, keeping the features', async () => {
      const s = await newService();
      const added = await addToServiceDefinition(`${s.url}/0`, {
        params: { addToDefinition: { fields: [{ name: 'Depth', type: 'esriFieldTypeDouble', alias: 'Depth', nullable: true }] } },
        authentication: auth,
      } as any);
      expect(added.success).toBe(true);
      const feature = await getFeature({ url: `${s.url}/0`, id: s.sites[0], authentication: auth });
      expect(feature.attributes).toEqual({ OBJECTID: s.sites[0], Name: 'a', Kind: 0, Depth: null });
      const admin = s.url.replace('/rest/services/', '/rest/admin/services/');
      const dropped = await post(
        `${admin}/0`,
        'deleteFromDefinition',
        { deleteFromDefinition: JSON.stringify({ fields: [{ name: 'Depth' }] }) },
        t.users.owner.token,
      );
      expect(dropped.body).toEqual({ success: true });
      expect((await getFeature({ url: `${s.url}/0`, id: s.sites[0], authentication: auth })).attributes).toEqual({
        OBJECTID: s.sites[0],
        Name: 'a',
        Kind: 0,
      });
    });

    it("refuses to drop the object id or a relationship's key field, and changes nothing", async () => {
      const admin = svc.url.replace('/rest/services/', '/rest/admin/services/');
      for (const [layer, field, detail] of [
        [0, 'OBJECTID', 'object id field'],
        [1, 'SiteId', 'key of a relationship'],
        [0, 'Shape', 'geometry'],
      ] as const) {
        const r = await post(
          `${admin}/${layer}`,
          'deleteFromDefinition',
          { deleteFromDefinition: JSON.stringify({ fields: [{ name: field }] }) },
          t.users.owner.token,
        );
        expect(r.body.error).toMatchObject({ code: 400, details: [expect.stringContaining(detail)] });
      }
      const table: any = await getLayer({ url: `${svc.url}/1`, authentication: auth });
      expect(table.fields.map((f: any) => f.name)).toEqual(['OBJECTID', 'SiteId', 'Note']);
    });

    it('is refused to a user who may read the service but not change it, and changes nothing', async () => {
      const s = await newService();
      await setItemAccess({ id: s.itemId, access: 'org', owner: t.users.owner.username, authentication: auth });
      for (const url of [s.url, `${s.url}/0`]) {
        const e = await caught(() =>
          updateServiceDefinition(url, { updateDefinition: { name: 'Taken', capabilities: 'Query' } as any, authentication: readerAuth }),
        );
        expect(e).toMatchObject({ code: 'GWM_0003', response: { error: { code: 403 } } });
      }
      const service: any = await getService({ url: s.url, authentication: readerAuth });
      expect(service.capabilities).toBe('Create,Delete,Query,Update,Editing');
      expect(service.layers[0].name).toBe('Sites');
    });
  });

  describe('related tables', () => {
    it('lists the table and both sides of the relationship (getAllLayersAndTables, getService)', async () => {
      const all: any = await getAllLayersAndTables({ url: svc.url, authentication: auth });
      expect(all.layers.map((l: any) => l.relationships)).toEqual([[SITE_SIDE]]);
      expect(all.tables.map((l: any) => [l.name, l.relationships])).toEqual([['Inspections', [INSPECTION_SIDE]]]);
      expect(all.layers[0].advancedQueryCapabilities).toMatchObject({
        supportsQueryRelatedPagination: true,
        supportsAdvancedQueryRelated: true,
      });
      const service: any = await getService({ url: svc.url, authentication: auth });
      expect(service.tables).toEqual([expect.objectContaining({ id: 1, name: 'Inspections', type: 'Table' })]);
      expect(service.relationships).toEqual([
        expect.objectContaining({
          id: 0,
          originLayerId: 0,
          destinationLayerId: 1,
          originPrimaryKey: 'OBJECTID',
          originForeignKey: 'SiteId',
        }),
      ]);
    });

    it('queryRelated answers the related records grouped by object id', async () => {
      const r = await queryRelated({
        url: `${svc.url}/0`,
        relationshipId: 0,
        objectIds: svc.sites,
        outFields: ['Note'],
        authentication: auth,
      });
      expect(r.fields!.map((f) => f.name)).toEqual(['Note']);
      expect(r.relatedRecordGroups).toEqual([
        { objectId: svc.sites[0], relatedRecords: [{ attributes: { Note: 'a1' } }, { attributes: { Note: 'a2' } }] },
        { objectId: svc.sites[1], relatedRecords: [{ attributes: { Note: 'b1' } }] },
      ]);
    });

    it('queryRelated takes definitionExpression, orderByFields, paging and returnCountOnly', async () => {
      const base = { url: `${svc.url}/0`, relationshipId: 0, objectIds: svc.sites, outFields: ['Note'] as string[], authentication: auth };
      const filtered = await queryRelated({ ...base, definitionExpression: "Note LIKE '%2'" });
      expect(filtered.relatedRecordGroups).toEqual([{ objectId: svc.sites[0], relatedRecords: [{ attributes: { Note: 'a2' } }] }]);
      const page: any = await queryRelated({ ...base, params: { orderByFields: 'Note DESC', resultOffset: 1, resultRecordCount: 1 } });
      expect(page.relatedRecordGroups).toEqual([{ objectId: svc.sites[0], relatedRecords: [{ attributes: { Note: 'a1' } }] }]);
      expect(page.exceededTransferLimit).toBe(true);
      const counts = await queryRelated({ ...base, params: { returnCountOnly: true } });
      expect(counts.relatedRecordGroups).toEqual([
        { objectId: svc.sites[0], count: 2 },
        { objectId: svc.sites[1], count: 1 },
      ]);
    });

    it('queryRelated from the table back to the layer returns the geometry', async () => {
      const r = await queryRelated({ url: `${svc.url}/1`, relationshipId: 0, objectIds: [3], outFields: ['Name'], authentication: auth });
      expect(r).toMatchObject({ geometryType: 'esriGeometryPoint', spatialReference: { wkid: 4326 } });
      expect(r.relatedRecordGroups).toEqual([{ objectId: 3, relatedRecords: [{ attributes: { Name: 'b' }, geometry: { x: 1, y: 1 } }] }]);
    });

    it('queryRelated refuses an unknown relationship and follows the service access', async () => {
      const e = await caught(() => queryRelated({ url: `${svc.url}/0`, relationshipId: 7, authentication: auth }));
      expect(e.response.error).toMatchObject({ code: 400, details: ['Layer 0 has no relationship 7.'] });
      const denied = await caught(() => queryRelated({ url: `${svc.url}/0`, relationshipId: 0, authentication: readerAuth }));
      expect(denied.message).toContain('Service does not exist or is inaccessible.');
    });

    it('builds a relationship from two layer addToDefinitions, one side each, and lists it once both are there', async () => {
      const s = await newService();
      const admin = s.url.replace('/rest/services/', '/rest/admin/services/');
      const sides = [
        [0, { ...SITE_SIDE, id: 5, name: 'Checks' }],
        [1, { ...INSPECTION_SIDE, id: 5, name: 'Places' }],
      ] as const;
      const first = await addToServiceDefinition(`${s.url}/${sides[0][0]}`, {
        params: { addToDefinition: { relationships: [sides[0][1]] } },
        authentication: auth,
      } as any);
      expect(first.success).toBe(true);
      // One side alone does not work yet, so the layer does not list it.
      expect((await getLayer({ url: `${s.url}/0`, authentication: auth })).relationships).toEqual([SITE_SIDE]);
      await addToServiceDefinition(`${s.url}/1`, {
        params: { addToDefinition: { relationships: [sides[1][1]] } },
        authentication: auth,
      } as any);
      expect((await getLayer({ url: `${s.url}/0`, authentication: auth })).relationships).toEqual([SITE_SIDE, sides[0][1]]);
      const counts = await queryRelated({
        url: `${s.url}/0`,
        relationshipId: 5,
        objectIds: s.sites,
        params: { returnCountOnly: true },
        authentication: auth,
      });
      expect(counts.relatedRecordGroups).toEqual([
        { objectId: s.sites[0], count: 2 },
        { objectId: s.sites[1], count: 1 },
      ]);
      // Deleting the table takes the layer's side of its relationships with it.
      const gone = await post(
        admin,
        'deleteFromDefinition',
        { deleteFromDefinition: JSON.stringify({ tables: [{ id: 1 }] }) },
        t.users.owner.token,
      );
      expect(gone.body).toEqual({ success: true });
      const layer: any = await getLayer({ url: `${s.url}/0`, authentication: auth });
      expect(layer.relationships).toEqual([]);
    });

    it('deletes the related records with their feature when the relationship is composite, and only then', async () => {
      const s = await newService();
      const composite = [
        [0, { ...SITE_SIDE, id: 3, composite: true }],
        [1, { ...INSPECTION_SIDE, id: 3, composite: true }],
      ] as const;
      for (const [layer, side] of composite)
        await addToServiceDefinition(`${s.url}/${layer}`, {
          params: { addToDefinition: { relationships: [side] } },
          authentication: auth,
        } as any);
      const notes = async () =>
        ((await queryFeatures({ url: `${s.url}/1`, where: '1=1', outFields: ['Note'], authentication: auth })) as any).features.map(
          (f: any) => f.attributes.Note,
        );
      await deleteFeatures({ url: `${s.url}/0`, objectIds: [s.sites[0]], authentication: auth });
      expect(await notes()).toEqual(['b1', 'orphan']);
      // Without a composite relationship, the records stay.
      const admin = s.url.replace('/rest/services/', '/rest/admin/services/');
      const removed = await post(
        `${admin}/0`,
        'deleteFromDefinition',
        { deleteFromDefinition: JSON.stringify({ relationships: [{ id: 3 }] }) },
        t.users.owner.token,
      );
      expect(removed.body).toEqual({ success: true });
      await deleteFeatures({ url: `${s.url}/0`, objectIds: [s.sites[1]], authentication: auth });
      expect(await notes()).toEqual(['b1', 'orphan']);
    });

    it('refuses relationships that cannot work, naming why', async () => {
      const s = await newService();
      const admin = s.url.replace('/rest/services/', '/rest/admin/services/');
      const cases: [number, object, string][] = [
        [0, { ...SITE_SIDE, id: 9, relatedTableId: 42 }, 'no layer or table 42'],
        [0, { ...SITE_SIDE, id: 9, keyField: 'Nope' }, "'keyField' must name a field"],
        [0, { ...SITE_SIDE, id: 9, cardinality: 'esriRelCardinalityManyToMany' }, 'many-to-many'],
        [1, { ...INSPECTION_SIDE, id: 0, role: 'esriRelRoleDestination', keyField: 'Note' }, 'exists already'],
      ];
      for (const [layer, side, detail] of cases) {
        const r = await post(
          `${admin}/${layer}`,
          'addToDefinition',
          { addToDefinition: JSON.stringify({ relationships: [side] }) },
          t.users.owner.token,
        );
        expect({ side, error: r.body.error }).toMatchObject({ side, error: { code: 400, details: [expect.stringContaining(detail)] } });
      }
      expect((await getLayer({ url: `${s.url}/1`, authentication: auth })).relationships).toEqual([INSPECTION_SIDE]);
    });
  });

  describe('exports', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'admin-export-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** exportItem, then getItemStatus until completed, then the file: the layers GDAL finds in it, with their row counts. */
    async function exported(exportFormat: string, exportParameters: object): Promise<Record<string, number>> {
      const r = await exportItem({ id: svc.itemId, exportFormat: exportFormat as any, exportParameters, authentication: auth });
      for (let until = Date.now() + 60_000; ;) {
        const st = await getItemStatus({ id: r.exportItemId, jobId: r.jobId, jobType: 'export', authentication: auth });
        if (st.status === 'completed') break;
        if (Date.now() > until) throw new Error(`export still ${st.status}`);
        await new Promise((res) => setTimeout(res, 200));
      }
      const item = await getItem(r.exportItemId, { authentication: auth });
      const blob: Blob = await getItemData(r.exportItemId, { file: true, authentication: auth });
      const file = path.join(dir, `${r.exportItemId}-${item.name}`);
      writeFileSync(file, Buffer.from(await blob.arrayBuffer()));
      const paths = file.endsWith('.zip') ? gdal.fs.readDir(`/vsizip/${file}`).map((e) => `/vsizip/${file}/${e}`) : [file];
      const out: Record<string, number> = {};
      for (const p of paths)
        gdal.open(p).layers.forEach((l) => {
          out[l.name] = l.features.count();
        });
      return out;
    }

    it('a layer exported alone brings its related table along, whole (GeoPackage, CSV)', async () => {
      // With the relationship's mapping table (the Related Tables Extension's): the exported site and its inspections.
      expect(await exported('GeoPackage', { layers: [{ id: 0, where: "Name = 'a'" }] })).toEqual({
        Sites: 1,
        Inspections: 4,
        Sites_Inspections: 2,
      });
      const csv = await exported('CSV', { layers: [{ id: 0 }] });
      expect(Object.values(csv).sort()).toEqual([3, 4]);
    });
  });
});
