import { createHostedService, post, read } from '../support/client';
import { withApp } from '../support/harness';

/**
 * Attachments an attacker would try: a file that says it is a page or a script, ids of attachments of another
 * service or feature reached through a URL the attacker may read, and another user's private layer.
 */
describe('feature attachments: what the service refuses', () => {
  const t = withApp({ users: { victim: 'org_publisher', attacker: 'org_publisher' } });
  const { victim, attacker } = t.users;
  const FIELDS = [{ name: 'GlobalID', type: 'esriFieldTypeGlobalID' }];
  let victimLayer: string;
  let attackerLayer: string;
  let victimOid: number;
  let attackerOid: number;

  async function layerWithFeature(owner: { username: string; token: string }) {
    const s = await createHostedService(t.base, owner, [
      { id: 0, name: 'L', geometryType: 'esriGeometryPoint', hasAttachments: true, fields: FIELDS },
    ]);
    const layer = `${s.serviceurl}/0`;
    const r = await post(layer, 'addFeatures', { features: '[{"attributes":{},"geometry":{"x":1,"y":1}}]' }, owner.token);
    return { layer, oid: r.body.addResults[0].objectId as number };
  }

  async function attach(layer: string, oid: number, token: string, name: string, body: string, type = 'text/html') {
    const form = new FormData();
    form.set('f', 'json');
    form.set('token', token);
    form.set('attachment', new Blob([body], { type }), name);
    return read(await fetch(`${layer}/${oid}/addAttachment`, { method: 'POST', body: form }));
  }

  beforeAll(async () => {
    ({ layer: victimLayer, oid: victimOid } = await layerWithFeature(victim));
    ({ layer: attackerLayer, oid: attackerOid } = await layerWithFeature(attacker));
  });

  it.each([
    ['page.html', '<script>alert(1)</script>', 'application/octet-stream'],
    ['image.svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', 'application/octet-stream'],
    ['script.js', 'alert(1)', 'application/octet-stream'],
    ['fake.png', '<html><script>alert(1)</script></html>', 'image/png'],
  ])('serves %s with our type for its extension, nosniff and a sandbox, whatever the upload said', async (name, body, type) => {
    const id = (await attach(attackerLayer, attackerOid, attacker.token, name, body)).body.addAttachmentResult.objectId;
    const listed = await fetch(`${attackerLayer}/${attackerOid}/attachments?f=json&token=${attacker.token}`);
    expect((await read(listed)).body.attachmentInfos.find((i: { id: number }) => i.id === id).contentType).toBe(type);
    for (const headers of [{}, { Range: 'bytes=0-3' }]) {
      const res = await fetch(`${attackerLayer}/${attackerOid}/attachments/${id}?token=${attacker.token}`, { headers });
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain('sandbox');
      if (type !== 'image/png') expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
      await res.arrayBuffer();
    }
  });

  it("never reads, lists, replaces or deletes another user's private attachments", async () => {
    const id = (await attach(victimLayer, victimOid, victim.token, 'secret.txt', 'the secret')).body.addAttachmentResult.objectId;
    const svcError = 'Service does not exist or is inaccessible.';
    const asAttacker = async (path: string, params: Record<string, string> = {}) =>
      (await post(victimLayer, path, params, attacker.token)).body.error?.message;
    expect(await asAttacker(`${victimOid}/attachments`)).toBe(svcError);
    expect(await asAttacker(`${victimOid}/attachments/${id}`)).toBe(svcError);
    expect(await asAttacker('queryAttachments', { objectIds: String(victimOid) })).toBe(svcError);
    expect(await asAttacker(`${victimOid}/deleteAttachments`, { attachmentIds: String(id) })).toBe(svcError);
    expect((await attach(victimLayer, victimOid, attacker.token, 'x.txt', 'x')).body.error.message).toBe(svcError);
    const anonymous = await fetch(`${victimLayer}/${victimOid}/attachments/${id}`);
    expect((await read(anonymous)).body.error.code).toBe(499);
    // Still there, unchanged.
    const mine = await fetch(`${victimLayer}/${victimOid}/attachments/${id}?token=${victim.token}`);
    expect(await mine.text()).toBe('the secret');
  });

  it("does not serve another service's attachment id through a layer the attacker may read", async () => {
    const id = (await attach(victimLayer, victimOid, victim.token, 'secret.txt', 'the secret')).body.addAttachmentResult.objectId;
    for (const oid of [attackerOid, victimOid]) {
      const res = await fetch(`${attackerLayer}/${oid}/attachments/${id}?token=${attacker.token}`);
      expect((await read(res)).body.error.message).toBe('Attachment does not exist or is inaccessible.');
    }
    const q = await post(attackerLayer, 'queryAttachments', { definitionExpression: '1=1' }, attacker.token);
    expect(q.body.attachmentGroups.flatMap((g: { attachmentInfos: { id: number }[] }) => g.attachmentInfos.map((i) => i.id))).not.toContain(
      id,
    );
    const del = await post(attackerLayer, `${victimOid}/deleteAttachments`, { attachmentIds: String(id) }, attacker.token);
    expect(del.body.deleteAttachmentResults[0].success).toBe(false);
    const upd = await post(
      attackerLayer,
      'applyEdits',
      {
        useGlobalIds: 'true',
        rollbackOnFailure: 'false',
        attachments: JSON.stringify({ deletes: [await globalIdOf(victimLayer, victimOid, id)] }),
      },
      attacker.token,
    );
    expect(upd.body.attachments.deleteResults[0].success).toBe(false);
    expect(await (await fetch(`${victimLayer}/${victimOid}/attachments/${id}?token=${victim.token}`)).text()).toBe('the secret');
  });

  async function globalIdOf(layer: string, oid: number, id: number): Promise<string> {
    const r = (await read(await fetch(`${layer}/${oid}/attachments?f=json&token=${victim.token}`))).body;
    return r.attachmentInfos.find((i: { id: number }) => i.id === id).globalId;
  }

  it('names the stored object itself: a file name cannot climb out of the service folder', async () => {
    const r = await attach(attackerLayer, attackerOid, attacker.token, '../../../../etc/passwd', 'x');
    const id = r.body.addAttachmentResult.objectId;
    const [row] = await t.db.query(`SELECT name, storage_key FROM feature_attachments WHERE id = $1`, [id]);
    expect(row.storage_key).toMatch(/^items\/[0-9a-f]{32}\/\.attachments\/[0-9a-f-]{36}-[^/]+$/);
    expect(row.name).not.toContain('/');
  });
});
