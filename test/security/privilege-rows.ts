import { get, post, Reply, tokenFor, uniq } from '../support/client';
import { Column, Fixtures, Person, tokenWorks } from './privilege-fixtures';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** What one caller gets from one route. */
export const OK = 'ok';
/** Answered without an error, but without what was asked for: not listed, not shared, only the public record. */
export const NOT = 'not';
export const E403 = '403';
export const E498 = '498';
export const E499 = '499';
export const ITEM = 'CONT_0001';
export const GROUP = 'COM_0003';
export const USER = 'COM_0019';
export const SVC = '400 Service does not exist or is inaccessible.';
export const REVOKE = '400 Unable to revoke token.';
export const H200 = 'http 200';
export const H401 = 'http 401';
export const H403 = 'http 403';

export interface Ctx {
  f: Fixtures;
  col: Column;
  token?: string;
  /** The column's own user (the owner for the revoked token, nobody when anonymous). */
  me?: Person;
  /** What the row's per-cell setup made. */
  s: Record<string, any>;
}

export interface Row {
  route: string;
  what: string;
  /** Fresh state for this cell, made by the owner or the administrator, never by the caller under test. */
  setup?: (c: Ctx) => Promise<Record<string, any>>;
  call: (c: Ctx) => Promise<Reply>;
  /** Whether a reply without an error did what was asked (else NOT); by default it did. */
  done?: (body: any, c: Ctx) => boolean;
  /** Reads the state back: an allowed call took effect, a refused one changed nothing. Throws when not so. */
  verify?: (c: Ctx, allowed: boolean) => Promise<void>;
  /** Answers are HTTP statuses (Bull Board and health are not ArcGIS routes). */
  raw?: boolean;
  /** Expected outcome per column, in COLUMNS order: anon revoked owner other member manager admin view update share users. */
  cells: string[];
}

const base = (c: Ctx) => c.f.t.base;
const owner = (c: Ctx) => c.f.people.owner;
const p = (c: Ctx, path: string, params: Record<string, string> = {}) => post(base(c), path, params, c.token);
const g = (c: Ctx, path: string, params: Record<string, string> = {}) => get(base(c), path, params, c.token);
const q1 = async (c: Ctx, sql: string, args: unknown[]) => (await c.f.t.db.query(sql, args))[0];
function expectState(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

async function freshItem(c: Ctx, share: { groups?: string; org?: string } = {}): Promise<string> {
  const r = await post(
    base(c),
    `content/users/${owner(c).username}/addItem`,
    { title: uniq('cell'), type: 'Web Map', text: '{}' },
    owner(c).token,
  );
  if (share.groups || share.org) await post(base(c), `content/users/${owner(c).username}/items/${r.body.id}/share`, share, owner(c).token);
  return r.body.id;
}

async function freshGroup(c: Ctx, withRecipient: boolean): Promise<string> {
  const r = await post(base(c), 'community/createGroup', { title: uniq('cellgroup'), access: 'private' }, owner(c).token);
  const id = r.body.group.id;
  const users = [c.f.people.member.username, ...(withRecipient ? [c.f.recipient.username] : [])].join(',');
  await post(base(c), `community/groups/${id}/addUsers`, { users, admins: c.f.people.manager.username }, owner(c).token);
  return id;
}

async function freshUser(c: Ctx, role: string): Promise<string> {
  const username = uniq('target');
  await post(c.f.t.root, 'portaladmin/security/users/createUser', { username, password: `password-${username}`, role }, c.f.admin);
  return username;
}

const groupCount = async (c: Ctx, item: string, group: string) =>
  (await q1(c, 'SELECT count(*)::int AS n FROM item_shares WHERE item_id = $1 AND group_id = $2', [item, group])).n as number;
const memberType = async (c: Ctx, group: string, user: string) =>
  (
    await q1(c, 'SELECT m.member_type FROM group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id = $1 AND u.username = $2', [
      group,
      user,
    ])
  )?.member_type;

function exportRow(what: string, svc: 'svcPrivate' | 'svcOrg', dest: (c: Ctx) => string, cells: string[]): Row {
  return {
    route: 'content/users/<user>/export',
    what,
    setup: async () => ({ title: uniq('export') }),
    call: (c) => p(c, `content/users/${dest(c)}/export`, { itemId: c.f[svc].itemId, exportFormat: 'CSV', title: c.s.title }),
    done: (b) => typeof b.exportItemId === 'string',
    verify: async (c, allowed) => {
      const row = await q1(c, 'SELECT u.username FROM items i JOIN users u ON u.id = i.owner_id WHERE i.title = $1', [c.s.title]);
      expectState(allowed ? row?.username === dest(c) : !row, `export item: ${JSON.stringify(row)}`);
    },
    cells,
  };
}

const self = (c: Ctx) => (c.me ?? owner(c)).username;

async function freshFolder(c: Ctx): Promise<string> {
  const r = await post(base(c), `content/users/${owner(c).username}/createFolder`, { title: uniq('cellfolder') }, owner(c).token);
  return r.body.folder.id;
}

/** An item of the owner's added with multipart=true: it takes parts until commit. */
async function freshUpload(c: Ctx): Promise<string> {
  const r = await post(
    base(c),
    `content/users/${owner(c).username}/addItem`,
    { title: uniq('cellupload'), type: 'CSV', multipart: 'true', filename: 'cell.csv' },
    owner(c).token,
  );
  return r.body.id;
}

/** Part 1 of a multipart upload, the file in a multipart body as arcgis-rest-js sends it (partNum in the query string). */
async function postPart(c: Ctx, path: string): Promise<Reply> {
  const form = new FormData();
  form.set('file', new Blob(['a,b\n1,2\n']), 'part');
  form.set('f', 'json');
  if (c.token) form.set('token', c.token);
  const res = await fetch(`${base(c)}/${path}?partNum=1`, { method: 'POST', body: form });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, headers: res.headers };
}

