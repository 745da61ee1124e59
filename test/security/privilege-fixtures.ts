import { TestApp } from '../support/app';
import { addItem, addUsers, adminToken, createGroup, createUser, get, post, Reply, tokenFor, uniq } from '../support/client';
import { ADMIN } from '../support/app';

/** The callers of the matrix, in its column order. */
export const COLUMNS = ['anon', 'revoked', 'owner', 'other', 'member', 'manager', 'admin', 'view', 'update', 'share', 'users'] as const;
export type Column = (typeof COLUMNS)[number];

export interface Person {
  username: string;
  password: string;
  token: string;
}

export const USER_PRIVILEGES = [
  'portal:user:createItem',
  'portal:user:createGroup',
  'portal:user:shareToGroup',
  'portal:user:shareToOrg',
  'portal:user:shareToPublic',
  'portal:user:joinGroup',
];

/**
 * Custom roles are a user role plus admin privileges, as ArcGIS builds them on a user-type template: the admin
 * privilege alone decides what each may do for others.
 */
export const CUSTOM_ROLES = {
  view: ['portal:admin:viewItems', 'portal:admin:viewGroups'],
  update: ['portal:admin:updateItems'],
  share: ['portal:admin:shareToGroup'],
  users: ['portal:admin:manageUsers'],
} as const;

export interface Service {
  name: string;
  itemId: string;
  url: string;
  admin: string;
  layer: string;
}

export interface Fixtures {
  t: TestApp;
  admin: string;
  people: Record<Exclude<Column, 'anon' | 'revoked'>, Person>;
  /** A token of the owner, revoked: every route must answer it 498, public ones included. */
  revokedToken: string;
  roleIds: Record<keyof typeof CUSTOM_ROLES, string>;
  /** An org_user outside every group, to receive exports and group memberships. */
  recipient: Person;
  /** Private group owned by `owner`; `member` is a member, `manager` a group admin. */
  group: string;
  privateItem: string;
  groupItem: string;
  csvItem: string;
  /** A private hosted service and one shared with the organisation, each with layer 0 holding one point. */
  svcPrivate: Service;
  svcOrg: Service;
  /** A view of svcPrivate (its Name field, every row; Query and edits) shared with `group`. */
  svcView: Service;
}

function check(r: Reply, what: string): Reply {
  if (r.status !== 200 || r.body?.error) throw new Error(`${what} failed: ${r.text}`);
  return r;
}

export async function createRole(f: Pick<Fixtures, 't' | 'admin'>, privileges: readonly string[]): Promise<string> {
  const role = check(await post(f.t.base, 'portals/self/createRole', { name: uniq('role') }, f.admin), 'createRole');
  check(
    await post(f.t.base, `portals/self/roles/${role.body.id}/setPrivileges`, { privileges: JSON.stringify({ privileges }) }, f.admin),
    'setPrivileges',
  );
  return role.body.id;
}

export async function newService(f: Pick<Fixtures, 't'>, owner: Person): Promise<Service> {
  const name = uniq('psvc');
  const created = check(
    await post(
      f.t.base,
      `content/users/${owner.username}/createService`,
      { createParameters: JSON.stringify({ name }), outputType: 'featureService' },
      owner.token,
    ),
    'createService',
  );
  const url: string = created.body.serviceurl;
  const admin = url.replace('/rest/services/', '/rest/admin/services/');
  const def = {
    layers: [{ name: 'Pts', geometryType: 'esriGeometryPoint', fields: [{ name: 'Name', type: 'esriFieldTypeString', length: 50 }] }],
  };
  check(await post(admin, 'addToDefinition', { addToDefinition: JSON.stringify(def) }, owner.token), 'addToDefinition');
  check(
    await post(
      `${url}/0`,
      'addFeatures',
      { features: JSON.stringify([{ attributes: { Name: 'a' }, geometry: { x: 1, y: 1 } }]) },
      owner.token,
    ),
    'addFeatures',
  );
  return { name, itemId: created.body.itemId, url, admin, layer: `${url}/0` };
}

