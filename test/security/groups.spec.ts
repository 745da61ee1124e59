import { Client } from 'pg';
import { newId } from '../../src/core/ids';
import { startApp, TestApp } from '../support/app';
import { addItem, addUsers, adminToken, createGroup, createUser, post } from '../support/client';
import { withApp } from '../support/harness';

/** The SQL statements that reach PostgreSQL while `run` runs (pg's own Client.query, called through). */
async function statements(run: () => Promise<void>): Promise<string[]> {
  const spy = jest.spyOn(Client.prototype, 'query');
  try {
    await run();
    return spy.mock.calls.map((c) => (typeof c[0] === 'string' ? c[0] : ((c[0] as { text?: string })?.text ?? '')));
  } finally {
    spy.mockRestore();
  }
}

const READS_GROUPS = /\b(FROM|JOIN)\s+"?groups"?\b/i;

describe('the item page reads its groups in one query', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;

  it('an item shared with 300 groups (and 20 private ones) costs one groups statement, anonymously and signed in', async () => {
    const item = await addItem(t.base, owner.username, owner.token, { title: 'many-groups' });
    expect(
      (await post(t.base, `content/users/${owner.username}/items/${item}/share`, { everyone: true }, owner.token)).body.error,
    ).toBeUndefined();
    const [{ id: ownerId, org_id: orgId }] = await t.db.query(`SELECT id, org_id FROM users WHERE username = $1`, [owner.username]);
    const groups = Array.from({ length: 320 }, (_, i) => ({
      id: newId(),
      title: `g-${String(i).padStart(3, '0')}`,
      access: i < 300 ? 'public' : 'private',
    }));
    await t.db.query(
      `INSERT INTO groups (id, org_id, owner_id, title, access)
       SELECT g.id, $2, $3, g.title, g.access FROM jsonb_to_recordset($1::jsonb) AS g(id text, title text, access text)`,
      [JSON.stringify(groups), orgId, ownerId],
    );
    await t.db.query(`INSERT INTO item_shares (item_id, group_id) SELECT $1, id FROM groups WHERE id = ANY($2::text[])`, [
      item,
      groups.map((g) => g.id),
    ]);

    let page = '';
    const anonymous = await statements(async () => {
      page = await (await fetch(`${t.base}/content/items/${item}?f=html`)).text();
    });
    expect(anonymous.filter((s) => READS_GROUPS.test(s))).toHaveLength(1);
    // Only what the visitor may see: the 300 public groups, not the private ones.
    expect(groups.filter((g) => page.includes(g.id)).map((g) => g.access)).toEqual(Array(300).fill('public'));

    const signedIn = await statements(async () => {
      const r = await fetch(`${t.base}/content/items/${item}?f=html`, { headers: { Authorization: `Bearer ${owner.token}` } });
      expect(r.status).toBe(200);
      await r.text();
    });
    expect(signedIn.filter((s) => READS_GROUPS.test(s))).toHaveLength(1);
  });
});

