import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FEATURE_DB } from '../../src/core/database/feature-database.module';
import { addUsers, createGroup, createHostedService, createUser, get, post, uniq } from '../support/client';
import { withApp } from '../support/harness';

/**
 * A query of a layer queried before reads its page in one statement that checks, for this caller, that the service is
 * still visible and its definitions unchanged (known-layers.ts). Each case lets a caller see a layer, so its
 * definitions are remembered, then takes the access away by one of the ways the sharing rule counts, and expects the
 * very next query, f=json and f=pbf, to answer as for a hidden service.
 */
describe('queries of a remembered layer follow every sharing rule from the next request', () => {
  const t = withApp({ users: { pub: 'org_publisher', reader: 'org_user' } });
  const { pub, reader } = t.users;

  async function newService(name = uniq('svc')) {
    const layer = { name: 'L', geometryType: 'esriGeometryPoint', fields: [{ name: 'Secret', type: 'esriFieldTypeString' }] };
    const { itemId, serviceurl: url } = await createHostedService(t.base, pub, [layer], name);
    const features = [{ attributes: { Secret: 'x' }, geometry: { x: 1, y: 1 } }];
    await post(`${url}/0`, 'addFeatures', { features: JSON.stringify(features) }, pub.token);
    return { name, url, itemId, layer: `${url}/0` };
  }

  /** The query's outcome: the number of features, or the error's code and message. */
  async function outcome(layer: string, f: 'json' | 'pbf', token?: string): Promise<string> {
    const r = await get(layer, 'query', { f, where: '1=1', outFields: '*' }, token);
    if (f === 'pbf' && r.headers.get('content-type')?.startsWith('application/x-protobuf')) return 'features';
    if (r.body?.error) return `${r.body.error.code} ${r.body.error.message}`;
    return r.body?.features?.length ? 'features' : 'none';
  }

  const HIDDEN = '400 Service does not exist or is inaccessible.';

  async function seenThenHidden(layer: string, token: string | undefined, takeAway: () => Promise<unknown>, hidden = HIDDEN) {
    for (const f of ['json', 'pbf'] as const) {
      expect(await outcome(layer, f, token)).toBe('features');
      expect(await outcome(layer, f, token)).toBe('features');
    }
    await takeAway();
    for (const f of ['json', 'pbf'] as const) expect(await outcome(layer, f, token)).toBe(hidden);
  }

  it('a member removed from the group the service is shared with', async () => {
    const s = await newService();
    const g = await createGroup(t.base, pub.token);
    await addUsers(t.base, pub.token, g, [reader.username]);
    await post(t.base, `content/users/${pub.username}/shareItems`, { items: s.itemId, groups: g }, pub.token);
    await seenThenHidden(s.layer, reader.token, () =>
      post(t.base, `community/groups/${g}/removeUsers`, { users: reader.username }, pub.token),
    );
  });

  it('anonymous callers once the service is no longer public', async () => {
    const s = await newService();
    const share = (everyone: boolean) =>
      post(t.base, `content/users/${pub.username}/items/${s.itemId}/share`, { everyone: String(everyone), org: 'false' }, pub.token);
    await share(true);
    await seenThenHidden(s.layer, undefined, () => share(false), '499 Token Required');
  });

  it('an administrator whose role no longer holds viewItems', async () => {
    const s = await newService();
    const other = await createUser(t.base, t.admin, 'org_admin');
    await seenThenHidden(s.layer, other.token, () =>
      post(t.base, 'portals/self/updateUserRole', { user: other.username, role: 'org_user' }, t.admin),
    );
  });

  it('a user of a service deleted and made again under its name, with the same definitions, private', async () => {
    const s = await newService();
    await post(t.base, `content/users/${pub.username}/items/${s.itemId}/share`, { everyone: 'true' }, pub.token);
    await seenThenHidden(s.layer, reader.token, async () => {
      await post(t.base, `content/users/${pub.username}/items/${s.itemId}/delete`, {}, pub.token);
      await newService(s.name);
    });
  });

  it('a layer id written with leading zeros names the same layer, for the owner and for no one else', async () => {
    const s = await newService();
    expect(await outcome(s.layer, 'json', pub.token)).toBe('features');
    for (const id of ['00', '000000000']) {
      expect(await outcome(`${s.url}/${id}`, 'json', pub.token)).toBe('features');
      expect(await outcome(`${s.url}/${id}`, 'json', reader.token)).toBe(HIDDEN);
      expect(await outcome(`${s.url}/${id}`, 'pbf', reader.token)).toBe(HIDDEN);
    }
  });

  it('tells a caller who may not see a layer nothing of its fields by the work its query takes, whoever read it before', async () => {
    const s = await newService();
    expect(await outcome(s.layer, 'json', pub.token)).toBe('features');
    // Statements on both pools while the reader's query runs: the round trips its answer costs.
    const pools = [t.db, t.app.get<DataSource>(getDataSourceToken(FEATURE_DB))];
    const statements = async (where: string, f = 'json') => {
      const spies = pools.map((db) => jest.spyOn(db, 'query'));
      try {
        const r = await get(s.layer, 'query', { f, where }, reader.token);
        expect(r.body.error.message).toBe('Service does not exist or is inaccessible.');
        return spies.reduce((n, spy) => n + spy.mock.calls.length, 0);
      } finally {
        spies.forEach((spy) => spy.mockRestore());
      }
    };
    for (const f of ['json', 'pbf']) {
      const unknownField = await statements('Nope IS NULL', f);
      expect(await statements('Secret IS NULL', f)).toBe(unknownField);
      expect(await statements("Secret > DATE '2020-01-01'", f)).toBe(unknownField);
    }
  });
});
