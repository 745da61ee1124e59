import { Client } from 'pg';
import { addItem, addUsers, createGroup, createUser, post, uniq } from '../support/client';
import { withApp } from '../support/harness';

describe('unshareItems and shareItems (batch)', () => {
  const t = withApp({ users: { owner: 'org_publisher', other: 'org_user' } });
  const { owner, other } = t.users;
  let g1: string;
  let g2: string;

  beforeAll(async () => {
    g1 = await createGroup(t.base, owner.token);
    g2 = await createGroup(t.base, owner.token);
  });

  const share = (items: string[], groups: string[], token = owner.token, user = owner.username) =>
    post(t.base, `content/users/${user}/shareItems`, { items: items.join(','), groups: groups.join(',') }, token);
  const unshare = (items: string[], groups: string[], token = owner.token, user = owner.username) =>
    post(t.base, `content/users/${user}/unshareItems`, { items: items.join(','), groups: groups.join(',') }, token);
  const sharedGroups = async (id: string) =>
    (await t.db.query(`SELECT group_id FROM item_shares WHERE item_id = $1 ORDER BY group_id`, [id])).map(
      (r: { group_id: string }) => r.group_id,
    );

  it('unshares every item from every group and reports one result per item in request order', async () => {
    const a = await addItem(t.base, owner.username, owner.token);
    const b = await addItem(t.base, owner.username, owner.token);
    expect((await share([a, b], [g1, g2])).body.results.every((r: { success: boolean }) => r.success)).toBe(true);
    const r = await unshare([b, a], [g1, g2]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      results: [
        { itemId: b, success: true, notUnsharedFrom: [] },
        { itemId: a, success: true, notUnsharedFrom: [] },
      ],
    });
    expect(await sharedGroups(a)).toEqual([]);
    expect(await sharedGroups(b)).toEqual([]);
  });

  it('reports a missing item as a per-item failure with an error, and duplicates at each position', async () => {
    const a = await addItem(t.base, owner.username, owner.token);
    await share([a], [g1]);
    const missing = 'f'.repeat(32);
    const r = await unshare([a, missing, a], [g1]);
    expect(r.body.results).toEqual([
      { itemId: a, success: true, notUnsharedFrom: [] },
      { itemId: missing, success: false, notUnsharedFrom: [], error: { code: 500, message: 'Item does not exist or is inaccessible.' } },
      { itemId: a, success: true, notUnsharedFrom: [] },
    ]);
  });

  it('treats an item of another owner as inaccessible under this owner', async () => {
    const foreign = await addItem(t.base, other.username, other.token);
    const r = await unshare([foreign], [g1]);
    expect(r.body.results[0]).toMatchObject({ itemId: foreign, success: false, error: { code: 500 } });
  });

  it('lists a group that does not exist in notUnsharedFrom and still unshares from the others', async () => {
    const a = await addItem(t.base, owner.username, owner.token);
    await share([a], [g1]);
    const ghost = 'a'.repeat(32);
    const r = await unshare([a], [g1, ghost]);
    expect(r.body.results[0]).toEqual({
      itemId: a,
      success: false,
      notUnsharedFrom: [ghost],
      error: { code: 400, message: `Group does not exist or is inaccessible: ${ghost}.` },
    });
    expect(await sharedGroups(a)).toEqual([]);
  });

  it('succeeds for a group the item was not shared with (nothing to undo)', async () => {
    const a = await addItem(t.base, owner.username, owner.token);
    const r = await unshare([a], [g2]);
    expect(r.body.results).toEqual([{ itemId: a, success: true, notUnsharedFrom: [] }]);
  });

  it('lets an org administrator unshare on behalf of the owner', async () => {
    const a = await addItem(t.base, owner.username, owner.token);
    await share([a], [g1, g2]);
    const r = await unshare([a], [g1, g2], t.admin);
    expect(r.body.results).toEqual([{ itemId: a, success: true, notUnsharedFrom: [] }]);
    expect(await sharedGroups(a)).toEqual([]);
  });

  it('lets a custom role with the admin sharing privilege act for the owner, and not one without it', async () => {
    const role = await post(t.base, 'portals/self/createRole', { name: uniq('role') }, t.admin);
    await post(
      t.base,
      `portals/self/roles/${role.body.id}/setPrivileges`,
      { privileges: JSON.stringify({ privileges: ['portal:admin:shareToGroup', 'portal:admin:viewItems'] }) },
      t.admin,
    );
    const custom = await createUser(t.base, t.admin, role.body.id);
    const plain = await createUser(t.base, t.admin, 'org_user');
    const a = await addItem(t.base, owner.username, owner.token);
    await share([a], [g1]);
    expect((await unshare([a], [g1], plain.token)).body.error.code).toBe(403);
    expect((await unshare([a], [g1], custom.token)).body.results).toEqual([{ itemId: a, success: true, notUnsharedFrom: [] }]);
  });

  it('lets a group manager unshare any item from their group but not from groups they do not manage', async () => {
    const manager = await createUser(t.base, t.admin, 'org_user');
    await addUsers(t.base, owner.token, g1, [], [manager.username]);
    await addUsers(t.base, owner.token, g2, [manager.username]);
    const a = await addItem(t.base, owner.username, owner.token);
    await share([a], [g1, g2]);
    const r = await unshare([a], [g1, g2], manager.token);
    expect(r.body.results).toEqual([
      {
        itemId: a,
        success: false,
        notUnsharedFrom: [g2],
        error: { code: 403, message: `You do not have permissions to unshare this item from group(s): ${g2}.` },
      },
    ]);
    expect(await sharedGroups(a)).toEqual([g2]);
  });

  it('answers 403 for the whole request when the caller may act for nobody in it', async () => {
    const a = await addItem(t.base, owner.username, owner.token);
    await share([a], [g1]);
    const r = await unshare([a], [g1], other.token);
    expect(r.status).toBe(200);
    expect(r.body.error).toMatchObject({ code: 403, messageCode: 'GWM_0003' });
    expect(await sharedGroups(a)).toEqual([g1]);
  });

  it('keeps the derived access right: shared while in a group, private after', async () => {
    const a = await addItem(t.base, owner.username, owner.token);
    const access = async () => (await post(t.base, `content/items/${a}`, {}, owner.token)).body.access;
    expect(await access()).toBe('private');
    await share([a], [g1]);
    expect(await access()).toBe('shared');
    await unshare([a], [g1]);
    expect(await access()).toBe('private');
  });

  it('rejects oversized lists, bad ids and missing parameters with a 400 envelope', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => i.toString(16).padStart(32, '0'));
    expect((await unshare(many, [g1])).body.error).toMatchObject({ code: 400, message: 'Too many items: 1001.' });
    const groups = Array.from({ length: 101 }, (_, i) => i.toString(16).padStart(32, '0'));
    expect((await unshare([many[0]], groups)).body.error).toMatchObject({ code: 400, message: 'Too many groups: 101.' });
    expect((await unshare(['nope'], [g1])).body.error).toMatchObject({ code: 400, details: ["'nope' is not a valid item id."] });
    const noGroups = await post(t.base, `content/users/${owner.username}/unshareItems`, { items: many[0] }, owner.token);
    expect(noGroups.body.error.code).toBe(400);
    const noItems = await post(t.base, `content/users/${owner.username}/unshareItems`, { groups: g1 }, owner.token);
    expect(noItems.body.error.code).toBe(400);
    expect((await unshare([many[0]], [g1], owner.token, 'nobody_here')).body.error).toMatchObject({ code: 400, messageCode: 'COM_0019' });
  });

  it('runs the same number of SQL statements for 1 item and for 1,000 items x 100 groups', async () => {
    const ids = [await addItem(t.base, owner.username, owner.token)];
    const values = Array.from(
      { length: 999 },
      (_, i) =>
        `('${'b' + i.toString(16).padStart(31, '0')}', (SELECT owner_id FROM items WHERE id = '${ids[0]}'), (SELECT org_id FROM items WHERE id = '${ids[0]}'), 'bulk ${i}', 'Web Map')`,
    );
    await t.db.query(`INSERT INTO items (id, owner_id, org_id, title, type) VALUES ${values.join(',')}`);
    const all = [...ids, ...Array.from({ length: 999 }, (_, i) => 'b' + i.toString(16).padStart(31, '0'))];
    const groups = [g1, g2, ...Array.from({ length: 98 }, (_, i) => 'c' + i.toString(16).padStart(31, '0'))];
    const count = async (items: string[], gs: string[]) => {
      const spy = jest.spyOn(Client.prototype, 'query');
      try {
        const r = await unshare(items, gs);
        expect(r.body.results).toHaveLength(items.length);
        return spy.mock.calls.length;
      } finally {
        spy.mockRestore();
      }
    };
    const one = await count([ids[0]], [g1]);
    const thousand = await count(all, groups);
    expect(thousand).toBe(one);
    expect(one).toBeLessThanOrEqual(8);
  });

  it('stays consistent under concurrent share and unshare of the same items', async () => {
    const items = await Promise.all(Array.from({ length: 20 }, () => addItem(t.base, owner.username, owner.token)));
    const reversed = [...items].reverse();
    const ops = Array.from({ length: 30 }, (_, i) =>
      i % 2 ? share(i % 4 === 1 ? items : reversed, [g1, g2]) : unshare(i % 4 === 0 ? reversed : items, [g2, g1]),
    );
    const replies = await Promise.all(ops);
    for (const r of replies) {
      expect(r.body.error).toBeUndefined();
      expect(r.body.results.every((x: { success: boolean }) => x.success)).toBe(true);
    }
    await unshare(items, [g1, g2]);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM item_shares WHERE item_id = ANY($1)`, [items]);
    expect(n).toBe(0);
  });
});
