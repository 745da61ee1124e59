/**
 * Abuse of the portal routes added for arcgis-rest-portal, each case failing without its fix: a notification list that
 * a flood of long messages would make huge, and reassigning as a way around the privileges that reading items needs.
 */
import { randomBytes } from 'node:crypto';
import { ADMIN } from '../support/app';
import { addItem, createUser, get, post } from '../support/client';
import { withApp } from '../support/harness';
import { createRole, USER_PRIVILEGES } from './privilege-fixtures';

describe('notifications stay small to read and to send, and private to their recipient', () => {
  const t = withApp({ users: { reader: 'org_user', neighbour: 'org_user' } });
  const { reader, neighbour } = t.users;

  it("another user's list and a name nobody has get the same refusal, so it tells no one which names exist", async () => {
    const answers = await Promise.all(
      [neighbour.username, `nobody${randomBytes(4).toString('hex')}`].map(
        async (name) => (await get(t.base, `community/users/${name}/notifications`, {}, reader.token)).body,
      ),
    );
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0].error).toMatchObject({ code: 403 });
  });

  it('a user with 150 notifications reads them 100 at a time, newest first; num is capped at 100', async () => {
    const [{ id: userId }] = await t.db.query(`SELECT id FROM users WHERE username = $1`, [reader.username]);
    await t.db.query(
      `INSERT INTO notifications (id, user_id, type, data, created)
       SELECT md5(random()::text || n), $1, 'builtin', jsonb_build_object('message', 'n' || n), now() - n * interval '1 second'
         FROM generate_series(1, 150) n`,
      [userId],
    );
    const first = await get(t.base, `community/users/${reader.username}/notifications`, {}, reader.token);
    expect(first.body).toMatchObject({ total: 150, start: 1, num: 100, nextStart: 101 });
    expect(first.body.notifications).toHaveLength(100);
    expect(first.body.notifications[0].data.message).toBe('n1');
    const rest = await get(t.base, `community/users/${reader.username}/notifications`, { start: 101, num: 100 }, reader.token);
    expect(rest.body).toMatchObject({ total: 150, start: 101, num: 50, nextStart: -1 });
    expect(rest.body.notifications[49].data.message).toBe('n150');
    const tooMany = await get(t.base, `community/users/${reader.username}/notifications`, { num: 101 }, reader.token);
    expect(tooMany.body.error).toMatchObject({ code: 400, details: [expect.stringMatching(/'num' must be at most 100/)] });
  });

  it('a message longer than 8,192 characters is refused before anyone receives it', async () => {
    const count = async () =>
      (
        await t.db.query(`SELECT count(*)::int AS n FROM notifications x JOIN users u ON u.id = x.user_id WHERE u.username = $1`, [
          reader.username,
        ])
      )[0].n as number;
    const before = await count();
    const group = (
      await post(t.base, 'community/createGroup', { title: `g${randomBytes(4).toString('hex')}`, access: 'org' }, reader.token)
    ).body.group.id as string;
    const r = await post(
      t.base,
      `community/groups/${group}/createNotification`,
      { message: '€'.repeat(8193), notificationChannelType: 'builtin' },
      reader.token,
    );
    expect(r.body.error).toMatchObject({ code: 400, details: [expect.stringMatching(/'message' must be at most 8192 characters/)] });
    expect(await count()).toBe(before);
  });
});

describe('reassigning is not a way around the privileges of reading and changing items', () => {
  const t = withApp({ users: { publisher: 'org_publisher', other: 'org_publisher' } });
  const { publisher, other } = t.users;

  const ownerOf = async (item: string) =>
    (await t.db.query(`SELECT u.username FROM items i JOIN users u ON u.id = i.owner_id WHERE i.id = $1`, [item]))[0].username;

  it('an administrator with only reassignItems can take nobody’s items for themselves, nor an org_admin’s at all', async () => {
    const role = await createRole({ t, admin: t.admin }, [
      ...USER_PRIVILEGES,
      'portal:publisher:publishFeatures',
      'portal:admin:reassignItems',
    ]);
    const mover = await createUser(t.base, t.admin, role);
    const item = await addItem(t.base, publisher.username, publisher.token, { text: '{"secret":1}' });
    const toSelf = await post(
      t.base,
      `content/users/${publisher.username}/items/${item}/reassign`,
      { targetUsername: mover.username },
      mover.token,
    );
    expect(toSelf.body.error).toMatchObject({ code: 403 });
    expect(await ownerOf(item)).toBe(publisher.username);

    const adminItem = await addItem(t.base, ADMIN.username, t.admin, { text: '{"secret":2}' });
    const fromAdmin = await post(
      t.base,
      `content/users/${ADMIN.username}/items/${adminItem}/reassign`,
      { targetUsername: other.username },
      mover.token,
    );
    expect(fromAdmin.body.error).toMatchObject({ code: 403 });
    expect(await ownerOf(adminItem)).toBe(ADMIN.username);

    // What the privilege is for still works: a publisher's item to another publisher.
    const ok = await post(
      t.base,
      `content/users/${publisher.username}/items/${item}/reassign`,
      { targetUsername: other.username },
      mover.token,
    );
    expect(ok.body).toMatchObject({ success: true, itemId: item });
    expect(await ownerOf(item)).toBe(other.username);
  });
});

