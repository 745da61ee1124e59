import { randomBytes } from 'node:crypto';
import { ADMIN } from './app';

export type Reply = { status: number; body: any; text: string; headers: Headers }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** POST form-urlencoded, as the ArcGIS client does by default. Values are sent as given (strings). */
export async function post(
  base: string,
  path: string,
  params: Record<string, string | number | boolean> = {},
  token?: string,
): Promise<Reply> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries({ f: 'json', ...params, ...(token ? { token } : {}) })) body.set(k, String(v));
  const res = await fetch(`${base}/${path}`, { method: 'POST', body });
  return read(res);
}

export async function get(
  base: string,
  path: string,
  params: Record<string, string | number | boolean> = {},
  token?: string,
): Promise<Reply> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries({ f: 'json', ...params, ...(token ? { token } : {}) })) qs.set(k, String(v));
  const res = await fetch(`${base}/${path}?${qs}`);
  return read(res);
}

/** Reads a reply: the body as text, and parsed when it is JSON. */
export async function read(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, headers: res.headers };
}

export const uniq = (prefix: string) => `${prefix}_${randomBytes(4).toString('hex')}`;

/**
 * Bound to the requesting address: every test request comes from 127.0.0.1, whatever sends it (these helpers,
 * plain fetch, arcgis-rest-js with its own Referer), so one token works for all of them.
 */
export async function tokenFor(base: string, username: string, password: string): Promise<string> {
  const r = await post(base, 'generateToken', { username, password, client: 'requestip' });
  if (!r.body?.token) throw new Error(`generateToken failed for ${username}: ${r.text}`);
  return r.body.token;
}

export const adminToken = (base: string) => tokenFor(base, ADMIN.username, ADMIN.password);

/** Creates a user through the admin route; returns its name and a token. */
export async function createUser(base: string, admin: string, role = 'org_user', name = uniq('user')) {
  const password = 'password-' + name;
  const root = base.replace(/\/sharing\/rest$/, '');
  const r = await post(root, 'portaladmin/security/users/createUser', { username: name, password, role }, admin);
  if (r.body?.status !== 'success') throw new Error(`createUser failed: ${r.text}`);
  return { username: name, password, token: await tokenFor(base, name, password) };
}

export async function createGroup(base: string, token: string, params: Record<string, string> = {}): Promise<string> {
  const r = await post(base, 'community/createGroup', { title: uniq('group'), access: 'org', ...params }, token);
  if (!r.body?.group?.id) throw new Error(`createGroup failed: ${r.text}`);
  return r.body.group.id;
}

export async function addItem(base: string, owner: string, token: string, params: Record<string, string> = {}): Promise<string> {
  const r = await post(
    base,
    `content/users/${owner}/addItem`,
    { title: uniq('item'), type: 'Web Map', text: '{"operationalLayers":[]}', ...params },
    token,
  );
  if (!r.body?.id) throw new Error(`addItem failed: ${r.text}`);
  return r.body.id;
}

export async function addUsers(base: string, token: string, groupId: string, users: string[], admins: string[] = []) {
  const r = await post(base, `community/groups/${groupId}/addUsers`, { users: users.join(','), admins: admins.join(',') }, token);
  if (!r.body || r.body.notAdded?.length) throw new Error(`addUsers failed: ${r.text}`);
}

/**
 * A hosted feature service with the given layers, made as clients make one: createService, then addToDefinition.
 * `create` is the service name or its whole createParameters.
 */
export async function createHostedService(
  base: string,
  owner: { username: string; token: string },
  layers: object[],
  create: string | Record<string, unknown> = uniq('svc'),
): Promise<{ itemId: string; serviceurl: string }> {
  const createParameters = typeof create === 'string' ? { name: create } : create;
  const created = await post(
    base,
    `content/users/${owner.username}/createService`,
    { createParameters: JSON.stringify(createParameters), outputType: 'featureService' },
    owner.token,
  );
  if (!created.body?.itemId) throw new Error(`createService failed: ${created.text}`);
  const admin = created.body.serviceurl.replace('/rest/services/', '/rest/admin/services/');
  const def = await post(admin, 'addToDefinition', { addToDefinition: JSON.stringify({ layers }) }, owner.token);
  if (!def.body?.success) throw new Error(`addToDefinition failed: ${def.text}`);
  return created.body;
}
