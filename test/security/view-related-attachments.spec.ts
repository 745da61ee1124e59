import { get, post, read } from '../support/client';
import { withApp } from '../support/harness';
import { viewRelatedFixture, ViewRelatedFixture } from '../support/view-related';

/**
 * Related records and attachments of a view follow the view, as its queries do: a reader of the view (the source
 * stays private) gets the related rows and attachments of the features the view shows, with the fields it shows,
 * and nothing of a place its filter leaves out, of a visit its filter leaves out, or of a hidden field, whichever
 * parameter names it. Hidden fields answer exactly as fields that do not exist.
 */
describe('related records and attachments through a view', () => {
  const t = withApp({ users: { owner: 'org_publisher', reader: 'org_user' } });
  const { owner, reader } = t.users;
  let f: ViewRelatedFixture;
  let places: string;
  let visits: string;

  beforeAll(async () => {
    f = await viewRelatedFixture(t.base, owner, 4, 'Query,Update,Delete,Editing');
    places = `${f.view.url}/0`;
    visits = `${f.view.url}/1`;
    await post(t.base, `content/users/${owner.username}/items/${f.view.itemId}/share`, { org: 'true' }, owner.token);
  }, 60_000);

  const related = (params: Record<string, string>, token = reader.token) =>
    get(places, 'queryRelatedRecords', { relationshipId: '0', outFields: '*', ...params }, token);

  /** The reply naming `hidden`, with the name swapped for a field that does not exist of the same length: identical. */
  async function answersAsMissing(
    ask: (field: string) => Promise<{ status: number; text: string; body: { error?: unknown } }>,
    hidden: string,
  ) {
    const missing = 'Q'.repeat(hidden.length);
    const [a, b] = [await ask(hidden), await ask(missing)];
    expect(a.body.error).toBeDefined();
    expect(a.status).toBe(b.status);
    expect(a.text).toBe(b.text.split(missing).join(hidden));
  }

  it('the view keeps the relationship and the attachments, and its reader cannot read the source', async () => {
    const layer = (await get(places, '', {}, reader.token)).body;
    expect(layer).toMatchObject({ hasAttachments: true, relationships: [{ id: 0, relatedTableId: 1, role: 'esriRelRoleOrigin' }] });
    expect((await get(visits, '', {}, reader.token)).body.relationships).toMatchObject([{ id: 0, relatedTableId: 0 }]);
    expect((await get(`${f.source.url}/0`, 'query', { where: '1=1' }, reader.token)).body.error).toMatchObject({ code: 400 });
  });

  it('queryRelatedRecords answers the shown visits of shown places, with the shown fields only', async () => {
    const all = [...f.publicOids, ...f.privateOids];
    const r = await related({ objectIds: all.join(',') });
    expect(r.body.fields.map((x: { name: string }) => x.name)).toEqual(['OBJECTID', 'PlaceId', 'Note']);
    expect(r.body.relatedRecordGroups).toEqual(
      f.publicOids.map((oid) => ({
        objectId: oid,
        relatedRecords: [{ attributes: { OBJECTID: expect.any(Number), PlaceId: oid, Note: `note-${oid}-1` } }],
      })),
    );
    expect(r.text).not.toMatch(/inspector-|Grade|-9"/);
    const counts = await related({ objectIds: all.join(','), returnCountOnly: 'true' });
    expect(counts.body.relatedRecordGroups).toEqual(f.publicOids.map((oid) => ({ objectId: oid, count: 1 })));
  });

  it.each(['Inspector', 'Grade'])(
    'queryRelatedRecords naming %s in outFields, definitionExpression or orderByFields answers as for no field',
    async (hidden) => {
      const ids = f.publicOids.join(',');
      await answersAsMissing((x) => related({ objectIds: ids, outFields: `Note,${x}` }), hidden);
      await answersAsMissing((x) => related({ objectIds: ids, definitionExpression: `${x} > 0` }), hidden);
      await answersAsMissing((x) => related({ objectIds: ids, orderByFields: `${x} DESC` }), hidden);
    },
  );

  it('lists, queries and serves the attachments of shown places, with their bytes', async () => {
    const oid = f.publicOids[0];
    const id = f.attachmentOf.get(oid)!;
    const listed = await get(places, `${oid}/attachments`, {}, reader.token);
    expect(listed.body.attachmentInfos).toEqual([expect.objectContaining({ id, name: `photo-${oid}.txt` })]);
    const res = await fetch(`${places}/${oid}/attachments/${id}?token=${reader.token}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(`file-${oid}`);
    const q = await get(places, 'queryAttachments', { definitionExpression: '1=1' }, reader.token);
    expect(q.body.attachmentGroups.map((g: { parentObjectId: number }) => g.parentObjectId)).toEqual(f.publicOids);
  });

  it('answers for the attachments of a place the view leaves out as for a place that does not exist', async () => {
    const oid = f.privateOids[0];
    const id = f.attachmentOf.get(oid)!;
    const none = 2_000_000_000;
    for (const [a, b] of [
      [`${oid}/attachments`, `${none}/attachments`],
      [`${oid}/attachments/${id}`, `${none}/attachments/${id}`],
    ]) {
      const [x, y] = [await get(places, a, {}, reader.token), await get(places, b, {}, reader.token)];
      expect(x.status).toBe(y.status);
      expect(x.text).toBe(y.text.split(String(none)).join(String(oid)));
    }
    expect((await get(places, `${oid}/attachments`, {}, reader.token)).body.attachmentInfos).toEqual([]);
    const gids = (
      await get(`${f.source.url}/0`, 'query', { objectIds: String(oid), outFields: 'GlobalID' }, owner.token)
    ).body.features.map((x: { attributes: { GlobalID: string } }) => x.attributes.GlobalID);
    const asks: Record<string, string>[] = [
      { objectIds: String(oid) },
      { globalIds: gids.join(',') },
      { definitionExpression: `OBJECTID = ${oid}` },
    ];
    for (const params of asks) expect((await get(places, 'queryAttachments', params, reader.token)).body.attachmentGroups).toEqual([]);
  });

  it.each(['Kind', 'Secret'])('queryAttachments naming %s in definitionExpression answers as for no field', async (hidden) => {
    await answersAsMissing((x) => get(places, 'queryAttachments', { definitionExpression: `${x} IS NOT NULL` }, reader.token), hidden);
  });

  it("the owner cannot replace or delete, through the view, an attachment of a place outside the view's filter", async () => {
    const oid = f.privateOids[0];
    const id = f.attachmentOf.get(oid)!;
    const form = new FormData();
    form.set('f', 'json');
    form.set('token', owner.token);
    form.set('attachmentId', String(id));
    form.set('attachment', new Blob(['replaced']), 'x.txt');
    const updated = await read(await fetch(`${places}/${oid}/updateAttachment`, { method: 'POST', body: form }));
    expect(updated.body.error).toBeDefined();
    const deleted = await post(places, `${oid}/deleteAttachments`, { attachmentIds: String(id) }, owner.token);
    expect(deleted.body.deleteAttachmentResults).toEqual([expect.objectContaining({ success: false })]);
    const res = await fetch(`${f.source.url}/0/${oid}/attachments/${id}?token=${owner.token}`);
    expect(await res.text()).toBe(`file-${oid}`);
  });

  it('deleting a place through the view removes its attachment, which the source then no longer lists', async () => {
    const oid = f.publicOids[f.publicOids.length - 1];
    const id = f.attachmentOf.get(oid)!;
    const r = await post(places, 'deleteFeatures', { objectIds: String(oid) }, owner.token);
    expect(r.body.deleteResults).toEqual([expect.objectContaining({ objectId: oid, success: true })]);
    const left = await t.db.query(`SELECT count(*)::int AS n FROM feature_attachments WHERE id = $1`, [id]);
    expect(left).toEqual([{ n: 0 }]);
  });
});
