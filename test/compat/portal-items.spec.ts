/**
 * Compatibility suite for items beyond add and delete: @esri/arcgis-rest-portal 4.10.2's own helpers for updating an
 * item (properties, data, thumbnail), its info files and metadata, resources, relationships, delete protection and
 * the groups an item is in. Each call's reply is checked for the shape the client expects, and the state it changed
 * is read back through the library or SQL.
 */
import { ArcGISIdentityManager, ArcGISRequestError } from '@esri/arcgis-rest-request';
import {
  addItemData,
  addItemRelationship,
  addItemResource,
  createGroup,
  createItem,
  getGroup,
  getItem,
  getItemData,
  getItemGroups,
  getItemInfo,
  getItemMetadata,
  getItemResource,
  getItemResources,
  getItemStatus,
  getRelatedItems,
  protectItem,
  removeItem,
  removeItemRelationship,
  removeItemResource,
  removeItemThumbnail,
  setItemAccess,
  shareItemWithGroup,
  unprotectItem,
  updateGroup,
  updateItem,
  updateItemInfo,
  updateItemResource,
  updateUser,
} from '@esri/arcgis-rest-portal';
import { FileStore } from '../../src/core/storage/file-store';
import { addUsers, adminToken, createUser, uniq } from '../support/client';
import { withApp } from '../support/harness';
import { caught } from '../support/caught';

