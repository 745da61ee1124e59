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
