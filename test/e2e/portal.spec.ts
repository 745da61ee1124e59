import { startApp, ADMIN } from '../support/app';
import { addItem, addUsers, createGroup, createUser, get, post, tokenFor } from '../support/client';
import { withApp } from '../support/harness';

describe('portal: identity, content and groups', () => {
  const t = withApp({ users: { alice: 'org_publisher', bob: 'org_user' } });
  const { alice, bob } = t.users;

  describe('tokens', () => {
    it('answers generateToken with a numeric expiry honouring expiration minutes', async () => {
      const before = Date.now();
      const r = await post(t.base, 'generateToken', {
        username: alice.username,
        password: alice.password,
        client: 'referer',
        referer: '@esri/arcgis-rest-js',
        expiration: 5,
      });
      expect(typeof r.body.token).toBe('string');
      expect(typeof r.body.expires).toBe('number');
      expect(r.body.expires).toBeGreaterThanOrEqual(before + 5 * 60_000 - 1000);
      expect(r.body.expires).toBeLessThanOrEqual(Date.now() + 5 * 60_000 + 1000);
      expect(r.body.ssl).toBe(false);
    });

    it('refuses wrong passwords, wrong case in the user name and missing referer', async () => {
      const wrong = await post(t.base, 'generateToken', { username: alice.username, password: 'nope', client: 'requestip' });
      expect(wrong.body).toEqual({
        error: { code: 400, message: 'Unable to generate token.', details: ['Invalid username or password.'] },
      });
      const upper = await post(t.base, 'generateToken', { username: alice.username.toUpperCase(), password: alice.password });
      expect(upper.body.error.code).toBe(400);
      const noReferer = await post(t.base, 'generateToken', { username: alice.username, password: alice.password, client: 'referer' });
      expect(noReferer.body.error.details[0]).toContain("'referer'");
    });

    it('stores only a hash of the token', async () => {
      const rows = await t.db.query(`SELECT encode(token_hash, 'hex') AS h FROM tokens`);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.some((r: { h: string }) => r.h.includes(Buffer.from(alice.token).toString('hex')))).toBe(false);
    });

    it('accepts the token as a parameter and as either Bearer header', async () => {
      for (const headers of [{ Authorization: `Bearer ${bob.token}` }, { 'X-Esri-Authorization': `Bearer ${bob.token}` }] as Record<
        string,
        string
      >[]) {
        const r = await fetch(`${t.base}/community/self?f=json`, { headers });
        expect(((await r.json()) as { username: string }).username).toBe(bob.username);
      }
      expect((await get(t.base, 'community/self', {}, bob.token)).body.username).toBe(bob.username);
    });

    it('rejects expired and revoked tokens with 498', async () => {
      const token = await tokenFor(t.base, bob.username, bob.password);
      await t.db.query(`UPDATE tokens SET expires_at = now() - interval '1 second' WHERE created = (SELECT max(created) FROM tokens)`);
      expect((await get(t.base, 'community/self', {}, token)).body.error.code).toBe(498);
      const fresh = await tokenFor(t.base, bob.username, bob.password);
      expect((await post(t.base, 'oauth2/revokeToken', { auth_token: fresh }, fresh)).body).toEqual({ success: true });
      expect((await get(t.base, 'community/self', {}, fresh)).body.error).toMatchObject({ code: 498, message: 'Invalid token.' });
    });

    it('asks for a token with 499 where one is required', async () => {
      expect((await get(t.base, 'community/self')).body.error).toMatchObject({ code: 499, messageCode: 'GWM_0003' });
    });
  });

  describe('users and portal', () => {
    it('describes the caller in community/self with role, orgId and group memberships', async () => {
      const g = await createGroup(t.base, alice.token);
      const self = (await get(t.base, 'community/self', {}, alice.token)).body;
      expect(self).toMatchObject({ username: alice.username, role: 'org_publisher', favGroupId: null });
      expect(self.roleId).toBeUndefined();
      expect(self.groups).toContainEqual(
        expect.objectContaining({ id: g, userMembership: expect.objectContaining({ memberType: 'owner' }) }),
      );
      expect(self.privileges).toContain('portal:user:shareToGroup');
    });

    it('shows other users a public profile and the full one to admins', async () => {
      const asBob = (await get(t.base, `community/users/${alice.username}`, {}, bob.token)).body;
      expect(asBob.orgId).toBeDefined();
      expect(asBob.email).toBeUndefined();
      expect(asBob.groups).toBeUndefined();
      const asAdmin = (await get(t.base, `community/users/${alice.username}`, {}, t.admin)).body;
      expect(asAdmin.role).toBe('org_publisher');
      expect((await get(t.base, `community/users/${alice.username}`)).body.error.messageCode).toBe('COM_0019');
    });

    it('answers portals/self anonymously and with the user when signed in', async () => {
      const anon = (await get(t.base, 'portals/self')).body;
      expect(anon).toMatchObject({ isPortal: true, authorizedCrossOriginDomains: [] });
      expect(anon.user).toBeUndefined();
      expect(anon.authorizedCrossOriginNoCorsDomains).toBeUndefined();
      expect((await get(t.base, 'portals/self', {}, alice.token)).body.user.username).toBe(alice.username);
    });

    it('never lets a role grant privileges its holder lacks', async () => {
      const role = (await post(t.base, 'portals/self/createRole', { name: `managers_${Date.now()}` }, t.admin)).body;
      await post(
        t.base,
        `portals/self/roles/${role.id}/setPrivileges`,
        { privileges: JSON.stringify({ privileges: ['portal:admin:manageUsers', 'portal:user:createItem'] }) },
        t.admin,
      );
      const manager = await createUser(t.base, t.admin, role.id);
      const self = await post(t.base, 'portals/self/updateUserRole', { user: manager.username, role: 'org_admin' }, manager.token);
      expect(self.body.error).toMatchObject({ code: 403 });
      expect(self.body.error.details[0]).toContain('cannot grant privileges you do not hold');
      const viaCreate = await post(
        t.root,
        'portaladmin/security/users/createUser',
        { username: `boss_${Date.now()}`, password: 'longenough', role: 'org_admin' },
        manager.token,
      );
      expect(viaCreate.body.error.code).toBe(403);
      const plain = await post(
        t.root,
        'portaladmin/security/users/createUser',
        { username: `plain_${Date.now()}`, password: 'longenough', role: role.id },
        manager.token,
      );
      expect(plain.body.status).toBe('success');
    });

    it('lets only administrators create users, and refuses duplicates', async () => {
      const r = await post(t.root, 'portaladmin/security/users/createUser', { username: 'x_by_bob', password: 'longenough' }, bob.token);
      expect(r.body.error.code).toBe(403);
      const dup = await post(
        t.root,
        'portaladmin/security/users/createUser',
        { username: ADMIN.username.toUpperCase(), password: 'longenough' },
        t.admin,
      );
      expect(dup.body.error.details[0]).toContain('already taken');
    });
  });

  describe('items', () => {
    it('adds a JSON item, reads it back and serves its data', async () => {
      const id = await addItem(t.base, alice.username, alice.token, {
        title: 'Parks',
        type: 'Web Map',
        tags: 'a,b',
        text: '{"x":1}',
        extent: '-10,-5,10,5',
      });
      const item = (await get(t.base, `content/items/${id}`, {}, alice.token)).body;
      expect(item).toMatchObject({
        id,
        owner: alice.username,
        title: 'Parks',
        type: 'Web Map',
        tags: ['a', 'b'],
        access: 'private',
        extent: [
          [-10, -5],
          [10, 5],
        ],
        size: 7,
      });
      expect(typeof item.created).toBe('number');
      const data = await fetch(`${t.base}/content/items/${id}/data?f=json&token=${alice.token}`);
      expect(await data.json()).toEqual({ x: 1 });
    });

    it('stores a multipart upload and streams it back with type and file name', async () => {
      const form = new FormData();
      form.set('title', 'Trees');
      form.set('type', 'CSV');
      form.set('f', 'json');
      form.set('token', alice.token);
      form.set('file', new Blob(['id,name\n1,oak\n'], { type: 'text/csv' }), 'trées.csv');
      const added = (await (await fetch(`${t.base}/content/users/${alice.username}/addItem`, { method: 'POST', body: form })).json()) as {
        id: string;
      };
      expect(added).toMatchObject({ success: true, folder: null });
      const res = await fetch(`${t.base}/content/items/${added.id}/data?token=${alice.token}`);
      expect(res.headers.get('content-type')).toContain('text/csv');
      expect(res.headers.get('content-disposition')).toContain("filename*=UTF-8''tr%C3%A9es.csv");
      expect(await res.text()).toBe('id,name\n1,oak\n');
      const del = await post(t.base, `content/users/${alice.username}/items/${added.id}/delete`, {}, alice.token);
      expect(del.body).toEqual({ success: true, itemId: added.id });
      expect((await get(t.base, `content/items/${added.id}`, {}, alice.token)).body.error.messageCode).toBe('CONT_0001');
    });

    it('answers Range requests so a large download can resume, and revalidates with its ETag', async () => {
      const body = Buffer.from(Array.from({ length: 5000 }, (_, i) => `row ${i}\n`).join(''));
      const form = new FormData();
      for (const [k, v] of Object.entries({ title: 'Rows', type: 'CSV', f: 'json', token: alice.token })) form.set(k, v);
      form.set('file', new Blob([body], { type: 'text/csv' }), 'rows.csv');
      const { id } = (await (await fetch(`${t.base}/content/users/${alice.username}/addItem`, { method: 'POST', body: form })).json()) as {
        id: string;
      };
      const url = `${t.base}/content/items/${id}/data?token=${alice.token}`;
      const whole = await fetch(url);
      expect(whole.status).toBe(200);
      expect(whole.headers.get('accept-ranges')).toBe('bytes');
      expect(whole.headers.get('content-length')).toBe(String(body.length));
      expect(whole.headers.get('cache-control')).toBe('private, no-store');
      const etag = whole.headers.get('etag');
      expect(etag).toBeTruthy();
      expect(Buffer.from(await whole.arrayBuffer()).equals(body)).toBe(true);

      // Resume after the first 1,000 bytes, as download managers do: If-Range with the ETag they saw.
      const rest = await fetch(url, { headers: { Range: 'bytes=1000-', 'If-Range': etag! } });
      expect(rest.status).toBe(206);
      expect(rest.headers.get('content-range')).toBe(`bytes 1000-${body.length - 1}/${body.length}`);
      expect(rest.headers.get('content-length')).toBe(String(body.length - 1000));
      expect(Buffer.from(await rest.arrayBuffer()).equals(body.subarray(1000))).toBe(true);
      // A stale validator gets the whole file again instead of a mismatched piece.
      expect((await fetch(url, { headers: { Range: 'bytes=1000-', 'If-Range': '"other"' } })).status).toBe(200);
      // fetch adds 'Cache-Control: no-cache' to conditional requests unless one is given, which would force a 200.
      expect((await fetch(url, { headers: { 'If-None-Match': etag!, 'Cache-Control': 'max-age=0' } })).status).toBe(304);
      const past = await fetch(url, { headers: { Range: `bytes=${body.length + 10}-` } });
      expect(past.status).toBe(416);
      expect(past.headers.get('content-range')).toBe(`bytes */${body.length}`);
      // Nobody else gets a byte, ranged or not.
      const other = await fetch(`${t.base}/content/items/${id}/data?token=${bob.token}`, { headers: { Range: 'bytes=0-10' } });
      expect(((await other.json()) as { error: { messageCode: string } }).error.messageCode).toBe('CONT_0001');
    });

    it('requires type and title', async () => {
      const r = await post(t.base, `content/users/${alice.username}/addItem`, { title: 'x' }, alice.token);
      expect(r.body.error).toMatchObject({ code: 400, message: 'Invalid or missing input parameters.' });
      expect(r.body.error.details).toContain("'type' and 'title' property required.");
    });

    it('hides private items from others and lets admins delete them', async () => {
      const id = await addItem(t.base, alice.username, alice.token);
      expect((await get(t.base, `content/items/${id}`, {}, bob.token)).body.error.messageCode).toBe('CONT_0001');
      expect((await get(t.base, `content/items/${id}`)).body.error.messageCode).toBe('CONT_0001');
      const byBob = await post(t.base, `content/users/${alice.username}/items/${id}/delete`, {}, bob.token);
      expect(byBob.body.error.messageCode).toBe('CONT_0001');
      expect((await post(t.base, `content/users/${alice.username}/items/${id}/delete`, {}, t.admin)).body.success).toBe(true);
    });

    it('reports the item status', async () => {
      const id = await addItem(t.base, alice.username, alice.token);
      const r = await post(t.base, `content/users/${alice.username}/items/${id}/status`, {}, alice.token);
      expect(r.body).toEqual({ status: 'completed', statusMessage: 'completed', itemId: id });
    });

    it('lists the user content to the owner and admins only', async () => {
      for (let i = 0; i < 3; i++) await addItem(t.base, alice.username, alice.token);
      const r = await get(t.base, `content/users/${alice.username}`, { start: 1, num: 2 }, alice.token);
      expect(r.body).toMatchObject({ username: alice.username, start: 1, num: 2, currentFolder: null, folders: [] });
      expect(r.body.items).toHaveLength(2);
      expect(r.body.nextStart).toBe(3);
      expect((await get(t.base, `content/users/${alice.username}`, {}, bob.token)).body.error.code).toBe(403);
    });
  });

  describe('search', () => {
    it('finds items by id and group, only when visible to the caller', async () => {
      const g = await createGroup(t.base, alice.token);
      await addUsers(t.base, alice.token, g, [bob.username]);
      const id = await addItem(t.base, alice.username, alice.token, { type: 'Feature Service' });
      const q = `id: ${id} AND group: ${g}`;
      expect((await post(t.base, 'search', { q, num: 10, start: 1, sortField: 'title' }, alice.token)).body).toMatchObject({
        total: 0,
        results: [],
        nextStart: -1,
      });
      await post(t.base, `content/users/${alice.username}/items/${id}/share`, { groups: g }, alice.token);
      const asBob = (await post(t.base, 'search', { q }, bob.token)).body;
      expect(asBob.total).toBe(1);
      expect(asBob.results[0].id).toBe(id);
      expect((await post(t.base, 'search', { q })).body.total).toBe(0);
      const byType = (await get(t.base, 'search', { q: `owner: ${alice.username} AND type: "feature service"` }, alice.token)).body;
      expect(byType.results.map((r: { id: string }) => r.id)).toContain(id);
    });
  });

  describe('groups', () => {
    it('creates a group, reports membership per caller and manages members', async () => {
      const created = (
        await post(
          t.base,
          'community/createGroup',
          { title: 'Field crews', access: 'private', tags: 'x,y', isViewOnly: 'true' },
          alice.token,
        )
      ).body;
      expect(created).toMatchObject({
        success: true,
        group: { title: 'Field crews', access: 'private', tags: ['x', 'y'], isViewOnly: true, owner: alice.username },
      });
      const id = created.group.id;
      expect((await get(t.base, `community/groups/${id}`, {}, bob.token)).body.error.messageCode).toBe('COM_0003');
      expect((await post(t.base, `community/groups/${id}/addUsers`, { users: `${bob.username},ghost_user` }, alice.token)).body).toEqual({
        notAdded: ['ghost_user'],
      });
      expect((await get(t.base, `community/groups/${id}`, {}, bob.token)).body.userMembership.memberType).toBe('member');
      expect((await post(t.base, `community/groups/${id}/updateUsers`, { admins: bob.username }, alice.token)).body).toEqual({
        results: [{ username: bob.username, success: true }],
      });
      expect((await get(t.base, `community/groups/${id}`, {}, bob.token)).body.userMembership.memberType).toBe('admin');
      // A manager may add members but not make managers: that is the owner's call.
      expect((await post(t.base, `community/groups/${id}/addUsers`, { admins: alice.username }, bob.token)).body.error.code).toBe(403);
      expect(
        (await post(t.base, `community/groups/${id}/removeUsers`, { users: `${alice.username},${bob.username}` }, alice.token)).body,
      ).toEqual({ notRemoved: [alice.username] });
      expect((await get(t.base, `community/groups/${id}`, {}, bob.token)).body.error.code).toBe(400);
    });

    it('lists group content visible to the caller', async () => {
      const g = await createGroup(t.base, alice.token, { access: 'private' });
      const id = await addItem(t.base, alice.username, alice.token);
      await post(t.base, `content/users/${alice.username}/items/${id}/share`, { groups: g }, alice.token);
      const r = (await get(t.base, `content/groups/${g}`, { start: 1, num: 100 }, alice.token)).body;
      expect(r).toMatchObject({ total: 1, start: 1, num: 100, nextStart: -1 });
      expect(r.items[0].id).toBe(id);
      expect((await get(t.base, `content/groups/${g}`, {}, bob.token)).body.error.messageCode).toBe('COM_0003');
      // Searching the group's content needs the group to be visible, like listing it.
      expect((await get(t.base, `content/groups/${g}/search`, { q: 'title: *' }, alice.token)).body.total).toBe(1);
      expect((await get(t.base, `content/groups/${g}/search`, { q: 'title: *' }, bob.token)).body.error.messageCode).toBe('COM_0003');
    });
  });

  describe('per-item share and unshare', () => {
    it('sets access through everyone/org and always answers notSharedWith', async () => {
      const id = await addItem(t.base, alice.username, alice.token);
      const share = (p: Record<string, string>) => post(t.base, `content/users/${alice.username}/items/${id}/share`, p, alice.token);
      const access = async () => (await get(t.base, `content/items/${id}`, {}, alice.token)).body.access;
      expect((await share({ org: 'true', everyone: 'false' })).body).toEqual({ notSharedWith: [], itemId: id });
      expect(await access()).toBe('org');
      await share({ account: 'true', everyone: 'true' });
      expect(await access()).toBe('public');
      expect((await get(t.base, `content/items/${id}`)).body.id).toBe(id);
      await share({ org: 'false', everyone: 'false', groups: ' ' });
      expect(await access()).toBe('private');
    });

    it('refuses to share into a group the owner is not a member of', async () => {
      const g = await createGroup(t.base, bob.token);
      const id = await addItem(t.base, alice.username, alice.token);
      const r = await post(t.base, `content/users/${alice.username}/items/${id}/share`, { groups: g }, alice.token);
      expect(r.body).toEqual({ notSharedWith: [g], itemId: id });
    });

    it('lets a group admin share an org item and unshare it through content/items/<id>', async () => {
      const g = await createGroup(t.base, bob.token);
      const id = await addItem(t.base, alice.username, alice.token);
      await post(t.base, `content/users/${alice.username}/items/${id}/share`, { org: 'true' }, alice.token);
      expect((await post(t.base, `content/items/${id}/share`, { groups: g }, bob.token)).body).toEqual({ notSharedWith: [], itemId: id });
      expect((await post(t.base, `content/items/${id}/unshare`, { groups: g }, bob.token)).body).toEqual({
        notUnsharedFrom: [],
        itemId: id,
      });
      expect((await post(t.base, `content/items/${'0'.repeat(32)}/unshare`, { groups: g }, bob.token)).body.error.messageCode).toBe(
        'CONT_0001',
      );
    });
  });
});

describe('deployment', () => {
  it('serves the API under CONTEXT_PATH', async () => {
    const t = await startApp({ CONTEXT_PATH: '/portal' });
    try {
      expect(t.base).toMatch(/\/portal\/sharing\/rest$/);
      expect((await get(t.base, 'portals/self')).body.isPortal).toBe(true);
      expect((await get(t.base.replace('/portal', ''), 'portals/self')).body.error.messageCode).toBe('GWM_0002');
      expect((await fetch(`${t.root}/health`)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('reports 503 with the failing dependency when Redis is down', async () => {
    const t = await startApp({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const res = await fetch(`${t.root}/health`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { details: Record<string, { status: string }> };
      expect(body.details.redis.status).toBe('down');
      expect(body.details.postgres.status).toBe('up');
    } finally {
      await t.close();
    }
  });
});