/** A 1×1 PNG. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5' +
    '0d2b2e0000000049454e44ae426082',
  'hex',
);

describe('@esri/arcgis-rest-portal 4.10.2: item details', () => {
  const t = withApp();
  let admin: string;
  /** `token` is bound to the requesting address (plain fetch sends no Referer); `auth` is the client's own session. */
  let owner: { username: string; token: string; auth: ArcGISIdentityManager };
  let other: { username: string; token: string; auth: ArcGISIdentityManager };

  async function signedIn(role: string) {
    const u = await createUser(t.base, admin, role);
    return {
      username: u.username,
      token: u.token,
      auth: await ArcGISIdentityManager.signIn({ username: u.username, password: u.password, portal: t.base }),
    };
  }

  beforeAll(async () => {
    admin = await adminToken(t.base);
    owner = await signedIn('org_publisher');
    other = await signedIn('org_user');
  });

  const webMap = async (authentication = owner.auth, type = 'Web Map') =>
    (await createItem({ item: { title: uniq('map'), type, tags: ['a'] }, text: '{"operationalLayers":[]}', authentication })).id;
  const csvItem = async (authentication = owner.auth) =>
    (
      await createItem({
        item: { title: uniq('csv'), type: 'CSV' },
        file: new Blob(['a,b\n1,2\n'], { type: 'text/csv' }),
        filename: 'first.csv',
        authentication,
      })
    ).id;
  const row = async (id: string) => (await t.db.query(`SELECT * FROM items WHERE id = $1`, [id]))[0];
  /** A resource read back as JSON, as the reader `authentication` sees it. */
  const resourceJson = (id: string, fileName: string, authentication = owner.auth) =>
    getItemResource(id, { fileName, readAs: 'json', authentication });

  describe('updateItem', () => {
    it('sets every property ArcGIS takes, and getItem shows them', async () => {
      const id = await webMap();
      const properties = {
        title: 'New title',
        tags: ['x', 'y'],
        typeKeywords: ['Web Map', 'Offline'],
        snippet: 'snip',
        description: '<p>desc</p>',
        accessInformation: 'Esri and others',
        licenseInfo: 'CC-BY-4.0',
        culture: 'fr-fr',
        properties: { a: 1, nested: { b: [1, 2] } },
        url: 'https://example.com/app',
        extent: [
          [-10, -5],
          [10, 5],
        ],
        spatialReference: 'WGS_1984_Web_Mercator_Auxiliary_Sphere',
      };
      expect(await updateItem({ item: { id, ...properties }, authentication: owner.auth })).toEqual({ success: true, id });
      expect(await getItem(id, { authentication: owner.auth })).toMatchObject(properties);
    });

    it('leaves empty values alone, and clears them with clearEmptyFields', async () => {
      const id = await webMap();
      await updateItem({ item: { id, snippet: 'keep', licenseInfo: 'L', tags: ['t1'] }, authentication: owner.auth });
      await updateItem({ item: { id, snippet: '', licenseInfo: '' }, authentication: owner.auth });
      expect(await getItem(id, { authentication: owner.auth })).toMatchObject({ snippet: 'keep', licenseInfo: 'L' });
      await updateItem({
        item: { id, snippet: '', licenseInfo: '', tags: [] },
        params: { clearEmptyFields: true },
        authentication: owner.auth,
      });
      expect(await row(id)).toMatchObject({ snippet: '', license_info: null });
      const err = await caught(() =>
        updateItem({ item: { id, title: '' }, params: { clearEmptyFields: true }, authentication: owner.auth }),
      );
      expect(err).toBeInstanceOf(ArcGISRequestError);
      expect(err.message).toContain("'title' cannot be empty.");
    });

    it('round-trips the item getItem returned (thumbnailUrl and all)', async () => {
      const id = await webMap();
      await updateItem({ item: { id, thumbnail: new File([PNG], 'dot.png', { type: 'image/png' }) }, authentication: owner.auth });
      const item = await getItem(id, { authentication: owner.auth });
      expect(item.thumbnailUrl).toContain(`/content/items/${id}/info/thumbnail/dot.png`);
      expect(await updateItem({ item: { ...item, title: 'again' }, authentication: owner.auth })).toEqual({ success: true, id });
      expect(await getItem(id, { authentication: owner.auth })).toMatchObject({ title: 'again', thumbnail: 'thumbnail/dot.png' });
    });

    it("replaces a JSON item's data with text (updateItem and addItemData)", async () => {
      const id = await webMap();
      await updateItem({ item: { id, text: JSON.stringify({ version: 2 }) }, authentication: owner.auth });
      expect(await getItemData(id, { authentication: owner.auth })).toEqual({ version: 2 });
      expect(await addItemData({ id, text: JSON.stringify({ version: 3 }), authentication: owner.auth })).toEqual({ success: true, id });
      expect(await getItemData(id, { authentication: owner.auth })).toEqual({ version: 3 });
      expect((await getItem(id, { authentication: owner.auth })).size).toBe(JSON.stringify({ version: 3 }).length);
    });

    it("replaces a file item's data with a new file, and the old file goes", async () => {
      const id = await csvItem();
      const before = (await t.db.query(`SELECT file_path FROM items WHERE id = $1`, [id]))[0].file_path;
      const bytes = 'x,y,name\n1,2,Zürich\n3,4,Bern\n';
      const r = await updateItem({
        item: { id, title: 'Points v2' },
        params: { file: new File([bytes], 'second.csv', { type: 'text/csv' }) },
        authentication: owner.auth,
      });
      expect(r).toEqual({ success: true, id });
      const item = await getItem(id, { authentication: owner.auth });
      expect(item).toMatchObject({ title: 'Points v2', name: 'second.csv', size: Buffer.byteLength(bytes) });
      const blob: Blob = await getItemData(id, { authentication: owner.auth, file: true });
      expect(Buffer.from(await blob.arrayBuffer()).toString('utf8')).toBe(bytes);
      const after = (await t.db.query(`SELECT file_path FROM items WHERE id = $1`, [id]))[0].file_path;
      expect(after).not.toBe(before);
      expect(await t.app.get(FileStore).stat(before)).toBeNull();

      await addItemData({ id, file: new File(['q\n1\n'], 'third.csv'), authentication: owner.auth });
      expect(await getItem(id, { authentication: owner.auth })).toMatchObject({ name: 'third.csv', size: 4 });
    });

    it('accepts the folder segment the client sends with folderId', async () => {
      const id = await webMap();
      const folderId = '0123456789abcdef0123456789abcdef';
      expect(await updateItem({ item: { id, snippet: 'in a folder' }, folderId, authentication: owner.auth })).toEqual({
        success: true,
        id,
      });
      expect((await getItem(id, { authentication: owner.auth })).snippet).toBe('in a folder');
    });

    it('refuses thumbnailUrl and dataUrl of other hosts, a non-image thumbnail, and other users', async () => {
      const id = await webMap();
      const url = await caught(() =>
        updateItem({ item: { id }, params: { thumbnailUrl: 'http://169.254.169.254/x.png' }, authentication: owner.auth }),
      );
      expect(url.message).toContain("'thumbnailUrl' is not supported.");
      const data = await caught(() =>
        updateItem({ item: { id }, params: { dataUrl: 'http://example.com/x.csv' }, authentication: owner.auth }),
      );
      expect(data.message).toContain("'dataUrl' is not supported.");
      const fake = await caught(() =>
        updateItem({ item: { id, thumbnail: new File(['<svg onload=alert(1)>'], 'x.png') }, authentication: owner.auth }),
      );
      expect(fake.message).toContain('Invalid thumbnail.');
      const stranger = await caught(() => updateItem({ item: { id, owner: owner.username, title: 'mine' }, authentication: other.auth }));
      expect(stranger.code).toBe('CONT_0001');
      expect((await row(id)).title).not.toBe('mine');
    });
  });

  describe('thumbnail', () => {
    it('serves the uploaded thumbnail at info/thumbnail/<name>, and removeItemThumbnail removes it', async () => {
      const id = await webMap();
      await updateItem({ item: { id, thumbnail: new File([PNG], 'thumb.png', { type: 'image/png' }) }, authentication: owner.auth });
      const item = await getItem(id, { authentication: owner.auth });
      expect(item.thumbnail).toBe('thumbnail/thumb.png');
      const got: Blob = await getItemInfo(id, { fileName: 'thumbnail/thumb.png', readAs: 'blob', authentication: owner.auth });
      expect(got.type).toBe('image/png');
      expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).toBe(true);

      expect(await removeItemThumbnail({ id, authentication: owner.auth })).toEqual({ success: true });
      expect((await getItem(id, { authentication: owner.auth })).thumbnail).toBeNull();
      expect((await row(id)).thumbnail_key).toBeNull();
    });
  });

  describe('info files', () => {
    it('writes iteminfo.xml from the item until one is uploaded, and serves what updateItemInfo sent', async () => {
      const id = await webMap();
      await updateItem({ item: { id, title: 'Parks & <Trees>', tags: ['green'] }, authentication: owner.auth });
      const generated: string = await getItemInfo(id, { authentication: owner.auth });
      expect(generated).toContain('<title>Parks &amp; &lt;Trees&gt;</title>');
      expect(generated).toContain('<tag>green</tag>');

      const xml = '<?xml version="1.0"?><ESRI_ItemInformation><title>Mine</title></ESRI_ItemInformation>';
      const r = await updateItemInfo({ id, file: new File([xml], 'iteminfo.xml'), authentication: owner.auth });
      expect(r).toEqual({ success: true, itemId: id, owner: owner.username, folder: null });
      expect(await getItemInfo(id, { authentication: owner.auth })).toBe(xml);

      const json = '{"widgets":[1,2]}';
      await updateItemInfo({ id, file: new File([json], 'config.json'), folderName: 'app', authentication: owner.auth });
      expect(await getItemInfo(id, { fileName: 'app/config.json', readAs: 'json', authentication: owner.auth })).toEqual({
        widgets: [1, 2],
      });
    });

    it("keeps metadata.xml from updateItemInfo (folderName metadata) and from an update's metadata part", async () => {
      const id = await webMap();
      const m1 = '<metadata><idinfo>one</idinfo></metadata>';
      await updateItemInfo({ id, file: new File([m1], 'metadata.xml'), folderName: 'metadata', authentication: owner.auth });
      expect(await getItemMetadata(id, { authentication: owner.auth })).toBe(m1);
      const m2 = '<metadata><idinfo>two</idinfo></metadata>';
      await updateItem({ item: { id }, params: { metadata: new File([m2], 'any-name.xml') }, authentication: owner.auth });
      expect(await getItemMetadata(id, { authentication: owner.auth })).toBe(m2);
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM item_files WHERE item_id = $1 AND kind = 'info'`, [id]);
      expect(n).toBe(1);
    });

    it("refuses info files of types ArcGIS refuses, and does not show another user's private item", async () => {
      const id = await webMap();
      const bad = await caught(() => updateItemInfo({ id, file: new File(['x'], 'run.exe'), authentication: owner.auth }));
      expect(bad.message).toContain('File type not allowed for item info files.');
      // File reads go out raw (f unset), so the client hands back the envelope as the file's text rather than throwing.
      expect(JSON.parse(await getItemInfo(id, { authentication: other.auth })).error).toMatchObject({ messageCode: 'CONT_0001' });
      const res = await fetch(`${t.base}/content/items/${id}/info/iteminfo.xml?token=${other.token}`);
      expect(((await res.json()) as { error: object }).error).toMatchObject({ code: 400, messageCode: 'CONT_0001' });
    });
  });

  describe('resources', () => {
    it('adds, lists with paging, reads, updates and removes resources', async () => {
      const id = await webMap();
      const add1 = await addItemResource({ id, name: 'config.json', content: '{"v":1}', authentication: owner.auth });
      expect(add1).toMatchObject({ success: true, itemId: id, owner: owner.username });
      await addItemResource({ id, resource: new File([PNG], 'logo.png'), name: 'logo.png', prefix: 'images', authentication: owner.auth });
      await addItemResource({ id, name: 'secret.txt', content: 'hush', private: true, authentication: owner.auth });

      const all = await getItemResources(id, { authentication: owner.auth });
      const listed: { resource: string; access?: string }[] = all.resources ?? [];
      expect(all).toMatchObject({ total: 3, start: 1, num: 3, nextStart: -1 });
      expect(listed.map((r) => r.resource)).toEqual(['config.json', 'images/logo.png', 'secret.txt']);
      expect(listed[1]).toMatchObject({
        resource: 'images/logo.png',
        size: PNG.length,
        created: expect.any(Number),
        access: 'inherit',
      });
      expect(listed[2].access).toBe('private');

      const page = await getItemResources(id, { params: { start: 2, num: 1 }, authentication: owner.auth });
      expect(page).toMatchObject({ total: 3, start: 2, num: 1, nextStart: 3 });
      expect((page.resources ?? []).map((r) => r.resource)).toEqual(['images/logo.png']);

      expect(await resourceJson(id, 'config.json')).toEqual({ v: 1 });
      const logo: Blob = await getItemResource(id, { fileName: 'images/logo.png', authentication: owner.auth });
      expect(Buffer.from(await logo.arrayBuffer()).equals(PNG)).toBe(true);

      const upd = await updateItemResource({ id, name: 'config.json', content: '{"v":2}', authentication: owner.auth });
      expect(upd).toMatchObject({ success: true, itemId: id });
      expect(await resourceJson(id, 'config.json')).toEqual({ v: 2 });

      expect(await removeItemResource({ id, resource: 'images/logo.png', authentication: owner.auth })).toEqual({ success: true });
      expect((await getItemResources(id, { authentication: owner.auth })).total).toBe(2);
      expect(await removeItemResource({ id, deleteAll: true, authentication: owner.auth })).toEqual({ success: true });
      expect((await getItemResources(id, { authentication: owner.auth })).total).toBe(0);
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM item_files WHERE item_id = $1`, [id]);
      expect(n).toBe(0);
    });

    it('hides private resources from readers who may not change the item', async () => {
      const id = await webMap();
      await addItemResource({ id, name: 'open.json', content: '{}', authentication: owner.auth });
      await addItemResource({ id, name: 'closed.json', content: '{}', private: true, authentication: owner.auth });
      const group = (await createGroup({ group: { title: uniq('g'), access: 'org' }, authentication: owner.auth })).group.id;
      await addUsers(t.base, owner.token, group, [other.username]);
      await shareItemWithGroup({ id, groupId: group, authentication: owner.auth });

      const seen = await getItemResources(id, { authentication: other.auth });
      expect(seen.total).toBe(1);
      expect(seen.resources).toEqual([{ resource: 'open.json', created: expect.any(Number), size: 2 }]);
      const hidden = await resourceJson(id, 'closed.json', other.auth);
      expect(hidden.error).toMatchObject({ code: 400, message: 'Resource does not exist or is inaccessible.' });
      expect(await resourceJson(id, 'closed.json')).toEqual({});
    });

    it('refuses a duplicate add, an update of a missing resource, and a path that climbs out', async () => {
      const id = await webMap();
      await addItemResource({ id, name: 'a.json', content: '{}', authentication: owner.auth });
      expect((await caught(() => addItemResource({ id, name: 'a.json', content: '{}', authentication: owner.auth }))).message).toContain(
        'Resource already exists.',
      );
      expect((await caught(() => updateItemResource({ id, name: 'b.json', content: '{}', authentication: owner.auth }))).message).toContain(
        'Resource does not exist or is inaccessible.',
      );
      expect(
        (await caught(() => addItemResource({ id, name: 'x.json', prefix: '../../etc', content: '{}', authentication: owner.auth })))
          .message,
      ).toContain("'resourcesPrefix' is not a valid file name.");
    });
  });

  describe('relationships', () => {
    it('relates a web map to a service, reads both directions, and deletes it', async () => {
      const map = await webMap();
      const svc = await webMap(owner.auth, 'Feature Service');
      const r = await addItemRelationship({
        originItemId: map,
        destinationItemId: svc,
        relationshipType: 'Map2Service',
        authentication: owner.auth,
      });
      expect(r).toEqual({ success: true });

      const forward = await getRelatedItems({ id: map, relationshipType: 'Map2Service', direction: 'forward', authentication: owner.auth });
      expect(forward.total).toBe(1);
      expect(forward.relatedItems.map((i: { id: string }) => i.id)).toEqual([svc]);
      const reverse = await getRelatedItems({
        id: svc,
        relationshipType: ['Map2Service', 'Service2Data'],
        direction: 'reverse',
        authentication: owner.auth,
      });
      expect(reverse.relatedItems.map((i: { id: string }) => i.id)).toEqual([map]);
      expect(
        (await getRelatedItems({ id: map, relationshipType: 'Map2Service', direction: 'reverse', authentication: owner.auth })).total,
      ).toBe(0);

      expect(
        await removeItemRelationship({
          originItemId: map,
          destinationItemId: svc,
          relationshipType: 'Map2Service',
          authentication: owner.auth,
        }),
      ).toEqual({ success: true });
      expect(
        (await getRelatedItems({ id: map, relationshipType: 'Map2Service', direction: 'forward', authentication: owner.auth })).total,
      ).toBe(0);
    });

    it("checks the type's item types and ownership rule, and hides related items the caller cannot see", async () => {
      const map = await webMap();
      const csv = await csvItem();
      const wrong = await caught(() =>
        addItemRelationship({ originItemId: map, destinationItemId: csv, relationshipType: 'Map2Service', authentication: owner.auth }),
      );
      expect(wrong.message).toContain('Unable to add relationship.');
      const svc = await webMap(owner.auth, 'Feature Service');
      await addItemRelationship({
        originItemId: svc,
        destinationItemId: csv,
        relationshipType: 'Service2Data',
        authentication: owner.auth,
      });

      // The CSV is shared with the organisation: the other user sees it, but Service2Data needs both items owned.
      await setItemAccess({ id: csv, access: 'org', authentication: owner.auth });
      const theirs = await webMap(other.auth, 'Feature Service');
      const notOwned = await caught(() =>
        addItemRelationship({ originItemId: theirs, destinationItemId: csv, relationshipType: 'Service2Data', authentication: other.auth }),
      );
      expect(notOwned.code).toBe('GWM_0003');
      // The owner's service stays private: asked in reverse from the CSV, the other user is shown nothing of it.
      const reverse = { id: csv, relationshipType: 'Service2Data' as const, direction: 'reverse' as const };
      expect((await getRelatedItems({ ...reverse, authentication: owner.auth })).relatedItems.map((i: { id: string }) => i.id)).toEqual([
        svc,
      ]);
      expect(await getRelatedItems({ ...reverse, authentication: other.auth })).toEqual({ total: 0, relatedItems: [] });
      const bad = await caught(() =>
        getRelatedItems({ id: csv, relationshipType: 'Bogus2Type' as never, direction: 'reverse', authentication: owner.auth }),
      );
      expect(bad.message).toContain('Invalid relationship type.');
    });

    it('goes with the item when either end is deleted', async () => {
      const map = await webMap();
      const svc = await webMap(owner.auth, 'Feature Service');
      await addItemRelationship({ originItemId: map, destinationItemId: svc, relationshipType: 'Map2Service', authentication: owner.auth });
      await removeItem({ id: svc, authentication: owner.auth });
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM item_relationships WHERE origin_id = $1`, [map]);
      expect(n).toBe(0);
    });
  });

  describe('protectItem / unprotectItem', () => {
    it('refuses to delete a protected item, for its owner and administrators alike, until unprotected', async () => {
      const id = await webMap();
      expect(await protectItem({ id, authentication: owner.auth })).toEqual({ success: true });
      expect((await getItem(id, { authentication: owner.auth })).protected).toBe(true);
      const err = await caught(() => removeItem({ id, authentication: owner.auth }));
      expect(err).toBeInstanceOf(ArcGISRequestError);
      expect(err.message).toContain(`Unable to delete item ${id}. Delete protection is turned on.`);
      const res = await fetch(`${t.base}/content/users/${owner.username}/items/${id}/delete`, {
        method: 'POST',
        body: new URLSearchParams({ f: 'json', token: admin }),
      });
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain('Delete protection is turned on.');
      expect(await row(id)).toBeDefined();

      expect(await unprotectItem({ id, authentication: owner.auth })).toEqual({ success: true });
      expect((await getItem(id, { authentication: owner.auth })).protected).toBe(false);
      expect(await removeItem({ id, authentication: owner.auth })).toMatchObject({ success: true });
      expect(await row(id)).toBeUndefined();
    });
  });

  describe('getItemGroups', () => {
    it("splits the groups an item is in by the caller's membership, hiding groups the caller cannot see", async () => {
      const id = await webMap();
      const mine = (await createGroup({ group: { title: uniq('own'), access: 'private' }, authentication: owner.auth })).group.id;
      const joined = (await createGroup({ group: { title: uniq('joined'), access: 'private' }, authentication: other.auth })).group.id;
      await addUsers(t.base, other.token, joined, [owner.username]);
      const orgWide = (await createGroup({ group: { title: uniq('org'), access: 'org' }, authentication: other.auth })).group.id;
      await addUsers(t.base, other.token, orgWide, [owner.username]);
      for (const g of [mine, joined, orgWide]) await shareItemWithGroup({ id, groupId: g, authentication: owner.auth });

      const groups = await getItemGroups(id, { authentication: owner.auth });
      expect(groups.admin!.map((g) => g.id)).toEqual([mine]);
      expect(groups.member!.map((g) => g.id).sort()).toEqual([joined, orgWide].sort());
      expect(groups.other).toEqual([]);

      // A member of the organisation in none of the groups, once the item is shared with the organisation: the org
      // group is one they may see, so it is listed under other; the two private groups are not listed at all.
      await setItemAccess({ id, access: 'org', authentication: owner.auth });
      const third = await signedIn('org_user');
      const theirs = await getItemGroups(id, { authentication: third.auth });
      expect(theirs).toEqual({ admin: [], member: [], other: [expect.objectContaining({ id: orgWide })] });
    });
  });

  describe('getItemStatus', () => {
    it("answers a finished item's status", async () => {
      const id = await webMap();
      expect(await getItemStatus({ id, owner: owner.username, authentication: owner.auth })).toMatchObject({
        status: 'completed',
        itemId: id,
      });
    });
  });
});

describe('@esri/arcgis-rest-portal 4.10.2: the configured bounds of tag lists and info files', () => {
  // Small bounds, so that reaching them takes a few values: 3 tags of at most 8 characters, 3 info files an item.
  const t = withApp({ env: { TAGS_MAX_COUNT: '3', TAG_MAX_CHARS: '8', ITEM_MAX_INFO_FILES: '3' } });
  let auth: ArcGISIdentityManager;

  beforeAll(async () => {
    const u = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    auth = await ArcGISIdentityManager.signIn({ username: u.username, password: u.password, portal: t.base });
  });

  const refusal = async (call: () => Promise<unknown>) => {
    const e = await caught(call);
    expect(e).toBeInstanceOf(ArcGISRequestError);
    return (e as ArcGISRequestError).response.error as { code: number; message: string; details: string[] };
  };

  it('createItem and updateItem refuse more tags or typeKeywords than TAGS_MAX_COUNT, or longer than TAG_MAX_CHARS', async () => {
    const item = { title: uniq('tagged'), type: 'Web Map' };
    expect(await refusal(() => createItem({ item: { ...item, tags: ['a', 'b', 'c', 'd'] }, text: '{}', authentication: auth }))).toEqual({
      code: 400,
      message: 'Invalid or missing input parameters.',
      details: ["'tags' may hold at most 3 values (TAGS_MAX_COUNT)."],
    });
    expect(
      (await refusal(() => createItem({ item: { ...item, typeKeywords: ['ninechars'] }, text: '{}', authentication: auth }))).details,
    ).toEqual(["Each value of 'typeKeywords' must be at most 8 characters (TAG_MAX_CHARS); one has 9."]);
    // At the bounds, and counted in characters: three tags, one of eight emoji.
    const { id } = await createItem({ item: { ...item, tags: ['a', 'b', '🚀'.repeat(8)] }, text: '{}', authentication: auth });
    expect((await getItem(id, { authentication: auth })).tags).toEqual(['a', 'b', '🚀'.repeat(8)]);

    expect((await refusal(() => updateItem({ item: { id, typeKeywords: ['1', '2', '3', '4'] }, authentication: auth }))).details).toEqual([
      "'typeKeywords' may hold at most 3 values (TAGS_MAX_COUNT).",
    ]);
    expect(
      (await refusal(() => updateItem({ item: { id, title: 'changed', tags: ['ninechars'] }, authentication: auth }))).details,
    ).toEqual(["Each value of 'tags' must be at most 8 characters (TAG_MAX_CHARS); one has 9."]);
    // A refused update changes nothing, the title it carried included.
    expect(await getItem(id, { authentication: auth })).toMatchObject({
      title: item.title,
      tags: ['a', 'b', '🚀'.repeat(8)],
    });
  });

  it("createGroup, updateGroup and updateUser hold a group's and a user's tags to the same bounds", async () => {
    const title = uniq('tagged');
    expect(
      (await refusal(() => createGroup({ group: { title, access: 'private', tags: ['a', 'b', 'c', 'd'] }, authentication: auth }))).details,
    ).toEqual(["'tags' may hold at most 3 values (TAGS_MAX_COUNT)."]);
    const { group } = await createGroup({ group: { title, access: 'private', tags: ['a'] }, authentication: auth });
    expect((await refusal(() => updateGroup({ group: { id: group.id, tags: ['ninechars'] }, authentication: auth }))).details).toEqual([
      "Each value of 'tags' must be at most 8 characters (TAG_MAX_CHARS); one has 9.",
    ]);
    expect((await getGroup(group.id, { authentication: auth })).tags).toEqual(['a']);
    expect((await refusal(() => updateUser({ user: { tags: ['1', '2', '3', '4'] }, authentication: auth }))).details).toEqual([
      "'tags' may hold at most 3 values (TAGS_MAX_COUNT).",
    ]);
  });

  it('updateItemInfo refuses a new info file beyond ITEM_MAX_INFO_FILES, and still replaces the ones the item has', async () => {
    const { id } = await createItem({ item: { title: uniq('info'), type: 'Web Map' }, text: '{}', authentication: auth });
    for (const name of ['a.json', 'b.json', 'c.json']) {
      await updateItemInfo({ id, file: new File(['{}'], name), folderName: 'app', authentication: auth });
    }
    const full = await refusal(() => updateItemInfo({ id, file: new File(['{}'], 'd.json'), folderName: 'app', authentication: auth }));
    expect(full).toEqual({
      code: 400,
      message: 'Unable to add info file.',
      details: ['The item holds the maximum of 3 info files (ITEM_MAX_INFO_FILES).'],
    });
    await updateItemInfo({ id, file: new File(['{"v":2}'], 'a.json'), folderName: 'app', authentication: auth });
    expect(await getItemInfo(id, { fileName: 'app/a.json', readAs: 'json', authentication: auth })).toEqual({ v: 2 });
    const rows = await t.db.query(`SELECT path FROM item_files WHERE item_id = $1 AND kind = 'info' ORDER BY path`, [id]);
    expect(rows.map((r: { path: string }) => r.path)).toEqual(['app/a.json', 'app/b.json', 'app/c.json']);
  });
});
