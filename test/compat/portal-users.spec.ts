/**
 * Users, the organisation and notifications through the real @esri/arcgis-rest-portal 4.10.2: every request-sending
 * function of the users/portal area, as its documentation shows it, against the running API. Each state change is
 * read back, through the library or SQL.
 */
import { ArcGISIdentityManager, ArcGISRequestError, IRequestOptions, request } from '@esri/arcgis-rest-request';
import {
  createGroup,
  createGroupNotification,
  createItem,
  createOrgNotification,
  getPortal,
  getPortalSettings,
  getPortalUrl,
  getSelf,
  getUniqueServiceName,
  getUser,
  getUserNotifications,
  getUserProperties,
  getUserTags,
  getUserUrl,
  isServiceNameAvailable,
  removeNotification,
  searchCommunityUsers,
  searchUsers,
  SearchQueryBuilder,
  setUserProperties,
  updateUser,
} from '@esri/arcgis-rest-portal';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { hashPassword } from '../../src/identity/passwords';
import { ADMIN } from '../support/app';
import { addUsers, adminToken, createUser, post, uniq } from '../support/client';
import { withApp } from '../support/harness';
import { caught } from '../support/caught';

/**
 * getSubscriptionInfo is in the library (util/get-subscription-info.js) but not in its index in 4.10.2, so the
 * coverage guard does not list it: loaded from its own file, through jest so that it shares the client's modules.
 */
