import { randomBytes, randomUUID } from 'node:crypto';
import { FileStore } from '../../src/core/storage/file-store';
import { startApp, TestApp } from '../support/app';
import { adminToken, createHostedService, createUser, get, post, read } from '../support/client';
import { onS3 } from '../support/s3';

/**
 * Feature attachments over HTTP, on whichever backend the jest project chose: ranges, queryAttachments, applyEdits'
 * attachments, the limits, and the files' removal with their feature, layer and service.
 */
describe(`feature attachments (${onS3() ? 's3' : 'local'})`, () => {
  let t: TestApp;
  let files: FileStore;
  let owner: { username: string; token: string };
  let url: string;
  let itemId: string;

  const PER_LAYER = 30;
  const FIELDS = [
    { name: 'GlobalID', type: 'esriFieldTypeGlobalID' },
    { name: 'Kind', type: 'esriFieldTypeString', length: 20 },
  ];

  beforeAll(async () => {
    t = await startApp({
      ATTACHMENT_MAX_MB: '1',
      ATTACHMENTS_PER_FEATURE: '3',
      ATTACHMENTS_FEATURE_MAX_MB: '2',
      ATTACHMENTS_PER_LAYER: String(PER_LAYER),
    });
    files = t.app.get(FileStore);
    owner = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    const created = await createHostedService(t.base, owner, [
      { id: 0, name: 'Sites', geometryType: 'esriGeometryPoint', hasAttachments: true, fields: FIELDS },
      { id: 1, name: 'Plain', geometryType: 'esriGeometryPoint', fields: FIELDS },
    ]);
    url = created.serviceurl;
    itemId = created.itemId;
  }, 60_000);
  afterAll(() => t?.close());

  /** A new feature of the layer (a number: of this spec's service); its object id. */
  async function feature(kind: string, layer: number | string = 0): Promise<number> {
    const r = await post(
      typeof layer === 'number' ? `${url}/${layer}` : layer,
      'addFeatures',
      { features: JSON.stringify([{ attributes: { Kind: kind }, geometry: { x: 1, y: 2 } }]) },
      owner.token,
    );
    return r.body.addResults[0].objectId;
  }

  /** addAttachment, the upload claiming to be HTML; `layer` as for feature(). */
  async function attach(oid: number, name: string, bytes: Buffer | string, extra: Record<string, string> = {}, layer: number | string = 0) {
    const form = new FormData();
    for (const [k, v] of Object.entries({ f: 'json', token: owner.token, ...extra })) form.set(k, v);
    form.set('attachment', new Blob([bytes], { type: 'text/html' }), name);
    const at = typeof layer === 'number' ? `${url}/${layer}` : layer;
    return read(await fetch(`${at}/${oid}/addAttachment`, { method: 'POST', body: form }));
  }

  const keyOf = async (id: number): Promise<string> =>
    (await t.db.query(`SELECT storage_key FROM feature_attachments WHERE id = $1`, [id]))[0]?.storage_key;

  it('advertises attachments only on the layer whose definition enabled them', async () => {
    const on = (await get(url, '0', {}, owner.token)).body;
    const off = (await get(url, '1', {}, owner.token)).body;
    expect(on).toMatchObject({
      hasAttachments: true,
      supportsQueryAttachments: true,
      advancedQueryCapabilities: { supportsQueryAttachments: true },
    });
    expect(on.attachmentProperties).toEqual(expect.arrayContaining([{ name: 'keywords', isEnabled: true }]));
    expect(off.hasAttachments).toBe(false);
    expect(off).not.toHaveProperty('supportsQueryAttachments');
    expect(off).not.toHaveProperty('attachmentProperties');
    expect(off.advancedQueryCapabilities).not.toHaveProperty('supportsQueryAttachments');
    const oid = await feature('plain', 1);
    expect((await attach(oid, 'a.txt', 'x', {}, 1)).body.error.message).toBe('Requested operation is not supported by this service.');
  });

  it('answers HTTP ranges of an attachment, with its validators and our content type', async () => {
    const oid = await feature('range');
    const bytes = randomBytes(200_000);
    const id = (await attach(oid, 'scan.png', bytes)).body.addAttachmentResult.objectId;
    const at = `${url}/0/${oid}/attachments/${id}?token=${owner.token}`;
    const part = await fetch(at, { headers: { Range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(part.headers.get('content-type')).toBe('image/png');
    expect(part.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
    const past = await fetch(at, { headers: { Range: `bytes=${bytes.length + 10}-` } });
    expect(past.status).toBe(416);
    const whole = await fetch(at);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('queryAttachments filters by object ids, definition expression, keywords, size and type, grouped per feature', async () => {
    const a = await feature('quarry');
    const b = await feature('quarry');
    const c = await feature('lake');
    await attach(a, 'north.jpg', randomBytes(1000), { keywords: 'survey' });
    await attach(a, 'notes.pdf', randomBytes(5000), { keywords: 'report' });
    await attach(b, 'south.jpg', randomBytes(3000), { keywords: 'survey' });
    await attach(c, 'lake.jpg', randomBytes(1000), { keywords: 'survey' });

    const byWhere = (await get(url, '0/queryAttachments', { definitionExpression: "Kind = 'quarry'", returnUrl: true }, owner.token)).body;
    expect(byWhere.attachmentGroups.map((g: { parentObjectId: number }) => g.parentObjectId)).toEqual([a, b]);
    expect(byWhere.attachmentGroups[0].parentGlobalId).toMatch(/^\{[0-9A-F-]{36}\}$/);
    expect(byWhere.attachmentGroups[0].attachmentInfos.map((i: { name: string }) => i.name)).toEqual(['north.jpg', 'notes.pdf']);
    expect(byWhere.attachmentGroups[0].attachmentInfos[0].url).toMatch(new RegExp(`/FeatureServer/0/${a}/attachments/\\d+$`));

    const names = async (p: Record<string, string>) =>
      (await get(url, '0/queryAttachments', p, owner.token)).body.attachmentGroups.flatMap((g: { attachmentInfos: { name: string }[] }) =>
        g.attachmentInfos.map((i) => i.name),
      );
    expect(await names({ objectIds: `${a},${c}`, keywords: 'survey' })).toEqual(['north.jpg', 'lake.jpg']);
    expect(await names({ objectIds: `${a},${b},${c}`, size: '2000,10000' })).toEqual(['notes.pdf', 'south.jpg']);
    expect(await names({ objectIds: `${a},${b}`, attachmentTypes: 'application/pdf' })).toEqual(['notes.pdf']);
    expect(await names({ objectIds: `${a},${b}`, attachmentTypes: 'image' })).toEqual(['north.jpg', 'south.jpg']);
    expect((await get(url, '0/queryAttachments', {}, owner.token)).body.error.code).toBe(400);
    expect((await get(url, '0/queryAttachments', { definitionExpression: 'Nope = 1' }, owner.token)).body.error.code).toBe(400);
  });

  it('keeps to the size and count limits per file and per feature', async () => {
    const oid = await feature('limits');
    const big = await attach(oid, 'big.bin', randomBytes(1024 * 1024 + 1));
    expect(big.status).toBe(413);
    for (let i = 0; i < 3; i++) expect((await attach(oid, `n${i}.txt`, 'x')).body.addAttachmentResult.success).toBe(true);
    const fourth = await attach(oid, 'n3.txt', 'x');
    expect(fourth.body.error.details[0]).toMatch(/ATTACHMENTS_PER_FEATURE/);

    const other = await feature('bytes');
    await attach(other, 'a.bin', randomBytes(1000 * 1024));
    await attach(other, 'b.bin', randomBytes(1000 * 1024));
    expect((await attach(other, 'c.bin', randomBytes(100 * 1024))).body.error.details[0]).toMatch(/ATTACHMENTS_FEATURE_MAX_MB/);
  });

  /** applyEdits adding two attachments by global id: one to `parent`, one to a feature that does not exist. */
  const addTwo = (parent: string, rollbackOnFailure: string) =>
    post(
      `${url}/0`,
      'applyEdits',
      {
        useGlobalIds: 'true',
        rollbackOnFailure,
        attachments: JSON.stringify({
          adds: [
            { globalId: randomUUID(), parentGlobalId: parent, name: 'ok.txt', data: Buffer.from('fine').toString('base64') },
            { globalId: randomUUID(), parentGlobalId: randomUUID(), name: 'orphan.txt', data: Buffer.from('no parent').toString('base64') },
          ],
        }),
      },
      owner.token,
    );

  it('applyEdits with rollbackOnFailure writes no attachment when one fails, and removes the files it stored', async () => {
    const oid = await feature('rollback');
    const q = await get(url, '0/query', { objectIds: String(oid), outFields: 'GlobalID' }, owner.token);
    const parent = q.body.features[0].attributes.GlobalID;
    const before = await t.db.query(`SELECT count(*)::int AS n FROM feature_attachments`);
    const r = await addTwo(parent, 'true');
    expect(r.body.error.message).toBe('Unable to complete operation.');
    expect(await t.db.query(`SELECT count(*)::int AS n FROM feature_attachments`)).toEqual(before);

    const noGlobal = await post(`${url}/0`, 'applyEdits', { attachments: JSON.stringify({ deletes: [randomUUID()] }) }, owner.token);
    expect(noGlobal.body.error.details[0]).toMatch(/useGlobalIds=true/);

    const partial = await addTwo(parent, 'false');
    expect(partial.body.attachments.addResults.map((x: { success: boolean }) => x.success)).toEqual([true, false]);
  });

  it('keeps to the count limit per layer, whatever the features', async () => {
    const own = await createHostedService(t.base, owner, [
      { id: 0, name: 'Full', geometryType: 'esriGeometryPoint', hasAttachments: true, fields: FIELDS },
    ]);
    const layer = `${own.serviceurl}/0`;
    const add = async () => attach(await feature('fill', layer), 'fill.txt', 'x', {}, layer);
    for (let i = 0; i < PER_LAYER; i++) expect((await add()).body.addAttachmentResult.success).toBe(true);
    expect((await add()).body.error.details[0]).toMatch(/ATTACHMENTS_PER_LAYER/);
  });

  it('removes the files with their feature (applyEdits, deleteFeatures by where), their layer and their service', async () => {
    const a = await feature('doomed');
    const b = await feature('doomed-too');
    const ka = await keyOf((await attach(a, 'a.txt', 'aaa')).body.addAttachmentResult.objectId);
    const kb = await keyOf((await attach(b, 'b.txt', 'bbb')).body.addAttachmentResult.objectId);
    expect(await files.stat(ka)).not.toBeNull();

    expect((await post(`${url}/0`, 'applyEdits', { deletes: String(a) }, owner.token)).body.deleteResults[0].success).toBe(true);
    expect(await files.stat(ka)).toBeNull();
    expect((await post(`${url}/0`, 'deleteFeatures', { where: "Kind = 'doomed-too'" }, owner.token)).body.deleteResults).toHaveLength(1);
    expect(await files.stat(kb)).toBeNull();

    const c = await feature('kept');
    const kc = await keyOf((await attach(c, 'c.txt', 'ccc')).body.addAttachmentResult.objectId);
    const other = await createHostedService(t.base, owner, [
      { id: 0, name: 'More', geometryType: 'esriGeometryPoint', hasAttachments: true, fields: FIELDS },
      { id: 1, name: 'Dropped', geometryType: 'esriGeometryPoint', hasAttachments: true, fields: FIELDS },
    ]);
    const dropped = `${other.serviceurl}/1`;
    const kd = await keyOf(
      (await attach(await feature('dropped', dropped), 'd.txt', 'ddd', {}, dropped)).body.addAttachmentResult.objectId,
    );
    const admin = other.serviceurl.replace('/rest/services/', '/rest/admin/services/');
    expect((await post(admin, 'deleteFromDefinition', { deleteFromDefinition: '{"layers":[{"id":1}]}' }, owner.token)).body.success).toBe(
      true,
    );
    expect(await files.stat(kd)).toBeNull();

    expect((await post(t.base, `content/users/${owner.username}/items/${itemId}/delete`, {}, owner.token)).body.success).toBe(true);
    expect(await files.stat(kc)).toBeNull();
    expect(await t.db.query(`SELECT 1 FROM feature_attachments WHERE service_item_id = $1`, [itemId])).toEqual([]);
  });
});
