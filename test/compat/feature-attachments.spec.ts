/**
 * Attachments through the real client: @esri/arcgis-rest-feature-service's addAttachment, getAttachments,
 * updateAttachment, deleteAttachments and applyEdits (attachments by global id, base64 data), signed in through the
 * federated token flow, against a layer whose definition enabled attachments. The bytes are read back over HTTP.
 */
import { ArcGISIdentityManager } from '@esri/arcgis-rest-request';
import {
  addAttachment,
  addFeatures,
  addToServiceDefinition,
  applyEdits,
  createFeatureService,
  deleteAttachments,
  deleteFeatures,
  getAttachments,
  getLayer,
  ILayerDefinition,
  updateAttachment,
} from '@esri/arcgis-rest-feature-service';
import { randomBytes, randomUUID } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { adminToken, createUser, read, uniq } from '../support/client';

const SITES = {
  name: 'Sites',
  type: 'Feature Layer',
  geometryType: 'esriGeometryPoint',
  hasAttachments: true,
  fields: [
    { name: 'OBJECTID', type: 'esriFieldTypeOID', alias: 'OBJECTID', nullable: false, editable: false },
    { name: 'GlobalID', type: 'esriFieldTypeGlobalID', alias: 'GlobalID', nullable: false, editable: false },
    { name: 'Name', type: 'esriFieldTypeString', alias: 'Name', length: 64, nullable: true, editable: true },
  ],
} as unknown as ILayerDefinition;

