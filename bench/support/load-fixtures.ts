/**
 * Data for the load benchmark, quick to make: a few users and groups, a few hundred web maps, and a public feature
 * service with a point layer loaded in SQL (generate_series) and an empty polygon layer that edits go to.
 */
import { Cluster } from './load-cluster';
import { createHostedService, form } from './bench-app';
import { deBruijnText } from '../../test/support/hostile-text';

export interface LoadUser {
  username: string;
  password: string;
  /** Bound to the caller's address (client=requestip): valid before and after referer/IP binding is enforced. */
  token: string;
  items: string[];
}

export interface Fixtures {
  users: LoadUser[];
  groups: string[];
  /** Owner of the feature service; exports are made into this user's content. */
  publisher: LoadUser;
  service: { itemId: string; url: string; points: number };
  /** Signs in only through the hostile wrong-password flood, so legitimate traffic never depends on its lockout. */
  victim: string;
  /** A token generated for referer https://maps.example.org, which the hostile mix presents from another site. */
  refererToken: string;
  /** Owns ATTACKER_ITEMS items of 64,000-character descriptions (addItem's limit), which its hostile searches scan. */
  attacker: LoadUser;
}

export const ATTACKER_ITEMS = 200;

const USERS = 4;
const GROUPS = 8;
const ITEMS_PER_USER = 80;

export const POINTS = 100_000;

async function inParallel<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

const requestipToken = async (base: string, username: string, password: string) =>
  (await form(`${base}/generateToken`, { username, password, client: 'requestip', expiration: '240' })).token as string;

export async function makeFixtures(c: Cluster): Promise<Fixtures> {
  const { base, root } = c;
  const admin = await requestipToken(base, c.admin.username, c.admin.password);
  const suffix = Date.now().toString(36);
  const createUser = async (username: string, role: string) => {
    const password = `pw-${username}-load`;
    await form(`${root}/portaladmin/security/users/createUser`, { token: admin, username, password, role });
    return { username, password };
  };

  const users: LoadUser[] = [];
  for (let i = 0; i < USERS; i++) {
    const u = await createUser(`load_user${i}_${suffix}`, 'org_publisher');
    users.push({ ...u, token: await requestipToken(base, u.username, u.password), items: [] });
  }
  const victim = (await createUser(`load_victim_${suffix}`, 'org_user')).username;
  const groups = await inParallel(GROUPS, 4, async (i) => {
    return (await form(`${base}/community/createGroup`, { token: admin, title: `Load group ${i}`, access: 'org', tags: 'load' })).group
      .id as string;
  });
  const usernames = users.map((u) => u.username).join(',');
  for (const g of groups) await form(`${base}/community/groups/${g}/addUsers`, { token: admin, users: usernames });

  // A web map's text: a few layers and a basemap, a few KB as real ones are.
  const text = (i: number) =>
    JSON.stringify({
      operationalLayers: Array.from({ length: 8 }, (_, j) => ({
        id: `layer-${i}-${j}`,
        title: `Layer ${j}`,
        url: `https://example.org/arcgis/rest/services/s${j}/FeatureServer/0`,
        opacity: 0.8,
        visibility: true,
      })),
      baseMap: { baseMapLayers: [{ id: 'osm', layerType: 'OpenStreetMap', title: 'OpenStreetMap' }], title: 'Topographic' },
      spatialReference: { wkid: 102100 },
      version: '2.28',
    });
  await inParallel(USERS * ITEMS_PER_USER, 6, async (n) => {
    const u = users[n % USERS];
    const r = await form(`${base}/content/users/${u.username}/addItem`, {
      token: u.token,
      title: `Map ${n} of ${['parks', 'roads', 'rivers', 'schools', 'trees'][n % 5]}`,
      type: 'Web Map',
      tags: `load,${['parks', 'roads', 'rivers', 'schools', 'trees'][n % 5]}`,
      snippet: `Load benchmark map number ${n}`,
      text: text(n),
    });
    u.items.push(r.id);
  });
  // A third of each user's items start shared with two groups, so group searches find something.
  for (const u of users) {
    await form(`${base}/content/users/${u.username}/shareItems`, {
      token: u.token,
      items: u.items.slice(0, ITEMS_PER_USER / 3).join(','),
      groups: groups.slice(0, 2).join(','),
    });
  }

  const publisher = users[0];
  const layers = [
    {
      name: 'points',
      geometryType: 'esriGeometryPoint',
      fields: [
        { name: 'name', type: 'esriFieldTypeString', length: 40 },
        { name: 'n', type: 'esriFieldTypeInteger' },
        { name: 'a', type: 'esriFieldTypeDouble' },
        { name: 't', type: 'esriFieldTypeDate' },
      ],
    },
    { name: 'areas', geometryType: 'esriGeometryPolygon', fields: [{ name: 'label', type: 'esriFieldTypeString', length: 40 }] },
  ];
  const created = await createHostedService(base, publisher, layers, { name: `load_points_${suffix}`, maxRecordCount: 2000 });
  await c.db.query(
    `INSERT INTO "svc_${created.itemId}".l0 (name, n, a, t, shape)
     SELECT 'point ' || g, g, random() * 1000, now() - g * interval '1 minute', ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 170 - 85), 4326)
       FROM generate_series(1, $1) g`,
    [POINTS],
  );
  await c.db.query(`ANALYZE "svc_${created.itemId}".l0`);
  // Public, as the layers the hostile where clauses were reported against.
  await form(`${base}/content/users/${publisher.username}/items/${created.itemId}/share`, { token: publisher.token, everyone: 'true' });

  // The account the hostile searches run as: its own items, each with the longest description addItem takes.
  const attackerUser = await createUser(`load_attacker_${suffix}`, 'org_user');
  const attacker: LoadUser = {
    ...attackerUser,
    token: await requestipToken(base, attackerUser.username, attackerUser.password),
    items: [],
  };
  const description = deBruijnText(64_000);
  await inParallel(ATTACKER_ITEMS, 4, async (n) => {
    const r = await form(`${base}/content/users/${attacker.username}/addItem`, {
      token: attacker.token,
      title: `Bulk ${n}`,
      type: 'Web Map',
      text: '{}',
      description,
    });
    attacker.items.push(r.id);
  });

  const { username, password } = users[1];
  const refererToken = (await form(`${base}/generateToken`, { username, password, client: 'referer', referer: 'https://maps.example.org' }))
    .token;
  return {
    users,
    groups,
    publisher,
    service: { itemId: created.itemId, url: created.serviceurl, points: POINTS },
    victim,
    refererToken,
    attacker,
  };
}
