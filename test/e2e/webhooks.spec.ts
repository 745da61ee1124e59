import { createHmac } from 'node:crypto';
import { ADMIN } from '../support/app';
import { addItem, createGroup, createUser, get, post } from '../support/client';
import { withApp } from '../support/harness';
import { clearWebhooks } from '../support/webhook-state';
import { Received, startReceiver } from '../support/receiver';
import { sampleService } from '../support/sample-service';
import { waitFor } from '../support/wait-for';
import { SharingRepository } from '../../src/sharing/sharing.repository';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The receiver's side of a signature check, as docs/api.md tells receivers to do it. */
function verifies(r: Received, secret: string): boolean {
  const expected = `sha256=${createHmac('sha256', secret).update(`${r.headers['x-webhook-timestamp']}.${r.body}`).digest('hex')}`;
  return r.headers['x-esrihook-signature'] === expected;
}

describe('organization webhooks', () => {
  const t = withApp({
    users: { owner: 'org_publisher', plain: 'org_user' },
    worker: true,
    env: { WEBHOOK_ALLOW: 'localhost', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_DISPATCH_MS: '100' },
  });
  const { owner, plain } = t.users;
  let rx: Receiver;
  let g1: string;
  let g2: string;
  const hooks = 'portals/self/webhooks';

  beforeAll(async () => {
    await clearWebhooks(t.db);
    rx = await startReceiver();
    g1 = await createGroup(t.base, owner.token);
    g2 = await createGroup(t.base, owner.token);
  });
  afterAll(() => rx.close());

  const create = (params: Record<string, string>, token = t.admin) =>
    post(t.base, `${hooks}/createWebhook`, { name: 'hook', url: `http://localhost:${rx.port}/hook`, ...params }, token);
  const share = (items: string[], groups: string[]) =>
    post(t.base, `content/users/${owner.username}/shareItems`, { items: items.join(','), groups: groups.join(',') }, owner.token);
  const unshare = (items: string[], groups: string[]) =>
    post(t.base, `content/users/${owner.username}/unshareItems`, { items: items.join(','), groups: groups.join(',') }, owner.token);
  const eventsAbout = (id: string) => rx.events().filter((r) => JSON.stringify(r.json.events).includes(id));

  it('creates a webhook after calling its payload URL once, and shows it with Enterprise field names', async () => {
    const before = rx.received.length;
    const r = await create({ events: '["/items/share","/items/unshare"]', secret: 's3cret', config: '{"properties":{"X-Extra":"1"}}' });
    expect(r.body).toMatchObject({ success: true, id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(rx.received.length).toBe(before + 1);
    expect(rx.received[before].json).toMatchObject({ info: { webhookId: r.body.id, webhookName: 'hook' }, events: [] });
    const one = await get(t.base, `${hooks}/${r.body.id}`, {}, t.admin);
    expect(one.body).toMatchObject({
      id: r.body.id,
      name: 'hook',
      payloadUrl: `http://localhost:${rx.port}/hook`,
      events: ['/items/share', '/items/unshare'],
      isActive: true,
      secret: '********',
      config: { properties: { 'X-Extra': '1' } },
      created: expect.any(Number),
      modified: expect.any(Number),
    });
    const list = await get(t.base, hooks, { num: 1 }, t.admin);
    expect(list.body).toMatchObject({ total: 1, start: 1, num: 1, nextStart: -1, webhooks: [{ id: r.body.id }] });
    await post(t.base, `${hooks}/${r.body.id}/delete`, {}, t.admin);
  });

  it('refuses everyone but full administrators', async () => {
    for (const token of [owner.token, plain.token]) {
      expect((await create({ events: '/items' }, token)).body.error.code).toBe(403);
      expect((await get(t.base, hooks, {}, token)).body.error.code).toBe(403);
      expect((await get(t.base, `${hooks}/settings`, {}, token)).body.error.code).toBe(403);
    }
  });

  it('raises each item, group and user operation with its event URIs (changes=allChanges)', async () => {
    const id = (await create({ changes: 'allChanges' })).body.id;
    const mine = () =>
      rx
        .events()
        .filter((r) => r.json.info.webhookId === id)
        .map((r) => r.json.events[0]);
    const u = owner.username;
    const item = await addItem(t.base, u, owner.token);
    await post(t.base, `content/users/${u}/items/${item}/update`, { title: 'renamed' }, owner.token);
    await post(t.base, `content/users/${u}/items/${item}/protect`, {}, owner.token);
    await post(t.base, `content/users/${u}/items/${item}/unprotect`, {}, owner.token);
    const folder = (await post(t.base, `content/users/${u}/createFolder`, { title: 'hooks' }, owner.token)).body.folder.id;
    await post(t.base, `content/users/${u}/items/${item}/move`, { folder }, owner.token);
    await post(t.base, `content/users/${u}/items/${item}/delete`, {}, owner.token);
    const group = await createGroup(t.base, owner.token);
    await post(t.base, `community/groups/${group}/update`, { snippet: 'changed' }, owner.token);
    await post(t.base, `community/groups/${group}/addUsers`, { users: plain.username }, owner.token);
    await post(t.base, `community/groups/${group}/updateUsers`, { admins: plain.username }, owner.token);
    await post(t.base, `community/groups/${group}/removeUsers`, { users: plain.username }, owner.token);
    await post(t.base, `community/groups/${group}/protect`, {}, owner.token);
    await post(t.base, `community/groups/${group}/unprotect`, {}, owner.token);
    await post(t.base, `community/groups/${group}/delete`, {}, owner.token);
    const newUser = await createUser(t.base, t.admin);
    await post(t.base, `community/users/${newUser.username}/update`, { description: 'hi' }, newUser.token);
    const expected = [
      ['item', 'add', item],
      ['item', 'update', item],
      ['item', 'protect', item],
      ['item', 'unprotect', item],
      ['item', 'move', item],
      ['item', 'delete', item],
      ['group', 'add', group],
      ['group', 'update', group],
      ['group', 'addUsers', group],
      ['group', 'updateUsers', group],
      ['group', 'removeUsers', group],
      ['group', 'protect', group],
      ['group', 'unprotect', group],
      ['group', 'delete', group],
      ['user', 'add', newUser.username],
      ['user', 'update', newUser.username],
    ];
    await waitFor('every event', async () => mine().length >= expected.length, 20000);
    expect(mine().map((e) => [e.source, e.operation, e.id])).toEqual(expected);
    for (const e of mine())
      expect(Object.keys(e).sort()).toEqual(['id', 'operation', 'properties', 'source', 'userId', 'username', 'when']);
    expect(mine()[8].properties).toEqual({ users: [plain.username] });
    await post(t.base, `${hooks}/${id}/delete`, {}, t.admin);
  });

  it('matches a webhook to the events it names: one item, one operation', async () => {
    const a = await addItem(t.base, owner.username, owner.token);
    const b = await addItem(t.base, owner.username, owner.token);
    const id = (await create({ events: JSON.stringify([`/items/${a}/update`, '/groups/add']) })).body.id;
    await post(t.base, `content/users/${owner.username}/items/${b}/update`, { title: 'b' }, owner.token);
    await post(t.base, `content/users/${owner.username}/items/${a}/protect`, {}, owner.token);
    await post(t.base, `content/users/${owner.username}/items/${a}/update`, { title: 'a' }, owner.token);
    const group = await createGroup(t.base, owner.token);
    const mine = () =>
      rx
        .events()
        .filter((r) => r.json.info.webhookId === id)
        .map((r) => r.json.events[0]);
    await waitFor('two events', async () => mine().length >= 2, 20000);
    await new Promise((r) => setTimeout(r, 500));
    expect(mine().map((e) => [e.operation, e.id])).toEqual([
      ['update', a],
      ['add', group],
    ]);
    await post(t.base, `content/users/${owner.username}/items/${a}/unprotect`, {}, owner.token);
    await post(t.base, `${hooks}/${id}/delete`, {}, t.admin);
  });

  it('raises /items/<id>/export when an export job completes, from the worker', async () => {
    const service = await sampleService(t.base, owner);
    const id = (await create({ events: `/items/${service.itemId}/export` })).body.id;
    const r = await post(
      t.base,
      `content/users/${owner.username}/export`,
      { itemId: service.itemId, exportFormat: 'CSV', exportParameters: JSON.stringify({ layers: [{ id: 2 }] }) },
      owner.token,
    );
    expect(r.body.jobId).toBeDefined();
    const mine = () => rx.events().filter((x) => x.json.info.webhookId === id);
    await waitFor('the export event', async () => mine().length === 1, 60000);
    const e = mine()[0].json.events[0];
    expect(e).toMatchObject({ operation: 'export', source: 'item', id: service.itemId, username: owner.username });
    expect(e.properties).toMatchObject({
      jobId: r.body.jobId,
      jobType: 'export',
      status: 'completed',
      resultItemId: r.body.exportItemId,
      format: 'csv',
      size: expect.any(Number),
      url: expect.stringContaining(`/content/items/${r.body.exportItemId}/data`),
    });
    await post(t.base, `${hooks}/${id}/delete`, {}, t.admin);
  }, 90000);

  it('raises /items/reassign for a reassigned item and /items/<id>/publish when publishing ends', async () => {
    const id = (await create({ events: '/items/reassign,/items/publish' })).body.id;
    const mine = () =>
      rx
        .events()
        .filter((r) => r.json.info.webhookId === id)
        .map((r) => r.json.events[0]);
    const item = await addItem(t.base, owner.username, owner.token);
    const other = await createUser(t.base, t.admin, 'org_publisher');
    const moved = await post(t.base, `content/users/${owner.username}/items/${item}/reassign`, { targetUsername: other.username }, t.admin);
    expect(moved.body.success).toBe(true);

    const form = new FormData();
    for (const [k, v] of Object.entries({ title: 'pts', type: 'GeoJson', f: 'json', token: owner.token })) form.set(k, v);
    const point = { type: 'Feature', properties: { n: 1 }, geometry: { type: 'Point', coordinates: [1, 2] } };
    form.set('file', new Blob([JSON.stringify({ type: 'FeatureCollection', features: [point] })]), 'pts.geojson');
    const added = (await (await fetch(`${t.base}/content/users/${owner.username}/addItem`, { method: 'POST', body: form })).json()) as {
      id: string;
    };
    const published = await post(
      t.base,
      `content/users/${owner.username}/publish`,
      { itemId: added.id, filetype: 'geojson', publishParameters: JSON.stringify({ name: `hookpub_${Date.now()}` }) },
      owner.token,
    );
    const { jobId, serviceItemId } = published.body.services[0];

    await waitFor('both events', async () => mine().length >= 2, 60000);
    const [reassigned, publish] = mine();
    expect(reassigned).toMatchObject({ source: 'item', operation: 'reassign', id: item, username: ADMIN.username });
    expect(publish).toMatchObject({ source: 'item', operation: 'publish', id: added.id, username: owner.username });
    expect(publish.properties).toMatchObject({ jobId, jobType: 'publish', status: 'completed', resultItemId: serviceItemId });
    await post(t.base, `${hooks}/${id}/delete`, {}, t.admin);
  }, 90000);

  describe('delivery', () => {
    let id: string;
    beforeAll(async () => {
      id = (await create({ events: '/items/share,/items/unshare', secret: 's3cret', config: '{"properties":{"X-Extra":"1"}}' })).body.id;
    });
    afterAll(() => post(t.base, `${hooks}/${id}/delete`, {}, t.admin));

    it('delivers one signed event per unshareItems batch with each item outcome', async () => {
      const [a, b] = [await addItem(t.base, owner.username, owner.token), await addItem(t.base, owner.username, owner.token)];
      await share([a, b], [g1, g2]);
      const missing = 'f'.repeat(32);
      expect((await unshare([a, b, missing], [g1])).body.results).toHaveLength(3);
      await waitFor('the unshare delivery', async () => eventsAbout(b).some((r) => r.json.events[0].operation === 'unshare'), 20000);
      const got = eventsAbout(b).find((r) => r.json.events[0].operation === 'unshare')!;
      expect(got.json).toEqual({
        info: { webhookId: id, webhookName: 'hook', portalURL: expect.any(String), when: expect.any(Number) },
        events: [
          {
            userId: expect.any(String),
            username: owner.username,
            when: expect.any(Number),
            operation: 'unshare',
            source: 'item',
            id: null,
            properties: {
              groups: [g1],
              items: [
                { id: a, unsharedFrom: [g1], notUnsharedFrom: [], success: true },
                { id: b, unsharedFrom: [g1], notUnsharedFrom: [], success: true },
                { id: missing, unsharedFrom: [], notUnsharedFrom: [], success: false },
              ],
            },
          },
        ],
      });
      expect(got.headers['x-webhook-id']).toMatch(/^[0-9a-f]{32}$/);
      expect(got.headers['x-webhook-delivery']).toMatch(/^[0-9a-f]{32}$/);
      expect(got.headers['x-extra']).toBe('1');
      expect(verifies(got, 's3cret')).toBe(true);
      expect(verifies(got, 'other')).toBe(false);
    });

    it('delivers nothing for a change that rolled back', async () => {
      const a = await addItem(t.base, owner.username, owner.token);
      await share([a], [g1]);
      const caller = { userId: 'x', username: owner.username, orgId: 'x', role: 'org_admin', roleId: null, privileges: [] } as never;
      const repo = t.app.get(SharingRepository);
      const [{ id: ownerId }] = await t.db.query(`SELECT id FROM users WHERE username = $1`, [owner.username]);
      await expect(
        repo.unshare({ caller, callerIsAdmin: false, ownerId, itemIds: [a], groupIds: [g1] }, () => {
          throw new Error('rolled back after the delete');
        }),
      ).rejects.toThrow('rolled back');
      expect((await t.db.query(`SELECT 1 FROM item_shares WHERE item_id = $1`, [a])).length).toBe(1);
      await unshare([a], [g1]); // a committed change after it, so the dispatcher has run past the rolled-back one
      await waitFor('the later unshare', async () => eventsAbout(a).some((r) => r.json.events[0].operation === 'unshare'), 20000);
      expect(eventsAbout(a).filter((r) => r.json.events[0].operation === 'unshare')).toHaveLength(1);
    });

    it('keeps the order of one item events', async () => {
      const a = await addItem(t.base, owner.username, owner.token);
      for (let i = 0; i < 3; i++) {
        await share([a], [g1]);
        await unshare([a], [g1]);
      }
      await waitFor('six events', async () => eventsAbout(a).length >= 6, 20000);
      expect(eventsAbout(a).map((r) => r.json.events[0].operation)).toEqual(['share', 'unshare', 'share', 'unshare', 'share', 'unshare']);
    });

    it('logs deliveries in notificationStatus and redelivers one with the same event id', async () => {
      const status = await get(t.base, `${hooks}/${id}/notificationStatus`, { num: 100 }, t.admin);
      expect(status.body.total).toBeGreaterThan(0);
      const d = status.body.notificationStatusList[0];
      expect(d).toMatchObject({ isInvoked: true, invokedTimestamp: expect.any(Number), responseText: 'ok', status: 'delivered' });
      expect(d.payload.events).toHaveLength(1);
      const r = await post(t.base, `${hooks}/${id}/redeliver`, { deliveryId: d.deliveryId }, t.admin);
      expect(r.body).toMatchObject({ success: true });
      await waitFor('the redelivery', async () => rx.received.some((x) => x.headers['x-webhook-delivery'] === r.body.deliveryId), 20000);
      const again = rx.received.find((x) => x.headers['x-webhook-delivery'] === r.body.deliveryId)!;
      expect(again.headers['x-webhook-id']).toBe(d.eventId);
    });
  });

  it('tries a failing receiver the configured number of times, then deactivates the webhook', async () => {
    await post(t.base, `${hooks}/settings/update`, { notificationAttempts: 2, notificationElapsedTimeInSeconds: 0 }, t.admin);
    expect((await get(t.base, `${hooks}/settings`, {}, t.admin)).body).toEqual({
      notificationAttempts: 2,
      notificationTimeOutInSeconds: 10,
      notificationElapsedTimeInSeconds: 0,
    });
    const id = (await create({ events: '/items', config: '{"deactivationPolicy":{"numberOfFailures":1,"daysInPast":1}}' })).body.id;
    const healthy = (await create({ events: '/items/add' })).body.id;
    rx.answer = (r) => (r.json?.info?.webhookId === id && r.json.events.length ? { status: 500, body: 'broken' } : { status: 200 });
    const a = await addItem(t.base, owner.username, owner.token);
    await share([a], [g1]);
    await waitFor('deactivation', async () => (await get(t.base, `${hooks}/${id}`, {}, t.admin)).body.isActive === false, 30000);
    await waitFor('the healthy webhook', async () => rx.events().some((r) => r.json.info.webhookId === healthy), 20000);
    const tries = rx.events().filter((r) => r.json.info.webhookId === id);
    expect(tries).toHaveLength(2);
    expect(new Set(tries.map((r) => r.headers['x-webhook-id'])).size).toBe(1);
    const log = (await get(t.base, `${hooks}/${id}/notificationStatus`, {}, t.admin)).body.notificationStatusList;
    // The item's add failed twice and deactivated the webhook; its share is never sent (pending, or not even
    // dispatched when it came after the deactivation).
    expect(log.filter((d: { status: string }) => d.status !== 'pending').map((d: { status: string }) => d.status)).toEqual(['failed']);
    expect(log.find((d: { status: string }) => d.status === 'failed')).toMatchObject({
      attempts: 2,
      responseText: 'broken',
      isInvoked: true,
    });
    rx.answer = () => ({ status: 200 });
    await post(t.base, `${hooks}/settings/update`, { notificationAttempts: 3, notificationElapsedTimeInSeconds: 5 }, t.admin);
    const metrics = await (await fetch(`${t.root}/metrics?token=${encodeURIComponent(t.admin)}`)).text();
    expect(metrics).toMatch(/^arcgis_webhooks_deactivated [1-9]/m);
    expect(metrics).toMatch(/^arcgis_webhook_deliveries\{status="failed"\} [1-9]/m);
    expect(metrics).toMatch(/^arcgis_webhook_deliveries\{status="delivered"\} [1-9]/m);
    expect(metrics).toMatch(/^arcgis_webhook_outbox_events \d+/m);
    expect(metrics).toMatch(/^arcgis_webhook_latency_seconds_count [1-9]/m);
    await post(t.base, `${hooks}/${healthy}/delete`, {}, t.admin);
  });
});