describe('@esri/arcgis-rest-feature-service attachments', () => {
  let t: TestApp;
  let auth: ArcGISIdentityManager;
  let layer: string;
  let oid: number;
  /** A token of the publisher's own for plain HTTP reads (the client's server token is bound to the client's requests). */
  let token: string;

  beforeAll(async () => {
    t = await startApp();
    const publisher = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    token = publisher.token;
    auth = await ArcGISIdentityManager.signIn({ username: publisher.username, password: publisher.password, portal: t.base });
    const created = await createFeatureService({
      item: { name: uniq('att'), capabilities: 'Create,Delete,Query,Update,Editing', spatialReference: { wkid: 4326 } },
      authentication: auth,
    });
    await addToServiceDefinition(created.serviceurl, { layers: [SITES], authentication: auth });
    layer = `${created.serviceurl}/0`;
    oid = await newFeature('Mill');
  });
  afterAll(() => t?.close());

  /** A feature added through the client; its object id. */
  async function newFeature(name: string): Promise<number> {
    const added = await addFeatures({
      url: layer,
      features: [{ attributes: { Name: name }, geometry: { x: 10, y: 50, spatialReference: { wkid: 4326 } } as never }],
      authentication: auth,
    });
    return added.addResults[0].objectId;
  }

  /** The attachment's bytes as the service sends them, read with the publisher's own token. */
  async function download(id: number, featureId = oid) {
    const res = await fetch(`${layer}/${featureId}/attachments/${id}?token=${token}`);
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  it('getLayer advertises attachments for a layer that enabled them', async () => {
    const l = (await getLayer({ url: layer, authentication: auth })) as unknown as Record<string, unknown>;
    expect(l.hasAttachments).toBe(true);
    expect(l.supportsQueryAttachments).toBe(true);
    expect((l.advancedQueryCapabilities as Record<string, unknown>).supportsQueryAttachments).toBe(true);
  });

  it('the layer and its service advertise applyEdits with global ids, which the layer has', async () => {
    const l = (await getLayer({ url: layer, authentication: auth })) as unknown as Record<string, unknown>;
    expect(l).toMatchObject({ globalIdField: 'GlobalID', supportsApplyEditsWithGlobalIds: true });
    const service = (await read(await fetch(`${layer.replace(/\/0$/, '')}?f=json&token=${token}`))).body;
    expect(service.supportsApplyEditsWithGlobalIds).toBe(true);
  });

  it('addAttachment, getAttachments, updateAttachment and deleteAttachments change what the feature holds', async () => {
    const photo = randomBytes(70_000);
    const added = await addAttachment({
      url: layer,
      featureId: oid,
      attachment: new File([photo], 'photo.jpg', { type: 'text/html' }),
      authentication: auth,
    });
    expect(added.addAttachmentResult.success).toBe(true);
    const id = added.addAttachmentResult.objectId;
    expect(added.addAttachmentResult.globalId).toMatch(/^\{[0-9A-F-]{36}\}$/);

    const listed = await getAttachments({ url: layer, featureId: oid, authentication: auth });
    expect(listed.attachmentInfos).toEqual([
      expect.objectContaining({ id, name: 'photo.jpg', contentType: 'image/jpeg', size: photo.length }),
    ]);
    const first = await download(id);
    expect(first.res.headers.get('content-type')).toBe('image/jpeg');
    expect(first.bytes.equals(photo)).toBe(true);

    const report = Buffer.from('%PDF-1.4 not really');
    const updated = await updateAttachment({
      url: layer,
      featureId: oid,
      attachmentId: id,
      attachment: new File([report], 'report.pdf'),
      authentication: auth,
    });
    expect(updated.updateAttachmentResult).toEqual(expect.objectContaining({ objectId: id, success: true }));
    const after = await getAttachments({ url: layer, featureId: oid, authentication: auth });
    expect(after.attachmentInfos).toEqual([
      expect.objectContaining({ id, name: 'report.pdf', contentType: 'application/pdf', size: report.length }),
    ]);
    expect((await download(id)).bytes.equals(report)).toBe(true);

    const deleted = await deleteAttachments({ url: layer, featureId: oid, attachmentIds: [id, id + 1000], authentication: auth });
    expect(deleted.deleteAttachmentResults).toEqual([
      expect.objectContaining({ objectId: id, success: true }),
      expect.objectContaining({ objectId: id + 1000, success: false }),
    ]);
    expect((await getAttachments({ url: layer, featureId: oid, authentication: auth })).attachmentInfos).toEqual([]);
  });

  it('applyEdits adds, updates and deletes attachments by global id with base64 data', async () => {
    const featureId = await newFeature('Well');
    const q = (await read(await fetch(`${layer}/query?f=json&objectIds=${featureId}&outFields=GlobalID&token=${token}`))).body;
    const parentGlobalId = q.features[0].attributes.GlobalID as string;

    const bytes = randomBytes(3000);
    const attachmentGlobalId = `{${randomUUID().toUpperCase()}}`;
    const r1 = await applyEdits({
      url: layer,
      useGlobalIds: true,
      attachments: {
        adds: [
          { globalId: attachmentGlobalId, parentGlobalId, contentType: 'image/png', name: 'plan.png', data: bytes.toString('base64') },
        ],
      },
      authentication: auth,
    });
    expect(r1.attachments?.addResults).toEqual([expect.objectContaining({ globalId: attachmentGlobalId, success: true })]);
    const id = r1.attachments!.addResults![0].objectId;
    expect((await download(id, featureId)).bytes.equals(bytes)).toBe(true);

    const next = Buffer.from('second version');
    const r2 = await applyEdits({
      url: layer,
      useGlobalIds: true,
      attachments: {
        updates: [{ globalId: attachmentGlobalId, contentType: 'text/plain', name: 'plan.txt', data: next.toString('base64') }],
      },
      authentication: auth,
    });
    expect(r2.attachments?.updateResults).toEqual([expect.objectContaining({ objectId: id, success: true })]);
    const got = await download(id, featureId);
    expect(got.res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(got.bytes.equals(next)).toBe(true);

    const r3 = await applyEdits({ url: layer, useGlobalIds: true, attachments: { deletes: [attachmentGlobalId] }, authentication: auth });
    expect(r3.attachments?.deleteResults).toEqual([expect.objectContaining({ globalId: attachmentGlobalId, success: true })]);
    expect((await getAttachments({ url: layer, featureId, authentication: auth })).attachmentInfos).toEqual([]);
  });

  it('applyEdits with useGlobalIds adds a feature and its attachment together, then updates and deletes the feature by global id', async () => {
    const featureGlobalId = `{${randomUUID().toUpperCase()}}`;
    const attachmentGlobalId = `{${randomUUID().toUpperCase()}}`;
    const bytes = randomBytes(500);
    const added = await applyEdits({
      url: layer,
      useGlobalIds: true,
      adds: [
        { attributes: { GlobalID: featureGlobalId, Name: 'Barn' }, geometry: { x: 3, y: 4, spatialReference: { wkid: 4326 } } as never },
      ],
      attachments: {
        adds: [
          {
            globalId: attachmentGlobalId,
            parentGlobalId: featureGlobalId,
            contentType: 'image/jpeg',
            name: 'barn.jpg',
            data: bytes.toString('base64'),
          },
        ],
      },
      authentication: auth,
    });
    expect(added.addResults).toEqual([expect.objectContaining({ globalId: featureGlobalId, success: true })]);
    expect(added.attachments?.addResults).toEqual([expect.objectContaining({ globalId: attachmentGlobalId, success: true })]);
    const featureId = added.addResults[0].objectId;
    expect((await download(added.attachments!.addResults![0].objectId, featureId)).bytes.equals(bytes)).toBe(true);

    const updated = await applyEdits({
      url: layer,
      useGlobalIds: true,
      updates: [{ attributes: { GlobalID: featureGlobalId, Name: 'Old barn' } }],
      authentication: auth,
    });
    expect(updated.updateResults).toEqual([expect.objectContaining({ objectId: featureId, success: true })]);
    const q = (await read(await fetch(`${layer}/query?f=json&objectIds=${featureId}&outFields=Name&token=${token}`))).body;
    expect(q.features[0].attributes.Name).toBe('Old barn');

    const deleted = await applyEdits({ url: layer, useGlobalIds: true, deletes: [featureGlobalId], authentication: auth });
    expect(deleted.deleteResults).toEqual([expect.objectContaining({ objectId: featureId, success: true })]);
    expect((await getAttachments({ url: layer, featureId, authentication: auth })).attachmentInfos).toEqual([]);
  });

  it("deleteFeatures removes the feature's attachments with it", async () => {
    const featureId = await newFeature('Gone');
    const a = await addAttachment({ url: layer, featureId, attachment: new File(['x'], 'note.txt'), authentication: auth });
    const id = a.addAttachmentResult.objectId;
    await deleteFeatures({ url: layer, objectIds: [featureId], authentication: auth });
    const gone = await download(id, featureId);
    expect(JSON.parse(gone.bytes.toString()).error.message).toBe('Attachment does not exist or is inaccessible.');
  });
});