/** A view of layer 0 of `source` showing Name, owned by `owner` and not shared. */
export async function newView(f: Pick<Fixtures, 't'>, owner: Person, source: Service): Promise<Service> {
  const name = uniq('pview');
  const created = check(
    await post(
      f.t.base,
      `content/users/${owner.username}/createService`,
      {
        createParameters: JSON.stringify({ name, capabilities: 'Query,Create,Update,Delete,Editing' }),
        outputType: 'featureService',
        isView: 'true',
      },
      owner.token,
    ),
    'createService isView',
  );
  const url: string = created.body.serviceurl;
  const admin = url.replace('/rest/services/', '/rest/admin/services/');
  const viewLayerDefinition = { sourceServiceName: source.name, sourceLayerId: 0, sourceLayerFields: [{ name: 'Name' }] };
  const def = { layers: [{ name: 'Pts view', adminLayerInfo: { viewLayerDefinition } }] };
  check(await post(admin, 'addToDefinition', { addToDefinition: JSON.stringify(def) }, owner.token), 'addToDefinition of a view');
  return { name, itemId: created.body.itemId, url, admin, layer: `${url}/0` };
}

async function uploadCsv(f: Pick<Fixtures, 't'>, owner: Person): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ title: uniq('csv'), type: 'CSV', f: 'json', token: owner.token })) form.set(k, v);
  form.set('file', new Blob(['x,y,name\n1,2,a\n'], { type: 'text/csv' }), 'points.csv');
  const r = (await (await fetch(`${f.t.base}/content/users/${owner.username}/addItem`, { method: 'POST', body: form })).json()) as {
    id?: string;
  };
  if (!r.id) throw new Error(`CSV upload failed: ${JSON.stringify(r)}`);
  return r.id;
}

/** Everything the read-only rows look at, made once; rows that change state make their own per cell. */
export async function makeFixtures(t: TestApp): Promise<Fixtures> {
  const admin = await adminToken(t.base);
  const base = { t, admin };
  const roles = Object.fromEntries(
    await Promise.all(Object.entries(CUSTOM_ROLES).map(async ([k, extra]) => [k, await createRole(base, [...USER_PRIVILEGES, ...extra])])),
  ) as Record<keyof typeof CUSTOM_ROLES, string>;
  const [owner, other, member, manager, view, update, share, users, recipient] = await Promise.all([
    createUser(t.base, admin, 'org_publisher'),
    createUser(t.base, admin, 'org_user'),
    createUser(t.base, admin, 'org_user'),
    createUser(t.base, admin, 'org_user'),
    createUser(t.base, admin, roles.view),
    createUser(t.base, admin, roles.update),
    createUser(t.base, admin, roles.share),
    createUser(t.base, admin, roles.users),
    createUser(t.base, admin, 'org_user'),
  ]);
  const revokedToken = await tokenFor(t.base, owner.username, owner.password);
  check(await post(t.base, 'oauth2/revokeToken', { auth_token: revokedToken }, revokedToken), 'revokeToken');

  const group = await createGroup(t.base, owner.token, { access: 'private' });
  await addUsers(t.base, owner.token, group, [member.username], [manager.username]);
  const [privateItem, groupItem, csvItem, svcPrivate, svcOrg] = await Promise.all([
    addItem(t.base, owner.username, owner.token, { text: '{"secret":1}' }),
    addItem(t.base, owner.username, owner.token),
    uploadCsv(base, owner),
    newService(base, owner),
    newService(base, owner),
  ]);
  check(await post(t.base, `content/users/${owner.username}/items/${groupItem}/share`, { groups: group }, owner.token), 'share to group');
  check(await post(t.base, `content/users/${owner.username}/items/${svcOrg.itemId}/share`, { org: 'true' }, owner.token), 'share to org');
  const svcView = await newView(base, owner, svcPrivate);
  check(await post(t.base, `content/users/${owner.username}/items/${svcView.itemId}/share`, { groups: group }, owner.token), 'share view');
  const adminPerson = { username: ADMIN.username, password: ADMIN.password, token: admin };
  return {
    ...base,
    people: { owner, other, member, manager, admin: adminPerson, view, update, share, users },
    revokedToken,
    roleIds: roles,
    recipient,
    group,
    privateItem,
    groupItem,
    csvItem,
    svcPrivate,
    svcOrg,
    svcView,
  };
}

/** Whether a token still works, read from the route every signed-in user may call. */
export async function tokenWorks(f: Fixtures, token: string): Promise<boolean> {
  return !!(await get(f.t.base, 'community/self', {}, token)).body?.username;
}