describe('caps on groups, as ArcGIS has them (USER_MAX_GROUPS, ITEM_MAX_GROUPS)', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await startApp({ USER_MAX_GROUPS: '3', ITEM_MAX_GROUPS: '4' });
    admin = await adminToken(t.base);
  }, 60000);
  afterAll(() => t?.close());

  it('createGroup refuses the group past the cap with an envelope, counting groups joined as well as owned', async () => {
    const u = await createUser(t.base, admin, 'org_user');
    const other = await createUser(t.base, admin, 'org_user');
    await createGroup(t.base, u.token);
    await addUsers(t.base, other.token, await createGroup(t.base, other.token), [u.username]);
    await createGroup(t.base, u.token);
    const r = await post(t.base, 'community/createGroup', { title: 'one too many', access: 'org' }, u.token);
    expect(r.status).toBe(200);
    expect(r.body.error).toEqual({
      code: 400,
      message: 'Unable to create group.',
      details: ['You belong to the maximum number of groups (3).'],
    });
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM group_members m JOIN users u ON u.id = m.user_id WHERE u.username = $1`,
      [u.username],
    );
    expect(n).toBe(3);
  });

  it('concurrent createGroup calls cannot together pass the cap', async () => {
    const u = await createUser(t.base, admin, 'org_user');
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post(t.base, 'community/createGroup', { title: `race ${i}` }, u.token)),
    );
    expect(replies.filter((r) => r.body.success)).toHaveLength(3);
    expect(replies.filter((r) => r.body.error?.message === 'Unable to create group.')).toHaveLength(5);
  });

  it('addUsers does not add a user who already belongs to the maximum, and says so in notAdded', async () => {
    const full = await createUser(t.base, admin, 'org_user');
    for (let i = 0; i < 3; i++) await createGroup(t.base, full.token);
    const manager = await createUser(t.base, admin, 'org_user');
    const fresh = await createUser(t.base, admin, 'org_user');
    const group = await createGroup(t.base, manager.token);
    const r = await post(t.base, `community/groups/${group}/addUsers`, { users: `${full.username},${fresh.username}` }, manager.token);
    expect(r.body).toEqual({ notAdded: [full.username] });
  });

  it('the cap costs no statement per item: sharing 1 item or 500 items runs the same statements', async () => {
    const owner = await createUser(t.base, admin, 'org_publisher');
    const groups = [await createGroup(t.base, owner.token), await createGroup(t.base, owner.token), await createGroup(t.base, owner.token)];
    const first = await addItem(t.base, owner.username, owner.token);
    await t.db.query(
      `INSERT INTO items (id, owner_id, org_id, title, type)
       SELECT md5(random()::text), owner_id, org_id, 'bulk ' || n, 'Web Map' FROM items, generate_series(1, 499) n WHERE id = $1`,
      [first],
    );
    const all: string[] = (
      await t.db.query(`SELECT id FROM items WHERE owner_id = (SELECT owner_id FROM items WHERE id = $1)`, [first])
    ).map((r: { id: string }) => r.id);
    expect(all).toHaveLength(500);
    const share = async (items: string[]) =>
      (
        await statements(async () => {
          const r = await post(
            t.base,
            `content/users/${owner.username}/shareItems`,
            { items: items.join(','), groups: groups.join(',') },
            owner.token,
          );
          expect(r.body.results.every((x: { success: boolean }) => x.success)).toBe(true);
        })
      ).length;
    expect(await share(all)).toBe(await share([first]));
    // Refused for the cap, still the same statements. An administrator of its own: the run's first administrator may
    // belong to groups other specs made, and this app caps every user at 3.
    const boss = (await createUser(t.base, admin, 'org_admin')).token;
    const more = [await createGroup(t.base, boss), await createGroup(t.base, boss)];
    await post(t.base, `content/users/${owner.username}/shareItems`, { items: all.join(','), groups: more[0] }, boss);
    const refused = async (items: string[]) =>
      (
        await statements(async () => {
          const r = await post(t.base, `content/users/${owner.username}/shareItems`, { items: items.join(','), groups: more[1] }, boss);
          expect(r.body.results.every((x: { success: boolean; error?: { code: number } }) => !x.success && x.error?.code === 400)).toBe(
            true,
          );
        })
      ).length;
    expect(await refused(all)).toBe(await refused([first]));
  });

  it('a share that would take an item past the cap changes nothing for it, in the batch and on the single route', async () => {
    const owner = await createUser(t.base, admin, 'org_publisher');
    const helper = await createUser(t.base, admin, 'org_user');
    const mine = [await createGroup(t.base, owner.token), await createGroup(t.base, owner.token), await createGroup(t.base, owner.token)];
    const theirs = [await createGroup(t.base, helper.token), await createGroup(t.base, helper.token)];
    const [a, b] = [await addItem(t.base, owner.username, owner.token), await addItem(t.base, owner.username, owner.token)];
    // Org items may be shared by the group's manager into their groups (the group-admin route).
    await post(
      t.base,
      `content/users/${owner.username}/shareItems`,
      { items: `${a},${b}`, org: true, groups: mine.join(',') },
      owner.token,
    );
    const shares = async (id: string) =>
      (await t.db.query(`SELECT count(*)::int AS n FROM item_shares WHERE item_id = $1`, [id]))[0].n as number;
    expect([await shares(a), await shares(b)]).toEqual([3, 3]);

    // a: 3 + 1 = 4 is within; b is then at 4 too, and 4 + 1 is not.
    expect((await post(t.base, `content/items/${a}/share`, { groups: theirs[0] }, helper.token)).body).toEqual({
      notSharedWith: [],
      itemId: a,
    });
    expect((await post(t.base, `content/items/${b}/share`, { groups: theirs[0] }, helper.token)).body.notSharedWith).toEqual([]);
    const over = await post(t.base, `content/items/${a}/share`, { groups: theirs[1] }, helper.token);
    expect(over.body.error).toMatchObject({ code: 400, message: 'Unable to share item: an item can be shared with at most 4 groups.' });

    const batch = await post(
      t.base,
      `content/users/${owner.username}/shareItems`,
      { items: `${a},${b}`, everyone: true, groups: theirs[1] },
      admin,
    );
    expect(batch.body.results).toEqual([
      {
        itemId: a,
        success: false,
        notSharedWith: [theirs[1]],
        error: { code: 400, message: 'Unable to share item: an item can be shared with at most 4 groups.' },
      },
      {
        itemId: b,
        success: false,
        notSharedWith: [theirs[1]],
        error: { code: 400, message: 'Unable to share item: an item can be shared with at most 4 groups.' },
      },
    ]);
    expect([await shares(a), await shares(b)]).toEqual([4, 4]);
    // Refused whole: not made public either.
    const [{ access }] = await t.db.query(`SELECT access FROM items WHERE id = $1`, [a]);
    expect(access).toBe('org');
    // Sharing again with groups it already has is not growth, and unsharing makes room.
    expect((await post(t.base, `content/items/${a}/share`, { groups: theirs[0] }, helper.token)).body.notSharedWith).toEqual([]);
    await post(t.base, `content/items/${a}/unshare`, { groups: theirs[0] }, helper.token);
    expect((await post(t.base, `content/items/${a}/share`, { groups: theirs[1] }, helper.token)).body.notSharedWith).toEqual([]);
    expect(await shares(a)).toBe(4);
  });
});

describe('member batches are set-based: one user or 25 run the same statements', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;

  /** Users made in one statement from the owner's row (their passwords are not under test). */
  async function users(n: number): Promise<string[]> {
    const names = Array.from({ length: n }, (_, i) => `batch_${newId().slice(0, 12)}_${i}`);
    await t.db.query(
      `INSERT INTO users (id, username, org_id, role, password_hash)
       SELECT md5(n), n, u.org_id, 'org_user', u.password_hash FROM unnest($1::text[]) n, users u WHERE u.username = $2`,
      [names, owner.username],
    );
    return names;
  }

  /** How many statements `op` sends for one user and for 25, on a fresh group each time. */
  async function counts(op: (group: string, names: string[]) => Promise<void>, before?: (group: string, names: string[]) => Promise<void>) {
    const out: number[] = [];
    for (const n of [1, 25]) {
      const group = await createGroup(t.base, owner.token, { access: 'private' });
      const names = await users(n);
      await before?.(group, names);
      out.push((await statements(() => op(group, names))).length);
    }
    return out;
  }

  type Body = { notAdded?: string[]; notRemoved?: string[]; notInvited?: string[]; results?: { success: boolean }[] };
  const call = async (path: string, params: Record<string, string>, check: (body: Body) => boolean) => {
    const r = await post(t.base, path, params, owner.token);
    if (!check(r.body)) throw new Error(`${path}: ${r.text}`);
  };
  const add = (g: string, names: string[]) =>
    call(`community/groups/${g}/addUsers`, { users: names.join(',') }, (b) => b.notAdded?.length === 0);

  it.each([
    ['addUsers', add, undefined],
    [
      'removeUsers',
      (g: string, names: string[]) =>
        call(`community/groups/${g}/removeUsers`, { users: names.join(',') }, (b) => b.notRemoved?.length === 0),
      add,
    ],
    [
      'updateUsers',
      (g: string, names: string[]) =>
        call(`community/groups/${g}/updateUsers`, { admins: names.join(',') }, (b) => !!b.results?.every((r) => r.success)),
      add,
    ],
    [
      'invite',
      (g: string, names: string[]) => call(`community/groups/${g}/invite`, { users: names.join(',') }, (b) => b.notInvited?.length === 0),
      undefined,
    ],
  ] as const)('%s', async (_name, op, before) => {
    const [one, many] = await counts(op, before);
    expect(many).toBe(one);
  });
});