const { getSubscriptionInfo } = jest.requireActual<{
  getSubscriptionInfo: (id?: string, options?: IRequestOptions) => Promise<{ id: string; [key: string]: unknown }>;
}>(path.join(path.dirname(require.resolve('@esri/arcgis-rest-portal')), 'util/get-subscription-info.js'));

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('@esri/arcgis-rest-portal 4.10.2: users, the organisation and notifications', () => {
  const t = withApp();
  let admin: ArcGISIdentityManager;
  /** Tokens for plain fetches are bound to the address (the client's own are bound to its Referer). */
  let adminTok: string;

  async function signIn(username: string, password: string) {
    return ArcGISIdentityManager.signIn({ username, password, portal: t.base });
  }

  async function newUser(role = 'org_user') {
    const u = await createUser(t.base, adminTok, role);
    return { ...u, auth: await signIn(u.username, u.password) };
  }

  beforeAll(async () => {
    admin = await signIn(ADMIN.username, ADMIN.password);
    adminTok = await adminToken(t.base);
  });

  describe('users', () => {
    it('getUser, getSelf, getUserUrl and getPortalUrl describe the signed-in user and portal', async () => {
      const u = await newUser('org_publisher');
      const me = await getUser({ authentication: u.auth });
      expect(me).toMatchObject({ username: u.username, role: 'org_publisher', provider: 'arcgis', access: 'org', tags: [] });
      // Signing in stamped lastLogin.
      expect(me.lastLogin).toBeGreaterThan(Date.now() - 60_000);
      expect(getUserUrl(u.auth)).toBe(`${t.base}/community/users/${u.username}`);
      expect(getPortalUrl({ authentication: u.auth })).toBe(t.base);
      const self = await getSelf({ authentication: u.auth });
      expect(self).toMatchObject({ id: me.orgId, isPortal: true, user: { username: u.username } });
    });

    it('updateUser changes the profile fields and getUser reads them back; clearEmptyFields clears', async () => {
      const u = await newUser();
      const r = await updateUser({
        authentication: u.auth,
        user: {
          fullName: 'Ada Lovelace',
          description: 'first programmer',
          tags: ['math', 'engines'],
          culture: 'en-GB',
          region: 'GB',
          units: 'metric',
          preferredView: 'GIS',
        },
      });
      expect(r).toEqual({ success: true, username: u.username });
      expect(await getUser({ username: u.username, authentication: u.auth })).toMatchObject({
        fullName: 'Ada Lovelace',
        description: 'first programmer',
        tags: ['math', 'engines'],
        culture: 'en-GB',
        region: 'GB',
        units: 'metric',
        preferredView: 'GIS',
      });

      // Blank values change nothing unless clearEmptyFields is true.
      await updateUser({ authentication: u.auth, user: { description: '' } });
      expect((await getUser({ authentication: u.auth })).description).toBe('first programmer');
      await updateUser({ authentication: u.auth, user: { description: '', tags: [] }, params: { clearEmptyFields: true } });
      const cleared = await getUser({ authentication: u.auth });
      expect(cleared.description).toBe('');
      expect(cleared.tags).toEqual([]);
    });

    it('updateUser stores a thumbnail file, served at community/users/<u>/info/<name>; a new one replaces it', async () => {
      const u = await newUser();
      await updateUser({ authentication: u.auth, user: { thumbnail: new File([PNG], 'me.png', { type: 'image/png' }) as never } });
      const me = await getUser({ authentication: u.auth });
      expect(me.thumbnail).toBe('me.png');
      const res = await fetch(`${t.base}/community/users/${u.username}/info/me.png?token=${u.token}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);

      // Not an image: refused, and the stored thumbnail stays.
      const err = await caught(() =>
        updateUser({ authentication: u.auth, user: { thumbnail: new File(['<html>'], 'x.png', { type: 'image/png' }) as never } }),
      );
      expect(err).toBeInstanceOf(ArcGISRequestError);
      expect(err.message).toContain('Invalid thumbnail');
      expect((await getUser({ authentication: u.auth })).thumbnail).toBe('me.png');

      await updateUser({ authentication: u.auth, user: { thumbnail: new File([PNG], 'again.png', { type: 'image/png' }) as never } });
      expect((await getUser({ authentication: u.auth })).thumbnail).toBe('again.png');
      const old = (await (await fetch(`${t.base}/community/users/${u.username}/info/me.png?f=json&token=${u.token}`)).json()) as {
        error?: unknown;
      };
      expect(old.error).toMatchObject({ code: 400 });
    });

    it('lets an administrator update another user, and refuses a user updating someone else', async () => {
      const u = await newUser();
      const other = await newUser();
      expect(await updateUser({ authentication: admin, user: { username: u.username, description: 'set by admin' } })).toEqual({
        success: true,
        username: u.username,
      });
      expect((await getUser({ username: u.username, authentication: u.auth })).description).toBe('set by admin');

      const err = await caught(() => updateUser({ authentication: other.auth, user: { username: u.username, description: 'hijack' } }));
      expect(err).toBeInstanceOf(ArcGISRequestError);
      expect(err.code).toBe('GWM_0003');
      expect((await getUser({ username: u.username, authentication: u.auth })).description).toBe('set by admin');
    });

    it("getUserTags counts the tags of the user's items", async () => {
      const u = await newUser('org_publisher');
      for (const tags of [['parks', 'trees'], ['parks'], ['Parks', 'water']]) {
        await createItem({ item: { title: uniq('item'), type: 'Web Map', tags }, text: '{}', authentication: u.auth });
      }
      const r = await getUserTags({ authentication: u.auth });
      expect(r.tags).toEqual([
        { tag: 'parks', count: 2 },
        { tag: 'Parks', count: 1 },
        { tag: 'trees', count: 1 },
        { tag: 'water', count: 1 },
      ]);
    });

    it('setUserProperties merges app settings that getUserProperties reads back', async () => {
      const u = await newUser();
      // Nothing set: the library fills in mapViewer itself.
      expect(await getUserProperties(u.username, { authentication: u.auth })).toEqual({ mapViewer: 'modern' });
      expect(
        await setUserProperties(
          u.username,
          { mapViewer: 'classic', landingPage: { url: 'https://example.com/' } },
          { authentication: u.auth },
        ),
      ).toEqual({
        success: true,
      });
      await setUserProperties(u.username, { theme: 'dark' } as never, { authentication: u.auth });
      expect(await getUserProperties(u.username, { authentication: u.auth })).toEqual({
        mapViewer: 'classic',
        landingPage: { url: 'https://example.com/' },
        theme: 'dark',
      });
      const other = await newUser();
      const err = await caught(() => setUserProperties(u.username, { mapViewer: 'modern' } as never, { authentication: other.auth }));
      expect(err.message).toContain('Failed to set user properties');
      expect((await getUserProperties(u.username, { authentication: u.auth })).mapViewer).toBe('classic');
    });
  });

  describe('user search', () => {
    let marker: string;
    let alice: Awaited<ReturnType<typeof newUser>>;
    let bob: Awaited<ReturnType<typeof newUser>>;
    let hidden: Awaited<ReturnType<typeof newUser>>;
    /** A user of a second organisation, made in SQL: the API has no route that creates organisations. */
    let outsider: ArcGISIdentityManager;

    beforeAll(async () => {
      marker = `m${randomBytes(3).toString('hex')}`;
      alice = await newUser('org_publisher');
      bob = await newUser();
      hidden = await newUser();
      await updateUser({ authentication: alice.auth, user: { fullName: `Alice ${marker}`, access: 'public' } });
      await updateUser({ authentication: bob.auth, user: { fullName: `Bob ${marker}` } });
      await updateUser({ authentication: hidden.auth, user: { fullName: `Hidden ${marker}`, access: 'private' } });

      const orgId = randomBytes(16).toString('hex');
      await t.db.query(`INSERT INTO orgs (id, name, url_key) VALUES ($1, 'Other', $2)`, [orgId, uniq('other')]);
      const name = uniq('outsider');
      await t.db.query(`INSERT INTO users (id, username, org_id, role, password_hash) VALUES ($1, $2, $3, 'org_user', $4)`, [
        randomBytes(16).toString('hex'),
        name,
        orgId,
        await hashPassword('outsider-password'),
      ]);
      outsider = await signIn(name, 'outsider-password');
    });

    const names = (r: { results: { username?: string }[] }) => r.results.map((u) => u.username).sort();

    it('searchUsers lists the organisation with role, privileges, provider, lastLogin and disabled', async () => {
      const r = await searchUsers({ q: marker, authentication: admin, sortField: 'fullname', sortOrder: 'desc' });
      expect(r.total).toBe(3);
      expect(r.results.map((u) => u.username)).toEqual([hidden.username, bob.username, alice.username]);
      expect(r.results[2]).toMatchObject({
        username: alice.username,
        fullName: `Alice ${marker}`,
        role: 'org_publisher',
        provider: 'arcgis',
        disabled: false,
        access: 'public',
        email: expect.any(String),
      });
      expect(r.results[2].privileges).toContain('portal:publisher:publishFeatures');
      expect(r.results[2].lastLogin).toBeGreaterThan(0);

      // Paging through nextPage, as the library offers it.
      const first = await searchUsers({ q: marker, authentication: admin, num: 2 });
      expect(first).toMatchObject({ total: 3, start: 1, num: 2, nextStart: 3 });
      const second = await first.nextPage!();
      expect(second).toMatchObject({ start: 3, nextStart: -1 });
      expect([...first.results, ...second.results].map((u) => u.username).sort()).toEqual(
        [alice.username, bob.username, hidden.username].sort(),
      );
    });

    it('searchUsers takes a SearchQueryBuilder, field terms and ranges', async () => {
      const q = new SearchQueryBuilder().match(bob.username).in('username');
      expect(names(await searchUsers({ q, authentication: admin }))).toEqual([bob.username]);
      expect(names(await searchUsers({ q: `fullname:${marker} AND role:org_publisher`, authentication: admin }))).toEqual([alice.username]);
      expect(names(await searchUsers({ q: `${marker} AND created:[0 TO ${Date.now() + 60_000}]`, authentication: admin }))).toHaveLength(3);
      const err = await caught(() => searchUsers({ q: 'colour:red', authentication: admin }));
      expect(err.message).toContain("Invalid value for parameter 'q'");
    });

    it('searchUsers is for administrators only', async () => {
      const err = await caught(() => searchUsers({ q: marker, authentication: bob.auth }));
      expect(err).toBeInstanceOf(ArcGISRequestError);
      expect(err.code).toBe('GWM_0003');
    });

    it('searchCommunityUsers honours access: private for the user and admins, org for the org, public for all', async () => {
      expect(names(await searchCommunityUsers({ q: marker, authentication: bob.auth }))).toEqual([alice.username, bob.username].sort());
      expect(names(await searchCommunityUsers({ q: marker, authentication: hidden.auth }))).toEqual(
        [alice.username, bob.username, hidden.username].sort(),
      );
      expect(names(await searchCommunityUsers({ q: marker, authentication: admin }))).toHaveLength(3);
      expect(names(await searchCommunityUsers({ q: marker, authentication: outsider }))).toEqual([alice.username]);
      // The community view has no email or role.
      const [a] = (await searchCommunityUsers({ q: `username:${alice.username}`, authentication: outsider })).results;
      expect(a).toMatchObject({ username: alice.username, fullName: `Alice ${marker}`, access: 'public' });
      expect(a.email).toBeUndefined();
      expect(a.role).toBeUndefined();
      // getUser follows the same rule.
      expect((await getUser({ username: alice.username, authentication: outsider })).username).toBe(alice.username);
      expect((await caught(() => getUser({ username: bob.username, authentication: outsider }))).code).toBe('COM_0019');
      expect((await caught(() => getUser({ username: hidden.username, authentication: bob.auth }))).code).toBe('COM_0019');
    });
  });

  describe('the organisation', () => {
    it('getPortal(id) answers as portals/self for the own organisation and refuses another id', async () => {
      const self = await getSelf({ authentication: admin });
      const byId = await getPortal(self.id, { authentication: admin });
      expect(byId).toEqual(self);
      const err = await caught(() => getPortal(randomBytes(16).toString('hex'), { authentication: admin }));
      expect(err).toBeInstanceOf(ArcGISRequestError);
      expect(err.message).toContain('Portal does not exist or is inaccessible.');
    });

    it("getSubscriptionInfo answers the subscription of the caller's organisation, to its members only", async () => {
      const u = await newUser();
      const self = await getSelf({ authentication: u.auth });
      const info = await getSubscriptionInfo(undefined, { authentication: u.auth });
      expect(info).toEqual({ id: self.id, type: 'In House', state: 'active', companionOrganizations: [] });
      expect(await getSubscriptionInfo(self.id, { authentication: admin })).toEqual(info);
      const elsewhere = await caught(() => getSubscriptionInfo(randomBytes(16).toString('hex'), { authentication: u.auth }));
      expect(elsewhere.message).toContain('Portal does not exist or is inaccessible.');
      expect((await caught(() => getSubscriptionInfo(undefined, { portal: t.base }))).message).toContain('Token Required');
    });

    it('getPortalSettings reads the settings an administrator updates', async () => {
      const before = await getPortalSettings(undefined, { authentication: admin });
      expect(before).toMatchObject({ allowedRedirectUris: [], helperServices: {}, defaultExtent: { spatialReference: { wkid: 102100 } } });
      const banner = { text: 'Maintenance tonight', bgColor: '#ffcc00', fontColor: 'black', enabled: true };
      const r = await request(`${t.base}/portals/self/settings/update`, {
        params: { informationalBanner: banner },
        authentication: admin,
      });
      expect(r).toEqual({ success: true });
      const u = await newUser();
      expect((await getPortalSettings(undefined, { authentication: u.auth })).informationalBanner).toEqual(banner);
      const err = await caught(() =>
        request(`${t.base}/portals/self/settings/update`, { params: { informationalBanner: banner }, authentication: u.auth }),
      );
      expect(err.code).toBe('GWM_0003');
    });

    it("isServiceNameAvailable and getUniqueServiceName follow createService's name rule", async () => {
      const owner = await newUser('org_publisher');
      const name = uniq('svc');
      expect(await isServiceNameAvailable(name, 'Feature Service', owner.auth)).toEqual({ available: true });
      const created = await post(
        t.base,
        `content/users/${owner.username}/createService`,
        { createParameters: JSON.stringify({ name }), outputType: 'featureService' },
        owner.token,
      );
      expect(created.body).toMatchObject({ success: true, name });
      expect(await isServiceNameAvailable(name, 'Feature Service', owner.auth)).toEqual({ available: false });
      // Names are unique regardless of case, as createService checks them.
      expect(await isServiceNameAvailable(name.toUpperCase(), 'Feature Service', owner.auth)).toEqual({ available: false });
      expect(await getUniqueServiceName(name, 'Feature Service', owner.auth, 0)).toBe(`${name}_1`);
      const err = await caught(() => isServiceNameAvailable('has space', 'Feature Service', owner.auth));
      expect(err.message).toContain('Invalid service name.');
    });
  });

  describe('notifications', () => {
    it('createGroupNotification reaches the members; getUserNotifications lists it and removeNotification removes it', async () => {
      const owner = await newUser();
      const member = await newUser();
      const outsider = await newUser();
      const { group } = await createGroup({ group: { title: uniq('notified'), access: 'private' }, authentication: owner.auth });
      await addUsers(t.base, owner.token, group.id, [member.username]);

      const r = await createGroupNotification({
        id: group.id,
        subject: 'Field day',
        message: 'Bring boots.',
        notificationChannelType: 'builtin',
        authentication: owner.auth,
      });
      expect(r).toEqual({ success: true });
      const { notifications } = await getUserNotifications({ authentication: member.auth });
      expect(notifications).toHaveLength(1);
      expect(notifications[0]).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        type: 'builtin',
        target: member.username,
        targetType: 'user',
        received: expect.any(Number),
        data: { subject: 'Field day', message: 'Bring boots.', groupId: group.id, sender: owner.username },
      });
      expect((await getUserNotifications({ authentication: outsider.auth })).notifications).toEqual([]);

      expect(await removeNotification({ id: notifications[0].id, authentication: member.auth })).toEqual({
        success: true,
        notificationId: notifications[0].id,
      });
      expect((await getUserNotifications({ authentication: member.auth })).notifications).toEqual([]);
    });

    it('createGroupNotification refuses email (the library default) and non-managers', async () => {
      const owner = await newUser();
      const member = await newUser();
      const { group } = await createGroup({ group: { title: uniq('notified'), access: 'org' }, authentication: owner.auth });
      await addUsers(t.base, owner.token, group.id, [member.username]);
      const email = await caught(() => createGroupNotification({ id: group.id, subject: 's', message: 'm', authentication: owner.auth }));
      expect(email).toBeInstanceOf(ArcGISRequestError);
      expect(email.message).toContain('notificationChannelType');
      const byMember = await caught(() =>
        createGroupNotification({ id: group.id, message: 'm', notificationChannelType: 'builtin', authentication: member.auth }),
      );
      expect(byMember.code).toBe('GWM_0003');
      expect((await getUserNotifications({ authentication: member.auth })).notifications).toEqual([]);
    });

    it('createOrgNotification sends in batches to the users named, for administrators', async () => {
      const users = await Promise.all([newUser(), newUser(), newUser()]);
      const r = await createOrgNotification({
        users: users.map((u) => u.username),
        subject: 'Welcome',
        message: 'Read the guide.',
        notificationChannelType: 'builtin',
        batchSize: 2,
        authentication: admin,
      });
      expect(r).toEqual({ success: true });
      for (const u of users) {
        const { notifications } = await getUserNotifications({ authentication: u.auth });
        expect(notifications.map((n) => n.data)).toEqual([
          { subject: 'Welcome', message: 'Read the guide.', orgId: expect.any(String), sender: ADMIN.username },
        ]);
      }
      // The library reports a refused batch in errors rather than rejecting.
      const refused = await createOrgNotification({
        users: [users[1].username],
        message: 'x',
        notificationChannelType: 'builtin',
        authentication: users[0].auth,
      });
      expect(refused.success).toBe(false);
      expect(refused.errors?.[0]).toBeInstanceOf(ArcGISRequestError);
      const [{ n }] = await t.db.query(
        'SELECT count(*)::int AS n FROM notifications n JOIN users u ON u.id = n.user_id WHERE u.username = $1',
        [users[1].username],
      );
      expect(n).toBe(1);
    });
  });
});
