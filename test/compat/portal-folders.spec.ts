/**
 * Folders, moving items, reassigning them and multipart uploads, driven through @esri/arcgis-rest-portal 4.10.2 as
 * its docs show: createFolder, removeFolder, getUserContent (root and folder), createItemInFolder / createItem,
 * moveItem, reassignItem, addItemPart, getItemParts, commitItemUpload, cancelItemUpload and getItemStatus. The batch
 * routes (moveItems, and our reassignItems) have no helper and go through `request()`. Each reply's shape is checked,
 * and what it changed is read back through the library or SQL.
 */
import { ArcGISIdentityManager, ArcGISRequestError, request } from '@esri/arcgis-rest-request';
import {
  addGroupUsers,
  addItemPart,
  cancelItemUpload,
  commitItemUpload,
  createFolder,
  createGroup,
  createItem,
  createItemInFolder,
  getItem,
  getItemData,
  getItemParts,
  getItemStatus,
  getUserContent,
  moveItem,
  reassignItem,
  removeFolder,
  setItemAccess,
  shareItemWithGroup,
} from '@esri/arcgis-rest-portal';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { UploadService } from '../../src/content/upload.service';
import { ApiProcess, spawnApi } from '../security/support/spawn-api';
import { ADMIN } from '../support/app';
import { adminToken, createUser, uniq } from '../support/client';
import { withApp } from '../support/harness';
import { onS3 } from '../support/s3';
import { caught } from '../support/caught';
import { lockWaiters } from '../support/wait-for';

const HEX_ID = /^[0-9a-f]{32}$/;
const MiB = 1024 * 1024;