const itemFolder = async (c: Ctx, item: string) => (await q1(c, 'SELECT owner_folder FROM items WHERE id = $1', [item])).owner_folder;
const itemOwner = async (c: Ctx, item: string) =>
  (await q1(c, 'SELECT u.username FROM items i JOIN users u ON u.id = i.owner_id WHERE i.id = $1', [item])).username;

/**
 * A directory page as the matrix reads replies: its error box as the envelope it renders, else the page itself.
 * The error box is `<strong>Error N:</strong> message`; entities are undone so messages compare as in JSON.
 */
async function htmlPage(url: string, path: string, params: Record<string, string>, token?: string): Promise<Reply> {
  const r = await get(url, path, { ...params, f: 'html' }, token);
  const m = /<strong>Error (\d+):<\/strong>\s*([^<]*)</.exec(r.text);
  const message = m?.[2]
    .trim()
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
  const messageCode = /data-message-code="([^"]+)"/.exec(r.text)?.[1];
  return { ...r, body: m ? { error: { code: Number(m[1]), message, ...(messageCode ? { messageCode } : {}) } } : { html: r.text } };
}

//                                  anon   revoked owner  other  member manager admin  view   update share  users
export const ROWS: Row[] = [
  // ── identity ──
  {
    route: 'community/self',
    what: 'own record',
    call: (c) => g(c, 'community/self'),
    cells: [E499, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
  },
  {
    route: 'community/users/<user>',
    what: "owner's full record",
    call: (c) => g(c, `community/users/${owner(c).username}`),
    done: (b) => 'email' in b,
    cells: [USER, E498, OK, NOT, NOT, NOT, OK, NOT, NOT, NOT, OK],
  },
  { route: 'portals/self', what: 'portal', call: (c) => g(c, 'portals/self'), cells: [OK, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK] },
  {
    route: 'portals/self/createRole',
    what: 'new role',
    call: (c) => p(c, 'portals/self/createRole', { name: uniq('cellrole') }),
    cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, E403],
  },
  {
    route: 'portals/self/roles/<id>/setPrivileges',
    what: 'fresh role',
    setup: async (c) => ({ role: (await post(base(c), 'portals/self/createRole', { name: uniq('cellrole') }, c.f.admin)).body.id }),
    call: (c) =>
      p(c, `portals/self/roles/${c.s.role}/setPrivileges`, { privileges: JSON.stringify({ privileges: ['portal:user:createItem'] }) }),
    cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, E403],
  },
  {
    route: 'portals/self/updateUserRole',
    what: 'org_user stays org_user',
    call: (c) => p(c, 'portals/self/updateUserRole', { user: c.f.recipient.username, role: 'org_user' }),
    cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, OK],
  },
  {
    route: 'portals/self/updateUserRole',
    what: "administrator demoted to the user-manager's role",
    setup: async (c) => ({ target: await freshUser(c, 'org_admin') }),
    call: (c) => p(c, 'portals/self/updateUserRole', { user: c.s.target, role: c.f.roleIds.users }),
    verify: async (c, allowed) => {
      const u = await q1(c, 'SELECT role, role_id FROM users WHERE username = $1', [c.s.target]);
      expectState(
        allowed ? u.role_id === c.f.roleIds.users : u.role === 'org_admin' && u.role_id === null,
        `role now ${JSON.stringify(u)}`,
      );
    },
    cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, E403],
  },
  {
    route: 'portaladmin/security/users/createUser',
    what: 'org_user',
    call: (c) =>
      post(
        c.f.t.root,
        'portaladmin/security/users/createUser',
        { username: uniq('made'), password: 'long-enough-1', role: 'org_user' },
        c.token,
      ),
    cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, OK],
  },
  {
    route: 'portaladmin/security/users/createUser',
    what: 'org_admin',
    call: (c) =>
      post(
        c.f.t.root,
        'portaladmin/security/users/createUser',
        { username: uniq('made'), password: 'long-enough-1', role: 'org_admin' },
        c.token,
      ),
    cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, E403],
  },
  ...(
    [
      ["owner's token (publisher)", (c: Ctx) => owner(c), [E499, E498, OK, REVOKE, REVOKE, REVOKE, OK, REVOKE, REVOKE, REVOKE, E403]],
      ["a plain user's token", (c: Ctx) => c.f.recipient, [E499, E498, REVOKE, REVOKE, REVOKE, REVOKE, OK, REVOKE, REVOKE, REVOKE, OK]],
      [
        "the administrator's token",
        (c: Ctx) => c.f.people.admin,
        [E499, E498, REVOKE, REVOKE, REVOKE, REVOKE, OK, REVOKE, REVOKE, REVOKE, E403],
      ],
    ] as const
  ).map(([what, whose, cells]): Row => ({
    route: 'oauth2/revokeToken',
    what,
    setup: async (c) => ({ victim: await tokenFor(base(c), whose(c).username, whose(c).password) }),
    call: (c) => p(c, 'oauth2/revokeToken', { auth_token: c.s.victim }),
    verify: async (c, allowed) => expectState((await tokenWorks(c.f, c.s.victim)) !== allowed, 'token state does not match the answer'),
    cells: [...cells],
  })),

  // ── content ──
  {
    route: 'content/users/<user>/addItem',
    what: "into the owner's content",
    call: (c) => p(c, `content/users/${owner(c).username}/addItem`, { title: uniq('x'), type: 'Web Map', text: '{}' }),
    cells: [E499, E498, OK, E403, E403, E403, E403, E403, E403, E403, E403],
  },
  {
    route: 'content/users/<user>/addItem',
    what: 'into own content',
    call: (c) => p(c, `content/users/${self(c)}/addItem`, { title: uniq('x'), type: 'Web Map', text: '{}' }),
    cells: [E499, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
  },
  {
    route: 'content/users/<user>',
    what: "owner's listing",
    call: (c) => g(c, `content/users/${owner(c).username}`),
    cells: [E499, E498, OK, E403, E403, E403, OK, OK, E403, E403, E403],
  },
  {
    route: 'content/items/<id>',
    what: 'private item',
    call: (c) => g(c, `content/items/${c.f.privateItem}`),
    cells: [ITEM, E498, OK, ITEM, ITEM, ITEM, OK, OK, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/items/<id>',
    what: 'item shared to the group',
    call: (c) => g(c, `content/items/${c.f.groupItem}`),
    cells: [ITEM, E498, OK, ITEM, OK, OK, OK, OK, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/items/<id>/data',
    what: 'private item',
    call: (c) => g(c, `content/items/${c.f.privateItem}/data`),
    done: (b) => b?.secret === 1,
    cells: [ITEM, E498, OK, ITEM, ITEM, ITEM, OK, OK, ITEM, ITEM, ITEM],
  },
  {
    route: 'search',
    what: 'finds the private item',
    call: (c) => g(c, 'search', { q: `id:${c.f.privateItem}` }),
    done: (b, c) => b.results.some((r: any) => r.id === c.f.privateItem),
    cells: [NOT, E498, OK, NOT, NOT, NOT, OK, OK, NOT, NOT, NOT],
  },
  {
    route: 'content/users/<user>/items/<id>/status',
    what: 'private item',
    call: (c) => g(c, `content/users/${owner(c).username}/items/${c.f.privateItem}/status`),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, OK, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>/items/<id>/delete',
    what: 'private item',
    setup: async (c) => ({ item: await freshItem(c) }),
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/delete`),
    verify: async (c, allowed) =>
      expectState(!(await q1(c, 'SELECT 1 FROM items WHERE id = $1', [c.s.item])) === allowed, 'item presence does not match the answer'),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, ITEM, ITEM, ITEM],
  },

  // ── groups ──
  {
    route: 'community/createGroup',
    what: 'new group',
    call: (c) => p(c, 'community/createGroup', { title: uniq('g'), access: 'private' }),
    cells: [E499, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
  },
  {
    route: 'community/groups/<id>',
    what: 'private group',
    call: (c) => g(c, `community/groups/${c.f.group}`),
    cells: [GROUP, E498, OK, GROUP, OK, OK, OK, OK, GROUP, GROUP, GROUP],
  },
  {
    route: 'content/groups/<id>',
    what: 'private group content',
    call: (c) => g(c, `content/groups/${c.f.group}`),
    done: (b, c) => b.items.some((i: any) => i.id === c.f.groupItem),
    cells: [GROUP, E498, OK, GROUP, OK, OK, OK, OK, GROUP, GROUP, GROUP],
  },
  {
    route: 'content/groups/<id>/search',
    what: 'private group content',
    call: (c) => g(c, `content/groups/${c.f.group}/search`),
    done: (b, c) => b.results.some((i: any) => i.id === c.f.groupItem),
    cells: [GROUP, E498, OK, GROUP, OK, OK, OK, OK, GROUP, GROUP, GROUP],
  },
  ...(
    [
      [
        'addUsers',
        'member',
        false,
        (c: Ctx) => ({ users: c.f.recipient.username }),
        (b: any) => b.notAdded.length === 0,
        'member',
        [E499, E498, OK, GROUP, E403, OK, OK, E403, GROUP, GROUP, GROUP],
      ],
      [
        'addUsers',
        'manager',
        false,
        (c: Ctx) => ({ admins: c.f.recipient.username }),
        (b: any) => b.notAdded.length === 0,
        'admin',
        [E499, E498, OK, GROUP, E403, E403, OK, E403, GROUP, GROUP, GROUP],
      ],
      [
        'removeUsers',
        'member',
        true,
        (c: Ctx) => ({ users: c.f.recipient.username }),
        (b: any) => b.notRemoved.length === 0,
        undefined,
        [E499, E498, OK, GROUP, E403, OK, OK, E403, GROUP, GROUP, GROUP],
      ],
      [
        'updateUserMemberships',
        'member to manager',
        true,
        (c: Ctx) => ({ users: c.f.recipient.username, newMemberType: 'admin' }),
        (b: any) => b.results[0].success,
        'admin',
        [E499, E498, OK, GROUP, E403, E403, OK, E403, GROUP, GROUP, GROUP],
      ],
    ] as const
  ).map(([op, what, withRecipient, params, done, after, cells]): Row => ({
    route: `community/groups/<id>/${op}`,
    what,
    setup: async (c) => ({ group: await freshGroup(c, withRecipient) }),
    call: (c) => p(c, `community/groups/${c.s.group}/${op}`, params(c)),
    done: (b) => done(b),
    verify: async (c, allowed) => {
      const now = await memberType(c, c.s.group, c.f.recipient.username);
      const before = withRecipient ? 'member' : undefined;
      expectState(now === (allowed ? after : before), `recipient's membership is ${now}`);
    },
    cells: [...cells],
  })),
  {
    route: 'community/groups/<id>/delete',
    what: 'private group',
    setup: async (c) => ({ group: await freshGroup(c, false) }),
    call: (c) => p(c, `community/groups/${c.s.group}/delete`),
    verify: async (c, allowed) =>
      expectState(
        !(await q1(c, 'SELECT 1 FROM groups WHERE id = $1', [c.s.group])) === allowed,
        'group presence does not match the answer',
      ),
    cells: [E499, E498, OK, GROUP, E403, E403, OK, E403, GROUP, GROUP, GROUP],
  },

  // ── sharing ──
  {
    route: 'content/users/<user>/items/<id>/share',
    what: 'private item to the group',
    setup: async (c) => ({ item: await freshItem(c) }),
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/share`, { groups: c.f.group }),
    done: (b) => b.notSharedWith.length === 0,
    verify: async (c, allowed) =>
      expectState((await groupCount(c, c.s.item, c.f.group)) === (allowed ? 1 : 0), 'share state does not match the answer'),
    cells: [E499, E498, OK, E403, E403, ITEM, OK, E403, E403, OK, E403],
  },
  {
    route: 'content/users/<user>/items/<id>/share',
    what: 'private item to everyone',
    setup: async (c) => ({ item: await freshItem(c) }),
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/share`, { everyone: 'true' }),
    verify: async (c, allowed) =>
      expectState(
        (await q1(c, 'SELECT access FROM items WHERE id = $1', [c.s.item])).access === (allowed ? 'public' : 'private'),
        'access does not match the answer',
      ),
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, E403, OK, E403],
  },
  {
    route: 'content/users/<user>/items/<id>/unshare',
    what: 'item from the group',
    setup: async (c) => ({ item: await freshItem(c, { groups: c.f.group }) }),
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/unshare`, { groups: c.f.group }),
    done: (b) => b.notUnsharedFrom.length === 0,
    verify: async (c, allowed) =>
      expectState((await groupCount(c, c.s.item, c.f.group)) === (allowed ? 0 : 1), 'share state does not match the answer'),
    cells: [E499, E498, OK, E403, E403, OK, OK, E403, E403, OK, E403],
  },
  {
    route: 'content/items/<id>/share',
    what: 'org item to the group (group-admin route)',
    setup: async (c) => ({ item: await freshItem(c, { org: 'true' }) }),
    call: (c) => p(c, `content/items/${c.s.item}/share`, { groups: c.f.group }),
    done: (b) => b.notSharedWith.length === 0,
    verify: async (c, allowed) =>
      expectState((await groupCount(c, c.s.item, c.f.group)) === (allowed ? 1 : 0), 'share state does not match the answer'),
    cells: [E499, E498, OK, NOT, NOT, OK, OK, NOT, NOT, OK, NOT],
  },
  {
    route: 'content/items/<id>/unshare',
    what: 'private item from the group (group-admin route)',
    setup: async (c) => ({ item: await freshItem(c, { groups: c.f.group }) }),
    call: (c) => p(c, `content/items/${c.s.item}/unshare`, { groups: c.f.group }),
    done: (b) => b.notUnsharedFrom.length === 0,
    verify: async (c, allowed) =>
      expectState((await groupCount(c, c.s.item, c.f.group)) === (allowed ? 0 : 1), 'share state does not match the answer'),
    cells: [E499, E498, OK, ITEM, NOT, OK, OK, NOT, ITEM, OK, ITEM],
  },
  {
    route: 'content/users/<user>/shareItems',
    what: 'private item to the group',
    setup: async (c) => ({ item: await freshItem(c) }),
    call: (c) => p(c, `content/users/${owner(c).username}/shareItems`, { items: c.s.item, groups: c.f.group }),
    done: (b) => b.results[0].success,
    verify: async (c, allowed) =>
      expectState((await groupCount(c, c.s.item, c.f.group)) === (allowed ? 1 : 0), 'share state does not match the answer'),
    cells: [E499, E498, OK, E403, E403, NOT, OK, E403, E403, OK, E403],
  },
  {
    route: 'content/users/<user>/unshareItems',
    what: 'item from the group',
    setup: async (c) => ({ item: await freshItem(c, { groups: c.f.group }) }),
    call: (c) => p(c, `content/users/${owner(c).username}/unshareItems`, { items: c.s.item, groups: c.f.group }),
    done: (b) => b.results[0].success,
    verify: async (c, allowed) =>
      expectState((await groupCount(c, c.s.item, c.f.group)) === (allowed ? 0 : 1), 'share state does not match the answer'),
    cells: [E499, E498, OK, E403, E403, OK, OK, E403, E403, OK, E403],
  },

  // ── feature services ──
  {
    route: 'content/users/<user>/createService',
    what: "in the owner's content",
    call: (c) =>
      p(c, `content/users/${owner(c).username}/createService`, {
        createParameters: JSON.stringify({ name: uniq('cs') }),
        outputType: 'featureService',
      }),
    cells: [E499, E498, OK, E403, E403, E403, E403, E403, E403, E403, E403],
  },
  {
    route: 'content/users/<user>/createService',
    what: 'in own content',
    call: (c) =>
      p(c, `content/users/${self(c)}/createService`, {
        createParameters: JSON.stringify({ name: uniq('cs') }),
        outputType: 'featureService',
      }),
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, E403, E403, E403],
  },
  {
    route: 'content/users/<user>/publish',
    what: "owner's private CSV",
    call: (c) =>
      p(c, `content/users/${owner(c).username}/publish`, {
        itemId: c.f.csvItem,
        filetype: 'csv',
        publishParameters: JSON.stringify({ name: uniq('pub') }),
      }),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, E403, E403, ITEM, ITEM, ITEM],
  },
  ...(
    [
      ['FeatureServer', '', {}],
      ['FeatureServer/layers', 'layers', {}],
      ['FeatureServer/<layer>', '0', {}],
      ['FeatureServer/<layer>/query', '0/query', { where: '1=1', returnCountOnly: 'true' }],
    ] as const
  ).map(([route, path, params]): Row => ({
    route,
    what: 'private service',
    call: (c) => get(c.f.svcPrivate.url, path, params, c.token),
    cells: [E499, E498, OK, SVC, SVC, SVC, OK, OK, SVC, SVC, SVC],
  })),
  // The services catalog lists what the caller could open; the directory's pages answer as the JSON they show.
  {
    route: 'arcgis/rest/services',
    what: 'lists the private service',
    call: (c) => get(`${c.f.t.root}/arcgis/rest/services`, '', {}, c.token),
    done: (b, c) => b.services.some((s: any) => s.name === c.f.svcPrivate.name),
    cells: [NOT, E498, OK, NOT, NOT, NOT, OK, OK, NOT, NOT, NOT],
  },
  {
    route: 'arcgis/rest/services',
    what: 'lists the org service',
    call: (c) => htmlPage(`${c.f.t.root}/arcgis/rest/services`, '', {}, c.token),
    done: (b, c) => b.html.includes(`>${c.f.svcOrg.name}</a>`),
    cells: [NOT, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
  },
  ...(
    [
      ['FeatureServer?f=html', '', {}, 'Pts'],
      ['FeatureServer/<layer>?f=html', '0', {}, 'Pts (ID: 0)'],
      ['FeatureServer/<layer>/query?f=html', '0/query', { where: '1=1', outFields: 'Name' }, '1 feature(s).'],
      ['FeatureServer/<layer>/preview', '0/preview', {}, 'data-query='],
    ] as const
  ).map(([route, path, params, shows]): Row => ({
    route,
    what: 'private service page',
    call: (c) => htmlPage(c.f.svcPrivate.url, path, params, c.token),
    done: (b) => b.html.includes(shows),
    cells: [E499, E498, OK, SVC, SVC, SVC, OK, OK, SVC, SVC, SVC],
  })),
  {
    route: 'content/items/<id>?f=html',
    what: 'private item page',
    call: (c) => htmlPage(base(c), `content/items/${c.f.privateItem}`, {}, c.token),
    done: (b, c) => b.html.includes(c.f.privateItem),
    cells: [ITEM, E498, OK, ITEM, ITEM, ITEM, OK, OK, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/items/<id>?f=html',
    what: 'lists the private group the item is shared with',
    call: (c) => htmlPage(base(c), `content/items/${c.f.groupItem}`, {}, c.token),
    done: (b, c) => b.html.includes(`community/groups/${c.f.group}?`),
    cells: [ITEM, E498, OK, ITEM, OK, OK, OK, OK, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>?f=html',
    what: "owner's content page",
    call: (c) => htmlPage(base(c), `content/users/${owner(c).username}`, {}, c.token),
    // The listing, not one item on it: rows before this one add items to the owner's content, newest first.
    done: (b, c) => b.html.includes(`Content of ${owner(c).username}`) && /\d+ item\(s\)/.test(b.html),
    cells: [E499, E498, OK, E403, E403, E403, OK, OK, E403, E403, E403],
  },
  {
    route: 'community/groups/<id>?f=html',
    what: 'private group page',
    call: (c) => htmlPage(base(c), `community/groups/${c.f.group}`, {}, c.token),
    done: (b) => b.html.includes('Your membership'),
    cells: [GROUP, E498, OK, GROUP, OK, OK, OK, OK, GROUP, GROUP, GROUP],
  },
  {
    route: 'FeatureServer/<layer>/query',
    what: 'org service',
    call: (c) => get(c.f.svcOrg.url, '0/query', { where: '1=1', returnCountOnly: 'true' }, c.token),
    done: (b) => b.count >= 1,
    cells: [E499, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
  },
  {
    route: 'FeatureServer/<layer>/addFeatures',
    what: 'private service',
    call: (c) =>
      post(
        c.f.svcPrivate.layer,
        'addFeatures',
        { features: JSON.stringify([{ attributes: { Name: 'p' }, geometry: { x: 2, y: 2 } }]) },
        c.token,
      ),
    done: (b) => b.addResults[0].success,
    cells: [E499, E498, OK, SVC, SVC, SVC, OK, E403, SVC, SVC, SVC],
  },
  {
    route: 'FeatureServer/<layer>/addFeatures',
    what: 'org service',
    call: (c) =>
      post(
        c.f.svcOrg.layer,
        'addFeatures',
        { features: JSON.stringify([{ attributes: { Name: 'p' }, geometry: { x: 2, y: 2 } }]) },
        c.token,
      ),
    done: (b) => b.addResults[0].success,
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },
  {
    route: 'FeatureServer/<layer>/updateFeatures',
    what: 'org service',
    call: (c) =>
      post(c.f.svcOrg.layer, 'updateFeatures', { features: JSON.stringify([{ attributes: { OBJECTID: 1, Name: 'a' } }]) }, c.token),
    done: (b) => b.updateResults[0].success,
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },
  {
    route: 'FeatureServer/<layer>/deleteFeatures',
    what: 'org service, a fresh feature',
    setup: async (c) => ({
      oid: (
        await post(
          c.f.svcOrg.layer,
          'addFeatures',
          { features: JSON.stringify([{ attributes: { Name: 'd' }, geometry: { x: 3, y: 3 } }]) },
          owner(c).token,
        )
      ).body.addResults[0].objectId,
    }),
    call: (c) => post(c.f.svcOrg.layer, 'deleteFeatures', { objectIds: String(c.s.oid) }, c.token),
    done: (b) => b.deleteResults[0].success,
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },
  {
    route: 'FeatureServer/<layer>/applyEdits',
    what: 'org service',
    call: (c) =>
      post(c.f.svcOrg.layer, 'applyEdits', { adds: JSON.stringify([{ attributes: { Name: 'e' }, geometry: { x: 4, y: 4 } }]) }, c.token),
    done: (b) => b.addResults[0].success,
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },
  {
    route: 'admin/services/<name>/FeatureServer/addToDefinition',
    what: 'org service',
    call: (c) =>
      post(
        c.f.svcOrg.admin,
        'addToDefinition',
        { addToDefinition: JSON.stringify({ tables: [{ name: uniq('T'), fields: [{ name: 'N', type: 'esriFieldTypeInteger' }] }] }) },
        c.token,
      ),
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },
  {
    route: 'admin/services/<name>/FeatureServer/deleteFromDefinition',
    what: 'org service, a fresh table',
    setup: async (c) => ({
      id: (
        await post(
          c.f.svcOrg.admin,
          'addToDefinition',
          { addToDefinition: JSON.stringify({ tables: [{ name: uniq('T'), fields: [] }] }) },
          owner(c).token,
        )
      ).body.layers[0].id,
    }),
    call: (c) =>
      post(c.f.svcOrg.admin, 'deleteFromDefinition', { deleteFromDefinition: JSON.stringify({ tables: [{ id: c.s.id }] }) }, c.token),
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },

  // ── export: the path user owns the result; writing there is an update, and the copy goes only to a reader ──
  exportRow("private service into the owner's content", 'svcPrivate', (c) => owner(c).username, [
    E499,
    E498,
    OK,
    E403,
    E403,
    E403,
    OK,
    E403,
    ITEM,
    E403,
    E403,
  ]),
  exportRow('private service into own content', 'svcPrivate', self, [E499, E498, OK, ITEM, ITEM, ITEM, OK, OK, ITEM, ITEM, ITEM]),
  exportRow("private service into a third user's content", 'svcPrivate', (c) => c.f.recipient.username, [
    E499,
    E498,
    E403,
    E403,
    E403,
    E403,
    E403,
    E403,
    ITEM,
    E403,
    E403,
  ]),
  exportRow("org service into a third user's content", 'svcOrg', (c) => c.f.recipient.username, [
    E499,
    E498,
    E403,
    E403,
    E403,
    E403,
    OK,
    E403,
    E403,
    E403,
    E403,
  ]),
  exportRow('org service into own content', 'svcOrg', self, [E499, E498, OK, E403, E403, E403, OK, OK, E403, E403, E403]),

  // ── folders, move, reassign, multipart upload ──
  {
    route: 'content/users/<user>/createFolder',
    what: "in the owner's content",
    setup: async () => ({ title: uniq('cellfolder') }),
    call: (c) => p(c, `content/users/${owner(c).username}/createFolder`, { title: c.s.title }),
    verify: async (c, allowed) =>
      expectState(
        !!(await q1(c, 'SELECT 1 FROM folders WHERE title = $1', [c.s.title])) === allowed,
        'folder presence does not match the answer',
      ),
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },
  {
    route: 'content/users/<user>/<folder>',
    what: "owner's folder listing",
    setup: async (c) => ({ folder: await freshFolder(c) }),
    call: (c) => g(c, `content/users/${owner(c).username}/${c.s.folder}`),
    done: (b, c) => b.currentFolder?.id === c.s.folder,
    cells: [E499, E498, OK, E403, E403, E403, OK, OK, E403, E403, E403],
  },
  {
    route: 'content/users/<user>/<folder>/addItem',
    what: "into the owner's folder",
    setup: async (c) => ({ folder: await freshFolder(c), title: uniq('infolder') }),
    call: (c) => p(c, `content/users/${owner(c).username}/${c.s.folder}/addItem`, { title: c.s.title, type: 'Web Map', text: '{}' }),
    verify: async (c, allowed) =>
      expectState(
        !!(await q1(c, 'SELECT 1 FROM items WHERE title = $1 AND owner_folder = $2', [c.s.title, c.s.folder])) === allowed,
        'item presence does not match the answer',
      ),
    cells: [E499, E498, OK, E403, E403, E403, E403, E403, E403, E403, E403],
  },
  {
    route: 'content/users/<user>/<folder>/delete',
    what: "owner's folder with an item",
    setup: async (c) => {
      const folder = await freshFolder(c);
      const r = await post(
        base(c),
        `content/users/${owner(c).username}/${folder}/addItem`,
        { title: uniq('f'), type: 'Web Map', text: '{}' },
        owner(c).token,
      );
      return { folder, item: r.body.id };
    },
    call: (c) => p(c, `content/users/${owner(c).username}/${c.s.folder}/delete`),
    verify: async (c, allowed) => {
      const gone = !(await q1(c, 'SELECT 1 FROM folders WHERE id = $1', [c.s.folder]));
      const item = await q1(c, 'SELECT owner_folder FROM items WHERE id = $1', [c.s.item]);
      expectState(gone === allowed && (item.owner_folder === null) === allowed, `folder gone: ${gone}, item in ${item.owner_folder}`);
    },
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },
  {
    route: 'content/users/<user>/items/<id>/move',
    what: "into the owner's folder",
    setup: async (c) => ({ folder: await freshFolder(c), item: await freshItem(c) }),
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/move`, { folder: c.s.folder }),
    verify: async (c, allowed) =>
      expectState((await itemFolder(c, c.s.item)) === (allowed ? c.s.folder : null), 'folder does not match the answer'),
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },
  {
    route: 'content/users/<user>/moveItems',
    what: "into the owner's folder",
    setup: async (c) => ({ folder: await freshFolder(c), item: await freshItem(c) }),
    call: (c) => p(c, `content/users/${owner(c).username}/moveItems`, { items: c.s.item, folder: c.s.folder }),
    done: (b) => b.results[0].success,
    verify: async (c, allowed) =>
      expectState((await itemFolder(c, c.s.item)) === (allowed ? c.s.folder : null), 'folder does not match the answer'),
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },
  {
    route: 'content/users/<user>/items/<id>/reassign',
    what: 'to the recipient',
    setup: async (c) => ({ item: await freshItem(c) }),
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/reassign`, { targetUsername: c.f.recipient.username }),
    verify: async (c, allowed) =>
      expectState(
        (await itemOwner(c, c.s.item)) === (allowed ? c.f.recipient.username : owner(c).username),
        'owner does not match the answer',
      ),
    cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, E403],
  },
  {
    route: 'content/users/<user>/reassignItems',
    what: 'to the recipient',
    setup: async (c) => ({ item: await freshItem(c) }),
    call: (c) => p(c, `content/users/${owner(c).username}/reassignItems`, { items: c.s.item, targetUsername: c.f.recipient.username }),
    done: (b) => b.results[0].success,
    verify: async (c, allowed) =>
      expectState(
        (await itemOwner(c, c.s.item)) === (allowed ? c.f.recipient.username : owner(c).username),
        'owner does not match the answer',
      ),
    cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, E403],
  },
  {
    route: 'content/users/<user>/items/<id>/addPart',
    what: "owner's multipart upload",
    setup: async (c) => ({ item: await freshUpload(c) }),
    call: (c) => postPart(c, `content/users/${owner(c).username}/items/${c.s.item}/addPart`),
    verify: async (c, allowed) =>
      expectState(
        !!(await q1(c, 'SELECT 1 FROM item_upload_parts WHERE item_id = $1', [c.s.item])) === allowed,
        'parts do not match the answer',
      ),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>/items/<id>/parts',
    what: "owner's multipart upload",
    setup: async (c) => ({ item: await freshUpload(c) }),
    call: (c) => g(c, `content/users/${owner(c).username}/items/${c.s.item}/parts`),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>/items/<id>/commit',
    what: "owner's multipart upload of one part",
    setup: async (c) => {
      const item = await freshUpload(c);
      await postPart({ ...c, token: owner(c).token }, `content/users/${owner(c).username}/items/${item}/addPart`);
      return { item };
    },
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/commit`),
    verify: async (c, allowed) => {
      const { status } = await q1(c, 'SELECT status FROM items WHERE id = $1', [c.s.item]);
      expectState(allowed ? status !== 'partsUploading' : status === 'partsUploading', `status ${status}`);
    },
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>/items/<id>/cancel',
    what: "owner's multipart upload",
    setup: async (c) => ({ item: await freshUpload(c) }),
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/cancel`),
    verify: async (c, allowed) =>
      expectState(!(await q1(c, 'SELECT 1 FROM items WHERE id = $1', [c.s.item])) === allowed, 'item presence does not match the answer'),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM, ITEM],
  },

  // ── operations ──
  {
    route: 'admin/queues (Bull Board)',
    what: 'queue list',
    raw: true,
    call: (c) => board(c),
    cells: [H401, H401, H403, H403, H403, H403, H200, H403, H403, H403, H403],
  },
  {
    route: 'health',
    what: 'liveness',
    raw: true,
    call: (c) => get(c.f.t.root, 'health', {}, c.token),
    cells: [H200, H200, H200, H200, H200, H200, H200, H200, H200, H200, H200],
  },
];

/** Bull Board's JSON API, the way its page calls it once the token is known. */
async function board(c: Ctx): Promise<Reply> {
  const res = await fetch(`${c.f.t.root}/admin/queues/api/queues`, { headers: c.token ? { Authorization: `Bearer ${c.token}` } : {} });
  const text = await res.text();
  return { status: res.status, body: undefined, text, headers: res.headers };
}