describe('content/users/<name> routes tell no one which user names exist', () => {
  const t = withApp({ users: { prober: 'org_publisher', victim: 'org_publisher' } });
  const { prober, victim } = t.users;
  const ghost = `nobody${randomBytes(4).toString('hex')}`;
  let item: string;
  let outsider: string;

  beforeAll(async () => {
    item = await addItem(t.base, victim.username, victim.token);
    // A user of another organisation: its administrators' names are as unknown here as names nobody has.
    const orgId = randomBytes(16).toString('hex');
    await t.db.query(`INSERT INTO orgs (id, name, url_key) VALUES ($1, 'Elsewhere', $2)`, [orgId, `k${orgId.slice(0, 12)}`]);
    outsider = `outsider${randomBytes(4).toString('hex')}`;
    await t.db.query(`INSERT INTO users (id, username, org_id, role, password_hash) VALUES ($1, $2, $3, 'org_user', 'x')`, [
      randomBytes(16).toString('hex'),
      outsider,
      orgId,
    ]);
  });

  /** Every operation under content/users/<name> that reads the name, with what it needs besides. */
  const routes = (): [string, string, Record<string, string>][] => [
    ['GET', '', {}],
    ['GET', '/0123456789abcdef0123456789abcdef', {}],
    ['POST', '/createFolder', { title: 'probe' }],
    ['POST', '/0123456789abcdef0123456789abcdef/delete', {}],
    ['POST', '/0123456789abcdef0123456789abcdef/addItem', { title: 'x', type: 'Web Map' }],
    ['POST', '/addItem', { title: 'x', type: 'Web Map' }],
    ['POST', '/moveItems', { items: item, folder: '/' }],
    ['POST', `/items/${item}/move`, { folder: '/' }],
    ['POST', `/items/${item}/reassign`, { targetUsername: prober.username }],
    ['POST', '/addRelationship', { originItemId: item, destinationItemId: item, relationshipType: 'Map2Service' }],
    ['POST', '/deleteRelationship', { originItemId: item, destinationItemId: item, relationshipType: 'Map2Service' }],
    ['POST', `/items/${item}/update`, { title: 'probe' }],
    ['POST', `/items/${item}/protect`, {}],
    ['POST', `/items/${item}/delete`, {}],
    ['POST', `/items/${item}/addResources`, { fileName: 'a.json', text: '{}' }],
    ['POST', `/items/${item}/status`, {}],
    ['POST', `/items/${item}/addPart`, { partNum: '1' }],
  ];

  /** The envelope with the probed name written as <name>, so that only what the answer says of it is compared. */
  async function answer(method: string, name: string, path: string, params: Record<string, string>, token: string) {
    const send = method === 'GET' ? get : post;
    const r = await send(t.base, `content/users/${name}${path}`, params, token);
    return JSON.parse(JSON.stringify(r.body).split(name).join('<name>'));
  }

  it("an unknown name and another user's name get the same answer on every route", async () => {
    for (const [method, path, params] of routes()) {
      const [known, unknown] = await Promise.all([victim.username, ghost].map((name) => answer(method, name, path, params, prober.token)));
      expect({ route: `${method} ${path}`, unknown }).toEqual({ route: `${method} ${path}`, unknown: known });
      expect({ route: `${method} ${path}`, error: !!known.error }).toEqual({ route: `${method} ${path}`, error: true });
    }
    // Nothing was changed by the probes.
    expect((await t.db.query(`SELECT title, protected FROM items WHERE id = $1`, [item]))[0]).toMatchObject({ protected: false });
  });

  it('to an administrator, a user of another organisation is as unknown as a name nobody has', async () => {
    for (const [method, path, params] of routes()) {
      const [outside, unknown] = await Promise.all([outsider, ghost].map((name) => answer(method, name, path, params, t.admin)));
      expect({ route: `${method} ${path}`, unknown }).toEqual({ route: `${method} ${path}`, unknown: outside });
    }
    const target = async (name: string) =>
      answer('POST', victim.username, `/items/${item}/reassign`, { targetUsername: name }, t.admin).then((b) =>
        JSON.parse(JSON.stringify(b).split(name).join('<target>')),
      );
    const [outside, unknown] = await Promise.all([target(outsider), target(ghost)]);
    expect(unknown).toEqual(outside);
    expect(unknown.error).toMatchObject({ code: 400, messageCode: 'COM_0019' });
  });
});
