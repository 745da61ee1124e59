/**
 * Groups through the real @esri/arcgis-rest-portal 4.10.2 client: group search, update (a thumbnail file included),
 * protection, members, joining, invitations and the category schema. Every call goes through the library's own
 * function, as its docs show; `request()` is used only where the library has none (requests to join, assigning a
 * category schema). Each test reads the state back, through the library or SQL.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { ArcGISIdentityManager, request } from '@esri/arcgis-rest-request';
import {
  acceptInvitation,
  addGroupUsers,
  createGroup,
  declineInvitation,
  getGroup,
  getGroupCategorySchema,
  getGroupUsers,
  getUserInvitation,
  getUserInvitations,
  inviteGroupUsers,
  joinGroup,
  leaveGroup,
  protectGroup,
  removeGroup,
  removeGroupUsers,
  searchGroups,
  searchGroupUsers,
  SearchQueryBuilder,
  unprotectGroup,
  updateGroup,
  updateUserMemberships,
} from '@esri/arcgis-rest-portal';
import { adminToken, createUser, uniq } from '../support/client';
import { withApp } from '../support/harness';
import { caught } from '../support/caught';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

describe('groups through @esri/arcgis-rest-portal 4.10.2', () => {
  const t = withApp();
  let admin: string;

  interface Person {
    username: string;
    auth: ArcGISIdentityManager;
  }

  async function person(role = 'org_user'): Promise<Person> {
    const u = await createUser(t.base, admin, role);
    return {
      username: u.username,
      auth: await ArcGISIdentityManager.signIn({ username: u.username, password: u.password, portal: t.base }),
    };
  }

  let owner: Person;
  let member: Person;
  let manager: Person;
  let outsider: Person;

  beforeAll(async () => {
    admin = await adminToken(t.base);
    [owner, member, manager, outsider] = await Promise.all([person('org_publisher'), person(), person(), person()]);
  }, 60_000);

  async function group(g: Record<string, unknown> = {}, by: Person = owner): Promise<string> {
    const r = await createGroup({ group: { title: uniq('group'), access: 'org', ...g }, authentication: by.auth });
    return r.group.id;
  }

  const memberType = async (id: string, who: Person) => (await getGroup(id, { authentication: who.auth })).userMembership?.memberType;

  describe('searchGroups', () => {
    it('finds by field, sorts, pages with nextPage, and shows each caller only the groups they may see', async () => {
      const tag = uniq('tag');
      const titles = ['Alder', 'Birch', 'Cedar'].map((n) => `${n} ${tag}`);
      const [pub, org, priv] = await Promise.all([
        group({ title: titles[0], access: 'public', tags: [tag, 'parks'] }),
        group({ title: titles[1], access: 'org', tags: [tag], isInvitationOnly: true }),
        group({ title: titles[2], access: 'private', tags: [tag] }),
      ]);
      await group({ title: `Dogwood ${tag}`, access: 'private', tags: [tag] }, outsider);

      const page1 = await searchGroups({ q: `tags:${tag}`, sortField: 'title', sortOrder: 'desc', num: 2, authentication: owner.auth });
      expect(page1).toMatchObject({ query: `tags:${tag}`, total: 3, start: 1, num: 2, nextStart: 3 });
      expect(page1.results.map((g) => g.id)).toEqual([priv, org]);
      expect(page1.results[0]).toMatchObject({ title: titles[2], owner: owner.username, access: 'private', tags: [tag] });
      const page2 = await page1.nextPage!();
      expect(page2).toMatchObject({ total: 3, start: 3, nextStart: -1 });
      expect(page2.results.map((g) => g.id)).toEqual([pub]);

      // Anonymous: public groups only. Another org member: public and org groups.
      const anonymous = await searchGroups({ q: `tags:${tag}`, portal: t.base });
      expect(anonymous.results.map((g) => g.id)).toEqual([pub]);
      const others = await searchGroups({ q: `tags:${tag}`, authentication: member.auth });
      expect(others.results.map((g) => g.id).sort()).toEqual([pub, org].sort());

      // What SearchQueryBuilder writes: fields, AND, NOT, a created range in epoch ms.
      const q = new SearchQueryBuilder()
        .match(owner.username)
        .in('owner')
        .and()
        .match(tag)
        .in('tags')
        .not()
        .match('true')
        .in('isInvitationOnly')
        .and()
        .from(new Date(Date.now() - 3_600_000))
        .to(new Date(Date.now() + 3_600_000))
        .in('created');
      const built = await searchGroups({ q, authentication: owner.auth });
      expect(built.results.map((g) => g.id).sort()).toEqual([pub, priv].sort());
      expect(
        (await searchGroups({ q: `isInvitationOnly:true AND tags:${tag}`, authentication: owner.auth })).results.map((g) => g.id),
      ).toEqual([org]);
      expect((await searchGroups({ q: `${tag} AND parks`, authentication: owner.auth })).results.map((g) => g.id)).toEqual([pub]);

      // searchUserAccess=groupMember: only the groups the caller belongs to.
      await addGroupUsers({ id: org, users: [member.username], authentication: owner.auth });
      const mine = await searchGroups({ q: `tags:${tag}`, searchUserAccess: 'groupMember', authentication: member.auth });
      expect(mine.results.map((g) => g.id)).toEqual([org]);

      const bad = await caught(() => searchGroups({ q: 'type:Web Map', authentication: owner.auth }));
      expect(bad.message).toContain("Invalid value for parameter 'q'.");
    });
  });

  describe('updateGroup', () => {
    it('changes what is sent and keeps the rest; clearEmptyFields clears empty fields', async () => {
      const id = await group({ description: 'keep me', snippet: 'short', tags: ['a'] });
      const r = await updateGroup({
        group: {
          id,
          title: 'Renamed',
          snippet: 'new snippet',
          tags: ['x', 'y'],
          isInvitationOnly: true,
          isViewOnly: true,
          sortField: 'modified',
          sortOrder: 'desc',
          membershipAccess: 'org',
          description: '',
        },
        authentication: owner.auth,
      });
      expect(r).toEqual({ success: true, groupId: id });
      const g = await getGroup(id, { authentication: owner.auth });
      expect(g).toMatchObject({
        title: 'Renamed',
        snippet: 'new snippet',
        tags: ['x', 'y'],
        isInvitationOnly: true,
        isViewOnly: true,
        sortField: 'modified',
        sortOrder: 'desc',
        membershipAccess: 'org',
        // Sent empty without clearEmptyFields: left as it was.
        description: 'keep me',
      });
      expect(g.modified).toBeGreaterThanOrEqual(g.created);

      await updateGroup({ group: { id, description: '', tags: [] }, params: { clearEmptyFields: true }, authentication: owner.auth });
      expect(await getGroup(id, { authentication: owner.auth })).toMatchObject({ description: '', tags: [], title: 'Renamed' });

      // A group read back and sent whole (what a client editing one field does) changes only that field.
      const whole = await getGroup(id, { authentication: owner.auth });
      await updateGroup({ group: { ...whole, snippet: 'edited' }, authentication: owner.auth });
      expect(await getGroup(id, { authentication: owner.auth })).toMatchObject({ snippet: 'edited', title: 'Renamed', isViewOnly: true });

      // A manager may update; a member may not.
      await addGroupUsers({ id, users: [member.username], admins: [manager.username], authentication: owner.auth });
      await updateGroup({ group: { id, snippet: 'by the manager' }, authentication: manager.auth });
      expect((await getGroup(id, { authentication: owner.auth })).snippet).toBe('by the manager');
      const refused = await caught(() => updateGroup({ group: { id, snippet: 'by a member' }, authentication: member.auth }));
      expect(refused.code).toBe('GWM_0003');
    });

    it('takes a thumbnail file, serves it at info/<name>, and refuses a file that is no image', async () => {
      const id = await group({ access: 'public' });
      const thumbnail = new File([PNG], 'logo.png', { type: 'image/png' });
      expect(await updateGroup({ group: { id, thumbnail }, authentication: owner.auth })).toEqual({ success: true, groupId: id });
      const g = await getGroup(id, { authentication: owner.auth });
      expect(g.thumbnail).toBe('logo.png');

      const res = await fetch(`${t.base}/community/groups/${id}/info/${g.thumbnail}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);

      const script = new File(['<script>alert(1)</script>'], 'evil.png', { type: 'image/png' });
      const bad = await caught(() => updateGroup({ group: { id, thumbnail: script }, authentication: owner.auth }));
      expect(bad.message).toContain('Invalid thumbnail.');
      expect((await getGroup(id, { authentication: owner.auth })).thumbnail).toBe('logo.png');

      // A new thumbnail replaces the old one, whose file is gone with it.
      await updateGroup({ group: { id, thumbnail: new File([PNG], 'second.png', { type: 'image/png' }) }, authentication: owner.auth });
      expect((await getGroup(id, { authentication: owner.auth })).thumbnail).toBe('second.png');
      const old = (await (await fetch(`${t.base}/community/groups/${id}/info/logo.png?f=json`)).json()) as { error?: object };
      expect(old.error).toMatchObject({ code: 400, message: 'File does not exist or is inaccessible.' });
      const stored = (name: string) => existsSync(path.join(t.config.dataDir, 'groups', id, name));
      expect([stored('logo.png'), stored('second.png')]).toEqual([false, true]);

      // Deleting the group removes its thumbnail.
      await removeGroup({ id, authentication: owner.auth });
      expect(stored('second.png')).toBe(false);
    });
  });

  describe('protectGroup / unprotectGroup', () => {
    it('a protected group cannot be deleted until it is unprotected', async () => {
      const id = await group();
      expect(await protectGroup({ id, authentication: owner.auth })).toEqual({ success: true });
      expect((await getGroup(id, { authentication: owner.auth })).protected).toBe(true);
      const refused = await caught(() => removeGroup({ id, authentication: owner.auth }));
      expect(refused.message).toContain('Unable to delete group.');
      expect((await getGroup(id, { authentication: owner.auth })).id).toBe(id);

      expect(await unprotectGroup({ id, authentication: owner.auth })).toEqual({ success: true });
      expect((await getGroup(id, { authentication: owner.auth })).protected).toBe(false);
      expect(await removeGroup({ id, authentication: owner.auth })).toEqual({ success: true, groupId: id });
      expect((await caught(() => getGroup(id, { authentication: owner.auth }))).code).toBe('COM_0003');
    });
  });

  describe('members', () => {
    it('adds users in the batches of 25 the client sends, lists, searches, promotes, demotes and removes them', async () => {
      const prefix = uniq('crew');
      // Made in one statement, copying a member's row (password hash included): signing 27 users in is not under test.
      const names = Array.from({ length: 27 }, (_, i) => `${prefix}_${String(i).padStart(2, '0')}`);
      await t.db.query(
        `INSERT INTO users (id, username, org_id, role, password_hash)
         SELECT md5(n), n, u.org_id, 'org_user', u.password_hash FROM unnest($1::text[]) n, users u WHERE u.username = $2`,
        [names, member.username],
      );
      const id = await group({ access: 'private' });

      expect(await addGroupUsers({ id, users: names, admins: [manager.username], authentication: owner.auth })).toEqual({ notAdded: [] });
      const users = await getGroupUsers(id, { authentication: owner.auth });
      expect(users.owner).toBe(owner.username);
      expect(users.admins.sort()).toEqual([owner.username, manager.username].sort());
      expect(users.users.sort()).toEqual([...names].sort());

      const found = await searchGroupUsers(id, {
        name: prefix,
        memberType: 'member',
        sortField: 'username',
        sortOrder: 'desc',
        num: 5,
        authentication: owner.auth,
      });
      expect(found).toMatchObject({ total: 27, start: 1, num: 5, nextStart: 6 });
      expect(found.owner).toMatchObject({ username: owner.username, memberType: 'owner' });
      expect(found.users.map((u) => u.username)).toEqual([...names].sort().reverse().slice(0, 5));
      expect(found.users[0]).toMatchObject({ memberType: 'member', joined: expect.any(Number), fullName: expect.any(String) });
      // Someone outside this private group cannot see it, let alone its members.
      expect((await caught(() => searchGroupUsers(id, { authentication: member.auth }))).code).toBe('COM_0003');
      expect((await searchGroupUsers(id, { memberType: 'owner', authentication: manager.auth })).users.map((u) => u.username)).toEqual([
        owner.username,
      ]);

      const promoted = await updateUserMemberships({ id, users: [names[0], names[1]], newMemberType: 'admin', authentication: owner.auth });
      expect(promoted.results).toEqual([
        { username: names[0], success: true },
        { username: names[1], success: true },
      ]);
      expect((await getGroupUsers(id, { authentication: owner.auth })).admins).toEqual(expect.arrayContaining([names[0], names[1]]));
      await updateUserMemberships({ id, users: [names[1]], newMemberType: 'member', authentication: owner.auth });
      expect((await getGroupUsers(id, { authentication: owner.auth })).admins).not.toContain(names[1]);

      // A manager removes members but neither the owner nor another manager.
      const byManager = await removeGroupUsers({ id, users: [names[2], owner.username, names[0]], authentication: manager.auth });
      expect((byManager.notRemoved ?? []).sort()).toEqual([owner.username, names[0]].sort());
      expect(await removeGroupUsers({ id, users: names, authentication: owner.auth })).toEqual({ notRemoved: [names[2]] });
      const after = await getGroupUsers(id, { authentication: owner.auth });
      expect(after.users).toEqual([]);
      expect(after.admins.sort()).toEqual([owner.username, manager.username].sort());
    });
  });

  describe('joining', () => {
    it('joins an open group at once and leaves it', async () => {
      const id = await group({ autoJoin: true });
      expect(await joinGroup({ id, authentication: member.auth })).toEqual({ success: true, groupId: id });
      expect(await memberType(id, member)).toBe('member');
      expect(await leaveGroup({ id, authentication: member.auth })).toEqual({ success: true, groupId: id });
      expect(await memberType(id, member)).toBe('none');
      expect((await caught(() => leaveGroup({ id, authentication: owner.auth }))).message).toContain('Unable to leave group.');
    });

    it('asks to join a group needing approval; its manager lists, accepts and declines the requests', async () => {
      const id = await group();
      await addGroupUsers({ id, admins: [manager.username], authentication: owner.auth });
      const [asker, other] = await Promise.all([person(), person()]);
      expect(await joinGroup({ id, authentication: asker.auth })).toEqual({ success: true, groupId: id });
      await joinGroup({ id, authentication: other.auth });
      expect(await memberType(id, asker)).toBe('none');
      expect((await getGroup(id, { authentication: manager.auth })).userMembership?.applications).toBe(2);

      const url = `${t.base}/community/groups/${id}/applications`;
      const list = await request(url, { httpMethod: 'GET', authentication: manager.auth });
      expect(list.applications.map((a: { username: string }) => a.username).sort()).toEqual([asker.username, other.username].sort());
      expect(list.applications[0]).toMatchObject({ received: expect.any(Number), fullname: expect.any(String) });
      expect(await request(`${url}/${asker.username}`, { httpMethod: 'GET', authentication: manager.auth })).toMatchObject({
        username: asker.username,
      });
      expect(await request(`${url}/${asker.username}/accept`, { authentication: manager.auth })).toEqual({
        success: true,
        username: asker.username,
        groupId: id,
      });
      expect(await request(`${url}/${other.username}/decline`, { authentication: manager.auth })).toEqual({
        success: true,
        username: other.username,
        groupId: id,
      });
      expect(await memberType(id, asker)).toBe('member');
      expect(await memberType(id, other)).toBe('none');
      expect((await request(url, { httpMethod: 'GET', authentication: manager.auth })).applications).toEqual([]);
    });

    it('refuses to join an invitation-only group', async () => {
      const id = await group({ isInvitationOnly: true, autoJoin: true });
      const err = await caught(() => joinGroup({ id, authentication: member.auth }));
      expect(err.message).toContain('Unable to join group.');
      expect(await memberType(id, member)).toBe('none');
    });
  });

  describe('invitations', () => {
    it('invites users; each reads, accepts or declines their invitation', async () => {
      const id = await group({ access: 'private', isInvitationOnly: true });
      const [yes, no, boss] = await Promise.all([person(), person(), person()]);
      expect(
        await inviteGroupUsers({
          id,
          users: [yes.username, no.username],
          role: 'group_member',
          expiration: 1440,
          authentication: owner.auth,
        }),
      ).toEqual({
        success: true,
      });
      await inviteGroupUsers({ id, users: [boss.username], role: 'group_admin', expiration: 20160, authentication: owner.auth });

      const mine = await getUserInvitations({ authentication: yes.auth });
      expect(mine.userInvitations).toHaveLength(1);
      const inv = mine.userInvitations[0];
      expect(inv).toMatchObject({
        targetType: 'group',
        targetId: id,
        groupId: id,
        role: 'group_member',
        username: yes.username,
        accepted: false,
      });
      expect(inv.fromUsername.username).toBe(owner.username);
      expect(inv.group).toMatchObject({ id, owner: owner.username });
      expect(inv.expiration).toBeGreaterThan(Date.now() + 1430 * 60_000);
      expect(await getUserInvitation({ invitationId: inv.id, authentication: yes.auth })).toMatchObject({ id: inv.id, groupId: id });

      // Someone else's invitation id is not found in one's own invitations.
      expect((await caught(() => getUserInvitation({ invitationId: inv.id, authentication: no.auth }))).message).toContain(
        'Invitation does not exist or is inaccessible.',
      );

      expect(await acceptInvitation({ invitationId: inv.id, authentication: yes.auth })).toEqual({
        success: true,
        username: yes.username,
        groupId: id,
        id: inv.id,
      });
      expect(await memberType(id, yes)).toBe('member');
      expect((await getUserInvitations({ authentication: yes.auth })).userInvitations).toEqual([]);

      const noInv = (await getUserInvitations({ authentication: no.auth })).userInvitations[0];
      expect(await declineInvitation({ invitationId: noInv.id, authentication: no.auth })).toMatchObject({ success: true, groupId: id });
      expect((await getUserInvitations({ authentication: no.auth })).userInvitations).toEqual([]);
      expect((await caught(() => getGroup(id, { authentication: no.auth }))).code).toBe('COM_0003');

      const bossInv = (await getUserInvitations({ authentication: boss.auth })).userInvitations[0];
      expect(bossInv.role).toBe('group_admin');
      await acceptInvitation({ invitationId: bossInv.id, authentication: boss.auth });
      expect(await memberType(id, boss)).toBe('admin');
    });
  });

  describe('category schema', () => {
    it('reads an empty schema, assigns one as a manager, and reads it back', async () => {
      const id = await group();
      expect(await getGroupCategorySchema(id, { authentication: owner.auth })).toEqual({ categorySchema: [] });
      const categorySchema = [
        { title: 'Categories', categories: [{ title: 'Basemaps', categories: [{ title: 'Vector' }] }, { title: 'Imagery' }] },
      ];
      const r = await request(`${t.base}/community/groups/${id}/assignCategorySchema`, {
        params: { categorySchema: JSON.stringify({ categorySchema }) },
        authentication: owner.auth,
      });
      expect(r).toEqual({ success: true });
      expect(await getGroupCategorySchema(id, { authentication: member.auth })).toEqual({ categorySchema });
    });
  });
});