/** Polls the item's status through the library until it leaves partsUploading/processing. */
async function settled(id: string, owner: string, authentication: ArcGISIdentityManager) {
  const until = Date.now() + 60_000;
  for (;;) {
    const s = await getItemStatus({ id, owner, authentication });
    if (s.status === 'completed' || s.status === 'failed' || Date.now() > until) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('@esri/arcgis-rest-portal: folders, move, reassign, multipart upload', () => {
  // Parts of 6 MB at most and 8 MB an upload here, to see the limits refuse.
  const t = withApp({ env: { MULTIPART_PART_MAX_MB: '6', MULTIPART_MAX_MB: '8' } });
  let adminTok: string;
  let adminAuth: ArcGISIdentityManager;

  beforeAll(async () => {
    adminAuth = await ArcGISIdentityManager.signIn({ username: ADMIN.username, password: ADMIN.password, portal: t.base });
    adminTok = await adminToken(t.base);
  });

  async function signedInUser(role: 'org_user' | 'org_publisher' = 'org_publisher') {
    const u = await createUser(t.base, adminTok, role);
    return {
      username: u.username,
      auth: await ArcGISIdentityManager.signIn({ username: u.username, password: u.password, portal: t.base }),
    };
  }

  async function webMap(authentication: ArcGISIdentityManager, folderId?: string): Promise<string> {
    const item = { title: uniq('map'), type: 'Web Map', tags: ['folders'] };
    const text = JSON.stringify({ operationalLayers: [] });
    const r = folderId
      ? await createItemInFolder({ item, folderId, text, authentication })
      : await createItem({ item, text, authentication });
    return r.id;
  }

  const folderOf = async (id: string) =>
    (await t.db.query('SELECT owner_folder FROM items WHERE id = $1', [id]))[0]?.owner_folder as string | null | undefined;

  describe('folders', () => {
    it('createFolder answers the folder; the root listing lists it; titles are unique per user whatever their case', async () => {
      const u = await signedInUser();
      const title = uniq('Project');
      const r = await createFolder({ title, authentication: u.auth });
      expect(r).toEqual({
        success: true,
        folder: { username: u.username, id: expect.stringMatching(HEX_ID), title, created: expect.any(Number) },
      });

      const root = await getUserContent({ authentication: u.auth });
      expect(root).toMatchObject({ username: u.username, currentFolder: null, total: 0, items: [] });
      expect(root.folders).toEqual([r.folder]);

      const dup = await caught(() => createFolder({ title: title.toUpperCase(), authentication: u.auth }));
      expect(dup).toBeInstanceOf(ArcGISRequestError);
      expect(dup.message).toContain('Unable to create folder.');
      // The root folder goes by the user's name.
      expect((await caught(() => createFolder({ title: u.username, authentication: u.auth }))).message).toContain(
        'Unable to create folder.',
      );
      const rows = await t.db.query('SELECT count(*)::int AS n FROM folders f JOIN users u ON u.id = f.owner_id WHERE u.username = $1', [
        u.username,
      ]);
      expect(rows[0].n).toBe(1);

      // Another user may have a folder of the same title.
      const other = await signedInUser();
      expect((await createFolder({ title, authentication: other.auth })).success).toBe(true);
    });

    it('createItemInFolder puts the item in the folder: ownerFolder, the folder listing and the root listing agree', async () => {
      const u = await signedInUser();
      const folder = (await createFolder({ title: uniq('maps'), authentication: u.auth })).folder;
      const item = { title: uniq('map'), type: 'Web Map' };
      const created = await createItemInFolder({ item, folderId: folder.id, text: '{}', authentication: u.auth });
      expect(created).toEqual({ success: true, id: expect.stringMatching(HEX_ID), folder: folder.id });
      const rootItem = await createItem({ item: { title: uniq('root'), type: 'Web Map' }, text: '{}', authentication: u.auth });
      expect(rootItem.folder).toBeNull();

      expect((await getItem(created.id, { authentication: u.auth })).ownerFolder).toBe(folder.id);
      expect((await getItem(rootItem.id, { authentication: u.auth })).ownerFolder).toBeNull();

      const inFolder = await getUserContent({ folderId: folder.id, authentication: u.auth });
      expect(inFolder).toMatchObject({ username: u.username, total: 1, start: 1, num: 10, nextStart: -1, currentFolder: folder });
      expect(inFolder.items.map((i) => i.id)).toEqual([created.id]);
      const root = await getUserContent({ authentication: u.auth });
      expect(root.items.map((i) => i.id)).toEqual([rootItem.id]);

      // A file goes into a folder too (the multipart body on the folder's addItem).
      const csv = await createItemInFolder({
        item: { title: uniq('csv'), type: 'CSV' },
        folderId: folder.id,
        file: new Blob(['a,b\n1,2\n'], { type: 'text/csv' }),
        filename: 'ab.csv',
        authentication: u.auth,
      });
      expect(await folderOf(csv.id)).toBe(folder.id);
      expect((await getItem(csv.id, { authentication: u.auth })).size).toBe(8);

      const missing = await caught(() =>
        createItemInFolder({ item, folderId: randomBytes(16).toString('hex'), text: '{}', authentication: u.auth }),
      );
      expect(missing.message).toContain('Folder does not exist.');
      // Another user's folder is no folder of this owner's.
      const other = await signedInUser();
      expect(
        (await caught(() => createItemInFolder({ item, folderId: folder.id, text: '{}', authentication: other.auth }))).message,
      ).toContain('Folder does not exist.');
      expect((await caught(() => getUserContent({ owner: u.username, folderId: folder.id, authentication: other.auth }))).code).toBe(
        'GWM_0003',
      );
    });

    it('removeFolder deletes the folder and moves its items to the root', async () => {
      const u = await signedInUser();
      const folder = (await createFolder({ title: uniq('old'), authentication: u.auth })).folder;
      const a = await webMap(u.auth, folder.id);
      const b = await webMap(u.auth, folder.id);
      expect(await removeFolder({ folderId: folder.id, authentication: u.auth })).toEqual({ success: true, folder });
      expect(await folderOf(a)).toBeNull();
      expect(await folderOf(b)).toBeNull();
      const root = await getUserContent({ authentication: u.auth });
      expect(root.folders).toEqual([]);
      expect(root.items.map((i) => i.id).sort()).toEqual([a, b].sort());
      expect((await caught(() => removeFolder({ folderId: folder.id, authentication: u.auth }))).message).toContain(
        'Folder does not exist.',
      );
    });
  });

  describe('move', () => {
    it('moveItem moves into a folder and back to the root ("/"), and refuses a move to where the item is', async () => {
      const u = await signedInUser();
      const folder = (await createFolder({ title: uniq('dest'), authentication: u.auth })).folder;
      const id = await webMap(u.auth);
      expect(await moveItem({ itemId: id, folderId: folder.id, authentication: u.auth })).toEqual({
        success: true,
        itemId: id,
        owner: u.username,
        folder: folder.id,
      });
      expect((await getItem(id, { authentication: u.auth })).ownerFolder).toBe(folder.id);
      expect((await caught(() => moveItem({ itemId: id, folderId: folder.id, authentication: u.auth }))).message).toContain(
        'Item already exists in target folder.',
      );
      // No folderId: the client sends folder=/ (the root).
      expect(await moveItem({ itemId: id, authentication: u.auth })).toEqual({ success: true, itemId: id, owner: u.username, folder: '/' });
      expect(await folderOf(id)).toBeNull();

      const other = await signedInUser();
      const err = await caught(() => moveItem({ itemId: id, owner: u.username, folderId: folder.id, authentication: other.auth }));
      expect(err.code).toBe('GWM_0003');
      expect(await folderOf(id)).toBeNull();
    });

    it('moveItems moves a batch in one request and reports each item', async () => {
      const u = await signedInUser();
      const folder = (await createFolder({ title: uniq('batch'), authentication: u.auth })).folder;
      const ids = [await webMap(u.auth), await webMap(u.auth), await webMap(u.auth, folder.id)];
      const missing = randomBytes(16).toString('hex');
      const r = await request(`${t.base}/content/users/${u.username}/moveItems`, {
        params: { items: [...ids, missing].join(','), folder: folder.id },
        authentication: u.auth,
      });
      expect(r).toEqual({
        results: [
          { itemId: ids[0], success: true },
          { itemId: ids[1], success: true },
          { itemId: ids[2], success: false, error: { code: 500, message: 'Item already exists in target folder.' } },
          { itemId: missing, success: false, error: { code: 500, message: 'Item does not exist or is inaccessible.' } },
        ],
      });
      for (const id of ids) expect(await folderOf(id)).toBe(folder.id);
    });
  });

  describe('reassign', () => {
    it('reassignItem gives the item to another member, into a folder made for it; groups the new owner cannot share to are left', async () => {
      const from = await signedInUser();
      const to = await signedInUser('org_user');
      const outsider = await signedInUser('org_user');
      // keep: both are members; left: the new owner is no member; viewOnly: a member, but not a manager.
      const keep = (await createGroup({ group: { title: uniq('keep'), access: 'org', tags: ['x'] }, authentication: from.auth })).group.id;
      const left = (await createGroup({ group: { title: uniq('left'), access: 'org', tags: ['x'] }, authentication: from.auth })).group.id;
      const viewOnly = (
        await createGroup({ group: { title: uniq('view'), access: 'org', tags: ['x'], isViewOnly: true }, authentication: from.auth })
      ).group.id;
      await addGroupUsers({ id: keep, users: [to.username], authentication: from.auth });
      await addGroupUsers({ id: viewOnly, users: [to.username], authentication: from.auth });
      await addGroupUsers({ id: left, users: [outsider.username], authentication: from.auth });
      const id = await webMap(from.auth);
      for (const groupId of [keep, left, viewOnly]) await shareItemWithGroup({ id, groupId, authentication: from.auth });

      const folderName = uniq('Received');
      const r = await reassignItem({
        id,
        currentOwner: from.username,
        targetUsername: to.username,
        targetFolderName: folderName,
        authentication: adminAuth,
      });
      expect(r).toEqual({
        success: true,
        itemId: id,
        unsharedFrom: [left, viewOnly].sort(),
        unsharedFromEveryone: false,
        unsharedFromOrg: false,
      });

      const item = await getItem(id, { authentication: to.auth });
      expect(item.owner).toBe(to.username);
      const toRoot = await getUserContent({ authentication: to.auth });
      const made = toRoot.folders.find((f) => f.title === folderName);
      expect(made).toMatchObject({ username: to.username, id: expect.stringMatching(HEX_ID) });
      expect(item.ownerFolder).toBe(made!.id);
      const shares = await t.db.query('SELECT group_id FROM item_shares WHERE item_id = $1', [id]);
      expect(shares.map((s: { group_id: string }) => s.group_id)).toEqual([keep]);

      // An existing folder of that title (any case) is reused; "/" is the root.
      const again = await webMap(from.auth);
      await reassignItem({
        id: again,
        currentOwner: from.username,
        targetUsername: to.username,
        targetFolderName: folderName.toLowerCase(),
        authentication: adminAuth,
      });
      expect(await folderOf(again)).toBe(made!.id);
      const rootOne = await webMap(from.auth);
      await reassignItem({
        id: rootOne,
        currentOwner: from.username,
        targetUsername: to.username,
        targetFolderName: '/',
        authentication: adminAuth,
      });
      expect(await folderOf(rootOne)).toBeNull();
    });

    it('only an administrator reassigns: the library refuses a non-admin, and the server answers 403 to one that asks anyway', async () => {
      const from = await signedInUser();
      const to = await signedInUser();
      const id = await webMap(from.auth);
      const local = await caught(() =>
        reassignItem({ id, currentOwner: from.username, targetUsername: to.username, authentication: from.auth }),
      );
      expect(local.message).toContain('not an organization administrator');
      const served = await caught(() =>
        request(`${t.base}/content/users/${from.username}/items/${id}/reassign`, {
          params: { targetUsername: to.username },
          authentication: from.auth,
        }),
      );
      expect(served.code).toBe('GWM_0003');
      expect((await getItem(id, { authentication: from.auth })).owner).toBe(from.username);
    });

    it('refuses a target outside what may own items, and an unknown item', async () => {
      const from = await signedInUser();
      const id = await webMap(from.auth);
      const unknown = await caught(() =>
        reassignItem({ id, currentOwner: from.username, targetUsername: 'nobody_at_all', authentication: adminAuth }),
      );
      expect(unknown.code).toBe('COM_0019');
      const missing = randomBytes(16).toString('hex');
      const to = await signedInUser();
      expect(
        (
          await caught(() =>
            reassignItem({ id: missing, currentOwner: from.username, targetUsername: to.username, authentication: adminAuth }),
          )
        ).code,
      ).toBe('CONT_0001');
    });

    /** A result whose item kept all its sharing. */
    const kept = { unsharedFrom: [], unsharedFromEveryone: false, unsharedFromOrg: false };

    it('a new owner who may not share publicly gets the public item shared with the organisation, and the reply says so', async () => {
      const role = async (privileges: string[]) => {
        const r = await request(`${t.base}/portals/self/createRole`, { params: { name: uniq('role') }, authentication: adminAuth });
        await request(`${t.base}/portals/self/roles/${r.id}/setPrivileges`, {
          params: { privileges: JSON.stringify({ privileges }) },
          authentication: adminAuth,
        });
        return r.id as string;
      };
      const base = ['portal:user:createItem', 'portal:user:joinGroup', 'portal:user:shareToGroup'];
      const orgOnly = await createUser(t.base, adminTok, await role([...base, 'portal:user:shareToOrg']));
      const groupsOnly = await createUser(t.base, adminTok, await role(base));
      const from = await signedInUser();
      const [pub, pub2, org] = [await webMap(from.auth), await webMap(from.auth), await webMap(from.auth)];
      for (const id of [pub, pub2]) await setItemAccess({ id, access: 'public', authentication: from.auth });
      await setItemAccess({ id: org, access: 'org', authentication: from.auth });

      const r = await reassignItem({ id: pub, currentOwner: from.username, targetUsername: orgOnly.username, authentication: adminAuth });
      expect(r).toEqual({ success: true, itemId: pub, unsharedFrom: [], unsharedFromEveryone: true, unsharedFromOrg: false });
      expect((await getItem(pub, { authentication: adminAuth })).access).toBe('org');

      const batch = await request(`${t.base}/content/users/${from.username}/reassignItems`, {
        params: { items: [pub2, org].join(','), targetUsername: groupsOnly.username },
        authentication: adminAuth,
      });
      expect(batch.results).toEqual([
        { itemId: pub2, success: true, unsharedFrom: [], unsharedFromEveryone: true, unsharedFromOrg: true },
        { itemId: org, success: true, unsharedFrom: [], unsharedFromEveryone: false, unsharedFromOrg: true },
      ]);
      for (const id of [pub2, org]) expect((await getItem(id, { authentication: adminAuth })).access).toBe('private');
      // Anonymous readers lost the public item with its sharing.
      expect((await caught(() => getItem(pub, { portal: t.base }))).code).toBe('CONT_0001');
    });

    it('reassignItems (our batch extension) reassigns many items in one request and reports each', async () => {
      const from = await signedInUser();
      const to = await signedInUser();
      const ids = [await webMap(from.auth), await webMap(from.auth)];
      const missing = randomBytes(16).toString('hex');
      const r = await request(`${t.base}/content/users/${from.username}/reassignItems`, {
        params: { items: [...ids, missing].join(','), targetUsername: to.username },
        authentication: adminAuth,
      });
      expect(r).toEqual({
        results: [
          { itemId: ids[0], success: true, ...kept },
          { itemId: ids[1], success: true, ...kept },
          { itemId: missing, success: false, ...kept, error: { code: 500, message: 'Item does not exist or is inaccessible.' } },
        ],
      });
      const owners = await t.db.query('SELECT DISTINCT u.username FROM items i JOIN users u ON u.id = i.owner_id WHERE i.id = ANY($1)', [
        ids,
      ]);
      expect(owners).toEqual([{ username: to.username }]);
    });
  });

  describe('multipart upload', () => {
    const part = (n: number, size: number) => Buffer.alloc(size, 48 + (n % 10));
    /** A multipart addItem: the id of a CSV item waiting for its parts. */
    const startUpload = async (authentication: ArcGISIdentityManager, title: string, filename: string) =>
      (await createItem({ item: { title: uniq(title), type: 'CSV' }, multipart: true, filename, authentication })).id;

    it('adds parts in any order, lists them, commits them into the item data, and reports the status throughout', async () => {
      const u = await signedInUser();
      const created = await createItem({
        item: { title: uniq('big'), type: 'CSV' },
        multipart: true,
        filename: 'big.csv',
        authentication: u.auth,
      });
      expect(created).toEqual({ success: true, id: expect.stringMatching(HEX_ID), folder: null });
      const id = created.id;
      expect(await getItemStatus({ id, authentication: u.auth })).toMatchObject({ status: 'partsUploading' });

      const p1 = part(1, 5 * MiB);
      const p2 = part(2, 1234);
      expect(await addItemPart({ id, partNum: 2, file: new Blob([part(7, 99)]), authentication: u.auth })).toEqual({ success: true, id });
      expect(await addItemPart({ id, partNum: 1, file: new Blob([p1]), authentication: u.auth })).toEqual({ success: true, id });
      // The same number again replaces the part.
      await addItemPart({ id, partNum: 2, file: new Blob([p2]), authentication: u.auth });
      expect(await getItemParts({ id, authentication: u.auth })).toEqual({ parts: [1, 2] });

      expect(await commitItemUpload({ id, item: { title: 'ignored', type: 'CSV' }, authentication: u.auth })).toEqual({
        success: true,
        id,
      });
      const status = await settled(id, u.username, u.auth);
      expect(status).toMatchObject({ status: 'completed' });

      const item = await getItem(id, { authentication: u.auth });
      expect(item).toMatchObject({ name: 'big.csv', size: p1.length + p2.length });
      const data: Blob = await getItemData(id, { authentication: u.auth, file: true });
      const got = Buffer.from(await data.arrayBuffer());
      expect(got.equals(Buffer.concat([p1, p2]))).toBe(true);
      expect((await t.db.query('SELECT count(*)::int AS n FROM item_uploads WHERE item_id = $1', [id]))[0].n).toBe(0);
      // Done: no more parts.
      expect((await caught(() => addItemPart({ id, partNum: 3, file: new Blob(['x']), authentication: u.auth }))).message).toContain(
        'not being uploaded in parts',
      );
    });

    it('refuses a commit whose parts but the last are under 5 MB, and parts out of range', async () => {
      const u = await signedInUser();
      const id = await startUpload(u.auth, 'small', 's.csv');
      await addItemPart({ id, partNum: 1, file: new Blob(['a'.repeat(100)]), authentication: u.auth });
      await addItemPart({ id, partNum: 2, file: new Blob(['b']), authentication: u.auth });
      expect((await caught(() => commitItemUpload({ id, item: { title: 'x', type: 'CSV' }, authentication: u.auth }))).message).toContain(
        'Every part but the last must be at least 5 MB.',
      );
      expect((await getItemStatus({ id, authentication: u.auth })).status).toBe('partsUploading');
      // The client checks the range itself; the server does too.
      expect((await caught(() => addItemPart({ id, partNum: 0, file: new Blob(['x']), authentication: u.auth }))).message).toContain(
        'between 1 to 10000',
      );
      const beyond = await caught(() =>
        request(`${t.base}/content/users/${u.username}/items/${id}/addPart?partNum=10001`, {
          params: { file: new Blob(['x']) },
          authentication: u.auth,
        }),
      );
      expect(beyond.response.error.details).toContain("'partNum' must be a whole number from 1 to 10000.");
      const other = await signedInUser();
      expect((await caught(() => getItemParts({ id, owner: u.username, authentication: other.auth }))).code).toBe('CONT_0001');
    });

    it('refuses a part over MULTIPART_PART_MAX_MB before storing it', async () => {
      const u = await signedInUser();
      const id = await startUpload(u.auth, 'cap', 'c.csv');
      const err = await caught(() => addItemPart({ id, partNum: 1, file: new Blob([part(1, 7 * MiB)]), authentication: u.auth }));
      expect(String(err.message)).toMatch(/413|larger than 6 MB/);
      expect(await getItemParts({ id, authentication: u.auth })).toEqual({ parts: [] });
    });

    it('parts sent at once cannot together pass MULTIPART_MAX_MB: the total is checked as each part is recorded', async () => {
      const u = await signedInUser();
      const id = await startUpload(u.auth, 'race', 'r.csv');
      // The upload's row is held until all four parts wait at it: each has passed the early check on an empty upload.
      const hold = t.db.createQueryRunner();
      await hold.connect();
      let outcomes: Promise<string>[] = [];
      try {
        await hold.startTransaction();
        await hold.query('SELECT 1 FROM item_uploads WHERE item_id = $1 FOR UPDATE', [id]);
        outcomes = [1, 2, 3, 4].map((partNum) =>
          addItemPart({ id, partNum, file: new Blob([part(partNum, 3 * MiB)]), authentication: u.auth }).then(
            () => 'stored',
            (e: Error) => e.message,
          ),
        );
        await lockWaiters(t.db, 4);
        await hold.commitTransaction();
      } finally {
        if (hold.isTransactionActive) await hold.rollbackTransaction();
        await hold.release();
      }
      const got = await Promise.all(outcomes);
      expect(got.filter((o) => o === 'stored')).toHaveLength(2);
      for (const refused of got.filter((o) => o !== 'stored')) expect(refused).toContain('(MULTIPART_MAX_MB)');
      expect((await getItemParts({ id, authentication: u.auth })).parts).toHaveLength(2);
      const [{ total }] = await t.db.query('SELECT sum(size)::text AS total FROM item_upload_parts WHERE item_id = $1', [id]);
      expect(Number(total)).toBe(6 * MiB);
      // The refused parts' bytes went with them: only the two recorded parts are in storage.
      if (!onS3()) expect(readdirSync(path.join(t.config.dataDir, 'items', id, '.parts'))).toHaveLength(2);
    });

    it('cancelItemUpload drops the parts and the item', async () => {
      const u = await signedInUser();
      const id = await startUpload(u.auth, 'gone', 'g.csv');
      await addItemPart({ id, partNum: 1, file: new Blob(['abc']), authentication: u.auth });
      expect(await cancelItemUpload({ id, authentication: u.auth })).toEqual({ success: true, id });
      expect((await caught(() => getItem(id, { authentication: u.auth }))).code).toBe('CONT_0001');
      if (!onS3()) expect(existsSync(path.join(t.config.dataDir, 'items', id))).toBe(false);
    });

    it('an upload not committed within MULTIPART_UPLOAD_TTL_H is swept: parts removed, item failed', async () => {
      const u = await signedInUser();
      const id = await startUpload(u.auth, 'late', 'l.csv');
      await addItemPart({ id, partNum: 1, file: new Blob(['abc']), authentication: u.auth });
      const sweeper = t.app.get(UploadService);
      expect((await sweeper.sweep(new Date())).expired).toBe(0);
      const report = await sweeper.sweep(new Date(Date.now() + 13 * 3600_000));
      expect(report.expired).toBeGreaterThanOrEqual(1);
      // A failed status makes the client reject, with the status message as the error's.
      const failed = await caught(() => getItemStatus({ id, authentication: u.auth }));
      expect(failed.message).toContain('The multipart upload was not committed within 12 h');
      expect((await t.db.query('SELECT status FROM items WHERE id = $1', [id]))[0].status).toBe('failed');
      if (!onS3()) expect(existsSync(path.join(t.config.dataDir, 'items', id, '.parts'))).toBe(false);
      expect((await caught(() => getItemParts({ id, authentication: u.auth }))).message).toContain('not being uploaded in parts');
    });
  });
});

// The target: a 200 MB file in 5 MB parts through the library, the API's RSS growing less than 50 MB.
(onS3() ? describe.skip : describe)('a 200 MB multipart upload against a separate API process', () => {
  let api: ApiProcess;
  beforeAll(async () => {
    api = await spawnApi({ LOG_LEVEL: 'warn' });
  }, 90_000);
  afterAll(() => api?.stop());

  it('keeps the RSS growth under 50 MB while 40 parts of 5 MB go up and are committed', async () => {
    const auth = await ArcGISIdentityManager.signIn({ username: ADMIN.username, password: ADMIN.password, portal: api.base });
    let afterParts = 0;
    const upload = async (parts: number) => {
      const { id } = await createItem({
        item: { title: uniq('big'), type: 'CSV' },
        multipart: true,
        filename: 'big.csv',
        authentication: auth,
      });
      const body = Buffer.alloc(5 * MiB, 97);
      for (let n = 1; n <= parts; n++) await addItemPart({ id, partNum: n, file: new Blob([body]), authentication: auth });
      afterParts = api.rss();
      await commitItemUpload({ id, item: { title: 'x', type: 'CSV' }, authentication: auth });
      expect(await settled(id, ADMIN.username, auth)).toMatchObject({ status: 'completed' });
      return id;
    };
    // Warm-up: the routes, pools and buffers once, so one-time costs are in the baseline.
    await upload(4);
    await new Promise((r) => setTimeout(r, 1000));
    const baseline = api.rss();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, api.rss())), 25);
    const id = await upload(40);
    clearInterval(sampler);
    const growth = peak - baseline;
    console.log(
      `multipart 200 MB: RSS baseline ${(baseline / MiB).toFixed(1)} MB, peak ${(peak / MiB).toFixed(1)} MB, growth ${(growth / MiB).toFixed(1)} MB (after the parts ${((afterParts - baseline) / MiB).toFixed(1)} MB)`,
    );
    expect((await getItem(id, { authentication: auth })).size).toBe(200 * MiB);
    expect(growth).toBeLessThan(50 * MiB);
  }, 300_000);
});
