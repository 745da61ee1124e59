import { INestApplicationContext } from '@nestjs/common';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { startApp, TestApp } from '../support/app';
import { addUsers, adminToken, createGroup, createUser, get, post } from '../support/client';
import { sampleService, SampleService } from '../support/sample-service';
import { waitFor } from '../support/wait-for';
import { startWorker } from '../support/worker';

/**
 * Access is checked again when a job runs, not only when it is requested: the API queues the jobs with no worker
 * running, access changes, and only then does a worker start. An export must not land with a user who lost the
 * right to read its service, and a publish must not run for a user who lost the right to publish.
 */
type User = { username: string; token: string };

describe('jobs re-check access when they run', () => {
  let t: TestApp;
  let worker: INestApplicationContext | undefined;
  let admin: string;
  let alice: User;
  let bob: User;
  let carol: User;
  let service: SampleService;
  let bobsGroup: string;

  beforeAll(async () => {
    t = await startApp();
    admin = await adminToken(t.base);
    alice = await createUser(t.base, admin, 'org_publisher');
    bob = await createUser(t.base, admin, 'org_user');
    carol = await createUser(t.base, admin, 'org_user');
    service = await sampleService(t.base, alice);
    // bob and carol read the service through a group each.
    bobsGroup = await createGroup(t.base, alice.token);
    const carolsGroup = await createGroup(t.base, alice.token);
    await addUsers(t.base, alice.token, bobsGroup, [bob.username]);
    await addUsers(t.base, alice.token, carolsGroup, [carol.username]);
    const shared = await post(
      t.base,
      `content/users/${alice.username}/items/${service.itemId}/share`,
      { groups: `${bobsGroup},${carolsGroup}` },
      alice.token,
    );
    expect(shared.body.notSharedWith).toEqual([]);
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await t?.close();
  });

  const job = async (id: string) => (await t.db.query(`SELECT status, status_message FROM jobs WHERE id = $1`, [id]))[0];
  const finished = async (id: string) => {
    await waitFor(`job ${id}`, async () => ['completed', 'failed', 'cancelled'].includes((await job(id))?.status), 90_000);
    return job(id);
  };
  const item = async (id: string) => (await t.db.query(`SELECT status, status_message, file_path, size FROM items WHERE id = $1`, [id]))[0];

  it('an export into the content of a user who lost access to the service fails and leaves nothing with them', async () => {
    const exportFor = async (user: User) => {
      const r = await post(
        t.base,
        `content/users/${user.username}/export`,
        { itemId: service.itemId, exportFormat: 'CSV', exportParameters: JSON.stringify({ layers: [{ id: 2 }] }) },
        admin,
      );
      expect(r.body.jobId).toBeTruthy();
      return r.body as { jobId: string; exportItemId: string };
    };
    const toBob = await exportFor(bob);
    const toCarol = await exportFor(carol);
    expect((await job(toBob.jobId)).status).toBe('queued');

    // Between request and run: bob's group loses the service, and a secret feature is added.
    const unshared = await post(
      t.base,
      `content/users/${alice.username}/items/${service.itemId}/unshare`,
      { groups: bobsGroup },
      alice.token,
    );
    expect(unshared.body.notUnsharedFrom).toEqual([]);
    const secret = [{ attributes: { Name: 'Secret bunker', Kind: 'secret' }, geometry: { x: 10.3, y: 50.3 } }];
    expect(
      (await post(`${service.url}/2`, 'addFeatures', { features: JSON.stringify(secret) }, alice.token)).body.addResults[0].success,
    ).toBe(true);
    expect((await get(t.base, `content/items/${service.itemId}`, {}, bob.token)).body.error).toBeTruthy();

    worker = await startWorker(t.config);
    const bobs = await finished(toBob.jobId);
    expect(bobs.status).toBe('failed');
    expect(bobs.status_message).toMatch(/^Export refused: .*'[^']+' may not read this service/);
    expect(bobs.status_message).toContain(bob.username);
    // Nothing written: no file, no size, no folder, no data to download; the item shows the failure.
    const bobsItem = await item(toBob.exportItemId);
    expect(bobsItem).toMatchObject({ status: 'failed', file_path: null, status_message: bobs.status_message });
    expect(Number(bobsItem.size)).toBe(0);
    expect(existsSync(path.join(t.config.dataDir, 'items', toBob.exportItemId))).toBe(false);
    const data = await fetch(`${t.base}/content/items/${toBob.exportItemId}/data?token=${bob.token}`);
    expect(await data.text()).not.toContain('Secret bunker');

    // The control: carol still reads the service, and her export, run by the same worker, holds every row.
    expect((await finished(toCarol.jobId)).status).toBe('completed');
    const csv = await (await fetch(`${t.base}/content/items/${toCarol.exportItemId}/data?token=${carol.token}`)).text();
    expect(csv).toContain('Secret bunker');
    expect(csv.trim().split('\n')).toHaveLength(1 + 4);
  }, 120_000);

  it('a publish whose requester lost the right to publish fails before it reads the file', async () => {
    await worker?.close();
    worker = undefined;
    const publisher = async () => {
      const user = await createUser(t.base, admin, 'org_publisher');
      const form = new FormData();
      for (const [k, v] of Object.entries({ title: 'pts', type: 'GeoJson', f: 'json', token: user.token })) form.set(k, v);
      const geojson = {
        type: 'FeatureCollection',
        features: [{ type: 'Feature', properties: { n: 1 }, geometry: { type: 'Point', coordinates: [1, 2] } }],
      };
      form.set('file', new Blob([JSON.stringify(geojson)], { type: 'application/geo+json' }), 'pts.geojson');
      const added = (await (await fetch(`${t.base}/content/users/${user.username}/addItem`, { method: 'POST', body: form })).json()) as {
        id: string;
      };
      const r = await post(
        t.base,
        `content/users/${user.username}/publish`,
        { itemId: added.id, filetype: 'geojson', publishParameters: JSON.stringify({ name: `p_${added.id.slice(0, 8)}` }) },
        user.token,
      );
      expect(r.body.services?.[0]?.jobId).toBeTruthy();
      return { user, ...(r.body.services[0] as { jobId: string; serviceItemId: string }) };
    };
    const demoted = await publisher();
    const control = await publisher();
    const role = await post(t.base, 'portals/self/updateUserRole', { user: demoted.user.username, role: 'org_user' }, admin);
    expect(role.body.success).toBe(true);

    worker = await startWorker(t.config);
    const refused = await finished(demoted.jobId);
    expect(refused.status).toBe('failed');
    expect(refused.status_message).toBe('Publish refused: Your role may not create hosted feature services.');
    const layers = await t.db.query(`SELECT count(*)::int AS n FROM feature_layers WHERE service_item_id = $1`, [demoted.serviceItemId]);
    expect(layers[0].n).toBe(0);
    expect((await item(demoted.serviceItemId)).status).toBe('failed');
    expect((await finished(control.jobId)).status).toBe('completed');
  }, 120_000);
});
