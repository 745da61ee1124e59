/** Bad input on the feature attachment routes, against a service of the fixture's owner with one attachment. */
import { createHostedService, post, read, uniq } from '../../support/client';
import { caseTable, fx, routeTables, t, useFixture } from './support';
import { ATTACHMENT_CASES, ATTACHMENT_ROUTES, attachmentFx } from './tables';

describe('bad input: feature attachments', () => {
  useFixture();
  beforeAll(async () => {
    const fields = [
      { name: 'GlobalID', type: 'esriFieldTypeGlobalID' },
      { name: 'Kind', type: 'esriFieldTypeString' },
    ];
    const name = uniq('badatt');
    const s = await createHostedService(
      t.base,
      fx.owner,
      [
        { id: 0, name: 'Sites', geometryType: 'esriGeometryPoint', hasAttachments: true, fields },
        { id: 1, name: 'Plain', geometryType: 'esriGeometryPoint', fields },
      ],
      name,
    );
    const shared = await post(t.base, `content/users/${fx.owner.username}/items/${s.itemId}/share`, { org: 'true' }, fx.owner.token);
    if (shared.body?.error) throw new Error(shared.text);
    const added = await post(`${s.serviceurl}/0`, 'addFeatures', { features: '[{"attributes":{}},{"attributes":{}}]' }, fx.owner.token);
    attachmentFx.service = name;
    attachmentFx.oid = String(added.body.addResults[0].objectId);
    const form = new FormData();
    form.set('f', 'json');
    form.set('token', fx.owner.token);
    form.set('attachment', new Blob(['hello']), 'hello.txt');
    const r = (await read(await fetch(`${s.serviceurl}/0/${attachmentFx.oid}/addAttachment`, { method: 'POST', body: form }))).body;
    if (!r.addAttachmentResult?.success) throw new Error(JSON.stringify(r));
    attachmentFx.attachmentId = String(r.addAttachmentResult.objectId);
  });
  routeTables(ATTACHMENT_ROUTES);
  describe('missing and malformed parameters', () => caseTable(ATTACHMENT_CASES));
});
