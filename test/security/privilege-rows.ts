import { get, post, read, Reply, tokenFor, uniq } from '../support/client';
import { Column, COLUMNS, Fixtures, newService, newView, Person, tokenWorks } from './privilege-fixtures';

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
export const RESOURCE = '400 Resource does not exist or is inaccessible.';
export const HAS_VIEWS = '400 Unable to delete item. This service item has a related Service item';

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

async function freshItem(c: Ctx, share: { groups?: string; org?: string } = {}, type = 'Web Map'): Promise<string> {
  const r = await post(base(c), `content/users/${owner(c).username}/addItem`, { title: uniq('cell'), type, text: '{}' }, owner(c).token);
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

function exportRow(what: string, svc: 'svcPrivate' | 'svcOrg' | 'svcView', dest: (c: Ctx) => string, cells: string[]): Row {
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

const relatedTables = new Map<string, Promise<void>>();

/**
 * A table related to layer 0 of the fixture service by relationship 77 (Note 'n' for feature 1), made once per service
 * whichever cell asks first: the cells of a row run at once.
 */
function relatedTable(c: Ctx, svc: 'svcPrivate' | 'svcOrg'): Promise<void> {
  const s = c.f[svc];
  let made = relatedTables.get(s.name);
  if (!made) {
    made = (async () => {
      const side = (id: number, related: number, role: string, keyField: string) => ({
        id: 77,
        name: `rel${id}`,
        relatedTableId: related,
        cardinality: 'esriRelCardinalityOneToMany',
        role,
        keyField,
      });
      const table = await post(
        s.admin,
        'addToDefinition',
        {
          addToDefinition: JSON.stringify({
            tables: [
              {
                name: 'Notes',
                fields: [
                  { name: 'PtId', type: 'esriFieldTypeInteger' },
                  { name: 'Note', type: 'esriFieldTypeString' },
                ],
              },
            ],
          }),
        },
        owner(c).token,
      );
      const id = table.body.layers[0].id as number;
      await post(
        `${s.admin}/${id}`,
        'addToDefinition',
        { addToDefinition: JSON.stringify({ relationships: [side(id, 0, 'esriRelRoleDestination', 'PtId')] }) },
        owner(c).token,
      );
      await post(
        `${s.admin}/0`,
        'addToDefinition',
        { addToDefinition: JSON.stringify({ relationships: [side(0, id, 'esriRelRoleOrigin', 'OBJECTID')] }) },
        owner(c).token,
      );
      await post(`${s.url}/${id}`, 'addFeatures', { features: JSON.stringify([{ attributes: { PtId: 1, Note: 'n' } }]) }, owner(c).token);
    })();
    relatedTables.set(s.name, made);
  }
  return made;
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
        'updateUsers',
        'member to manager',
        true,
        (c: Ctx) => ({ admins: c.f.recipient.username }),
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
      ['FeatureServer/queryDomains', 'queryDomains', {}],
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

  // ── admin definitions, the feature resource and related records (issue 28) ──
  {
    route: 'admin/services/<name>/FeatureServer',
    what: 'org service (getServiceAdminInfo)',
    call: (c) => get(c.f.svcOrg.admin, '', {}, c.token),
    done: (b, c) => b.adminServiceInfo?.name === c.f.svcOrg.name,
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },
  {
    route: 'admin/services/<name>/FeatureServer/updateDefinition',
    what: 'org service description',
    setup: async () => ({ text: uniq('described') }),
    call: (c) =>
      post(c.f.svcOrg.admin, 'updateDefinition', { updateDefinition: JSON.stringify({ serviceDescription: c.s.text }) }, c.token),
    verify: async (c, allowed) => {
      const row = await q1(c, 'SELECT description FROM feature_services WHERE item_id = $1', [c.f.svcOrg.itemId]);
      // Allowed cells run at once and each writes its own text; a refused one must never have written its own.
      if (!allowed) expectState(row.description !== c.s.text, `description: ${row.description}`);
    },
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  },
  ...(
    [
      ['updateDefinition', (name: string) => ({ updateDefinition: JSON.stringify({ name }) }), 'name'],
      [
        'addToDefinition',
        (name: string) => ({ addToDefinition: JSON.stringify({ fields: [{ name, type: 'esriFieldTypeInteger' }] }) }),
        'field',
      ],
      ['deleteFromDefinition', (_name: string) => ({ deleteFromDefinition: JSON.stringify({ fields: [{ name: 'N' }] }) }), 'no N'],
    ] as const
  ).map(([op, params, changes]): Row => ({
    route: `admin/services/<name>/FeatureServer/<layer>/${op}`,
    what: 'org service, a fresh table',
    setup: async (c) => ({
      name: uniq('T'),
      id: (
        await post(
          c.f.svcOrg.admin,
          'addToDefinition',
          { addToDefinition: JSON.stringify({ tables: [{ name: uniq('T'), fields: [{ name: 'N', type: 'esriFieldTypeInteger' }] }] }) },
          owner(c).token,
        )
      ).body.layers[0].id,
    }),
    call: (c) => post(`${c.f.svcOrg.admin}/${c.s.id}`, op, params(c.s.name), c.token),
    verify: async (c, allowed) => {
      const l = await q1(c, 'SELECT name, fields FROM feature_layers WHERE service_item_id = $1 AND layer_id = $2', [
        c.f.svcOrg.itemId,
        c.s.id,
      ]);
      const names = l.fields.map((f: any) => f.name);
      const changed = changes === 'name' ? l.name === c.s.name : changes === 'field' ? names.includes(c.s.name) : !names.includes('N');
      expectState(changed === allowed, `table: ${JSON.stringify(l)}`);
    },
    cells: [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403],
  })),
  ...(['svcPrivate', 'svcOrg'] as const).flatMap((svc): Row[] => {
    const cells =
      svc === 'svcPrivate' ? [E499, E498, OK, SVC, SVC, SVC, OK, OK, SVC, SVC, SVC] : [E499, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK];
    const what = svc === 'svcPrivate' ? 'private service' : 'org service';
    return [
      {
        route: 'FeatureServer/<layer>/<oid>',
        what,
        call: (c) => get(c.f[svc].url, '0/1', {}, c.token),
        done: (b) => b.feature?.attributes?.OBJECTID === 1,
        cells,
      },
      {
        route: 'FeatureServer/<layer>/queryRelatedRecords',
        what,
        setup: async (c) => {
          await relatedTable(c, svc);
          return {};
        },
        call: (c) => get(c.f[svc].url, '0/queryRelatedRecords', { relationshipId: '77', objectIds: '1', outFields: '*' }, c.token),
        done: (b) => b.relatedRecordGroups?.[0]?.relatedRecords?.[0]?.attributes?.Note === 'n',
        cells,
      },
    ];
  }),
  // ── hosted feature layer views: svcView reads the private svcPrivate and is shared with the group ──
  {
    route: 'FeatureServer/<layer>/query',
    what: 'view of a private service, shared with the group',
    call: (c) => get(c.f.svcView.url, '0/query', { where: '1=1', returnCountOnly: 'true' }, c.token),
    done: (b) => b.count >= 1,
    cells: [E499, E498, OK, SVC, OK, OK, OK, OK, SVC, SVC, SVC],
  },
  {
    route: 'FeatureServer/sources',
    what: 'view shared with the group',
    call: (c) => get(c.f.svcView.url, 'sources', {}, c.token),
    done: (b, c) => b.services?.[0]?.name === c.f.svcPrivate.name,
    cells: [E499, E498, OK, SVC, E403, E403, OK, OK, SVC, SVC, SVC],
  },
  {
    route: 'admin/services/<name>/FeatureServer/addToDefinition',
    what: 'a layer of the private service into a view shared with the group',
    setup: async (c) => {
      const view = await newView(c.f, owner(c), c.f.svcPrivate);
      await post(base(c), `content/users/${owner(c).username}/items/${view.itemId}/share`, { groups: c.f.group }, owner(c).token);
      return { view };
    },
    call: (c) =>
      post(
        c.s.view.admin,
        'addToDefinition',
        {
          addToDefinition: JSON.stringify({
            layers: [
              {
                id: 5,
                name: 'More',
                adminLayerInfo: { viewLayerDefinition: { sourceServiceName: c.f.svcPrivate.name, sourceLayerId: 0 } },
              },
            ],
          }),
        },
        c.token,
      ),
    verify: async (c, allowed) =>
      expectState(
        !!(await q1(c, 'SELECT 1 FROM feature_view_layers WHERE service_item_id = $1 AND layer_id = 5', [c.s.view.itemId])) === allowed,
        'view layer presence does not match the answer',
      ),
    cells: [E499, E498, OK, SVC, E403, E403, OK, E403, SVC, SVC, SVC],
  },
  {
    route: 'FeatureServer/<layer>/addFeatures',
    what: 'view shared with the group',
    call: (c) =>
      post(
        c.f.svcView.layer,
        'addFeatures',
        { features: JSON.stringify([{ attributes: { Name: 'v' }, geometry: { x: 2, y: 2 } }]) },
        c.token,
      ),
    done: (b) => b.addResults[0].success,
    cells: [E499, E498, OK, SVC, E403, E403, OK, E403, SVC, SVC, SVC],
  },
  {
    route: 'content/users/<user>/items/<id>/delete',
    what: 'a private service a view reads',
    setup: async (c) => {
      const source = await newService(c.f, owner(c));
      return { source, view: await newView(c.f, owner(c), source) };
    },
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.source.itemId}/delete`),
    verify: async (c) => expectState(!!(await q1(c, 'SELECT 1 FROM items WHERE id = $1', [c.s.source.itemId])), 'the source was deleted'),
    cells: [E499, E498, HAS_VIEWS, ITEM, ITEM, ITEM, HAS_VIEWS, E403, ITEM, ITEM, ITEM],
  },
  exportRow('view shared with the group into own content', 'svcView', self, [E499, E498, OK, ITEM, E403, E403, OK, OK, ITEM, ITEM, ITEM]),

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

  // ── item details: update, thumbnail, protection, info files, resources, relationships, item groups ──
  ...(
    [
      ['private item', false, [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, OK, ITEM, ITEM]],
      ['item shared to the group', true, [E499, E498, OK, ITEM, E403, E403, OK, E403, OK, ITEM, ITEM]],
    ] as const
  ).map(([what, shared, cells]): Row => ({
    route: 'content/users/<user>/items/<id>/update',
    what,
    setup: async (c) => ({ item: await freshItem(c, shared ? { groups: c.f.group } : {}) }),
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/update`, { snippet: `by ${c.col}` }),
    verify: async (c, allowed) => {
      const { snippet } = await q1(c, 'SELECT snippet FROM items WHERE id = $1', [c.s.item]);
      expectState((snippet === `by ${c.col}`) === allowed, `snippet is '${snippet}'`);
    },
    cells: [...cells],
  })),
  {
    route: 'content/users/<user>/<folder>/items/<id>/update',
    what: 'private item, a folder id in the path',
    setup: async (c) => ({ item: await freshItem(c) }),
    call: (c) => p(c, `content/users/${owner(c).username}/${'0'.repeat(32)}/items/${c.s.item}/update`, { snippet: `by ${c.col}` }),
    verify: async (c, allowed) => {
      const { snippet } = await q1(c, 'SELECT snippet FROM items WHERE id = $1', [c.s.item]);
      expectState((snippet === `by ${c.col}`) === allowed, `snippet is '${snippet}'`);
    },
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, OK, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>/items/<id>/update',
    what: 'thumbnail part',
    setup: async (c) => ({ item: await freshItem(c) }),
    call: (c) => upload(c, `content/users/${owner(c).username}/items/${c.s.item}/update`, 'thumbnail', PNG_1PX, 'dot.png'),
    verify: async (c, allowed) => {
      const { thumbnail } = await q1(c, 'SELECT thumbnail FROM items WHERE id = $1', [c.s.item]);
      expectState((thumbnail === 'thumbnail/dot.png') === allowed, `thumbnail is ${thumbnail}`);
    },
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, OK, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>/items/<id>/deleteThumbnail',
    what: 'private item with a thumbnail',
    setup: async (c) => {
      const item = await freshItem(c);
      await upload(
        { ...c, token: owner(c).token },
        `content/users/${owner(c).username}/items/${item}/update`,
        'thumbnail',
        PNG_1PX,
        'dot.png',
      );
      return { item };
    },
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/deleteThumbnail`),
    verify: async (c, allowed) => {
      const { thumbnail } = await q1(c, 'SELECT thumbnail FROM items WHERE id = $1', [c.s.item]);
      expectState((thumbnail === null) === allowed, `thumbnail is ${thumbnail}`);
    },
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, OK, ITEM, ITEM],
  },
  ...(['protect', 'unprotect'] as const).map((op): Row => ({
    route: `content/users/<user>/items/<id>/${op}`,
    what: 'private item',
    setup: async (c) => {
      const item = await freshItem(c);
      if (op === 'unprotect') await post(base(c), `content/users/${owner(c).username}/items/${item}/protect`, {}, owner(c).token);
      return { item };
    },
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/${op}`),
    verify: async (c, allowed) => {
      const now = (await q1(c, 'SELECT protected FROM items WHERE id = $1', [c.s.item])).protected;
      expectState(now === (op === 'protect' ? allowed : !allowed), `protected is ${now}`);
    },
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, OK, ITEM, ITEM],
  })),
  {
    route: 'content/users/<user>/items/<id>/updateinfo',
    what: 'private item',
    setup: async (c) => ({ item: await freshItem(c) }),
    call: (c) => upload(c, `content/users/${owner(c).username}/items/${c.s.item}/updateinfo`, 'file', Buffer.from('{"a":1}'), 'extra.json'),
    verify: async (c, allowed) =>
      expectState(!!(await infoFile(c, c.s.item, 'extra.json')) === allowed, 'info file does not match the answer'),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, OK, ITEM, ITEM],
  },
  {
    route: 'content/items/<id>/info/<file>',
    what: 'private item, iteminfo.xml',
    call: async (c) => asFile(await g(c, `content/items/${c.f.privateItem}/info/iteminfo.xml`)),
    done: (b) => typeof b.file === 'string' && b.file.includes('<ESRI_ItemInformation'),
    cells: [ITEM, E498, OK, ITEM, ITEM, ITEM, OK, OK, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>/items/<id>/addResources',
    what: 'private item, text resource',
    setup: async (c) => ({ item: await freshItem(c) }),
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/addResources`, { fileName: 'a.json', text: '{}' }),
    verify: async (c, allowed) =>
      expectState(!!(await resourceRow(c, c.s.item, 'a.json')) === allowed, 'resource does not match the answer'),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, OK, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>/items/<id>/updateResources',
    what: 'private item, text resource',
    setup: async (c) => ({ item: await itemWithResource(c, false) }),
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/updateResources`, { fileName: 'a.json', text: '{"v":2}' }),
    verify: async (c, allowed) =>
      expectState(((await resourceRow(c, c.s.item, 'a.json')).size === '7') === allowed, 'resource size does not match'),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, OK, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>/items/<id>/removeResources',
    what: 'private item, one resource',
    setup: async (c) => ({ item: await itemWithResource(c, false) }),
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/removeResources`, { resource: 'a.json' }),
    verify: async (c, allowed) =>
      expectState(!(await resourceRow(c, c.s.item, 'a.json')) === allowed, 'resource does not match the answer'),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, OK, ITEM, ITEM],
  },
  {
    route: 'content/items/<id>/resources',
    what: 'item shared to the group, one private resource',
    setup: async (c) => ({ item: await itemWithResource(c, true) }),
    call: (c) => g(c, `content/items/${c.s.item}/resources`),
    done: (b) => b.total === 1,
    cells: [ITEM, E498, OK, ITEM, NOT, NOT, OK, NOT, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/items/<id>/resources/<file>',
    what: 'item shared to the group, private resource',
    setup: async (c) => ({ item: await itemWithResource(c, true) }),
    call: async (c) => asFile(await g(c, `content/items/${c.s.item}/resources/a.json`)),
    done: (b) => b.file === '{}',
    cells: [ITEM, E498, OK, ITEM, RESOURCE, RESOURCE, OK, RESOURCE, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>/addRelationship',
    what: "Map2Service between the owner's private items, as oneself",
    setup: async (c) => ({ map: await freshItem(c), svc: await freshItem(c, {}, 'Feature Service') }),
    call: (c) =>
      p(c, `content/users/${self(c)}/addRelationship`, {
        originItemId: c.s.map,
        destinationItemId: c.s.svc,
        relationshipType: 'Map2Service',
      }),
    verify: async (c, allowed) =>
      expectState(!!(await relationship(c, c.s.map, c.s.svc)) === allowed, 'relationship does not match the answer'),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/users/<user>/deleteRelationship',
    what: "the owner's Map2Service, as oneself",
    setup: async (c) => {
      const [map, svc] = [await freshItem(c), await freshItem(c, {}, 'Feature Service')];
      const ids = { originItemId: map, destinationItemId: svc, relationshipType: 'Map2Service' };
      await post(base(c), `content/users/${owner(c).username}/addRelationship`, ids, owner(c).token);
      return { map, svc, ids };
    },
    call: (c) => p(c, `content/users/${self(c)}/deleteRelationship`, c.s.ids),
    verify: async (c, allowed) =>
      expectState(!(await relationship(c, c.s.map, c.s.svc)) === allowed, 'relationship does not match the answer'),
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, E403, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/items/<id>/relatedItems',
    what: 'private item',
    call: (c) => g(c, `content/items/${c.f.privateItem}/relatedItems`, { relationshipType: 'Map2Service' }),
    cells: [ITEM, E498, OK, ITEM, ITEM, ITEM, OK, OK, ITEM, ITEM, ITEM],
  },
  {
    route: 'content/items/<id>/groups',
    what: 'item shared to the private group',
    call: (c) => g(c, `content/items/${c.f.groupItem}/groups`),
    done: (b, c) => [...b.admin, ...b.member, ...b.other].some((x: any) => x.id === c.f.group),
    cells: [ITEM, E498, OK, ITEM, OK, OK, OK, OK, ITEM, ITEM, ITEM],
  },
  ...GROUP_ROWS(),
  // ── users, the organisation and notifications (issue 27) ──
  ...usersRows(),
  // ── organization webhooks (issue 29) ──
  ...webhookRows(),
  // ── feature attachments (issue 28) ──
  ...attachmentRows(),
  // ── cancelJob on an export (issue 30): the job's owner, or an administrator who may update the owner's items ──
  {
    route: 'content/users/<user>/items/<id>/cancelJob',
    what: "owner's queued export",
    setup: async (c) => {
      const r = await post(
        base(c),
        `content/users/${owner(c).username}/export`,
        { itemId: c.f.svcPrivate.itemId, exportFormat: 'CSV' },
        owner(c).token,
      );
      return { job: r.body.jobId, item: r.body.exportItemId };
    },
    call: (c) => p(c, `content/users/${owner(c).username}/items/${c.s.item}/cancelJob`, { jobId: c.s.job, jobType: 'export' }),
    verify: async (c, allowed) => {
      const row = await q1(c, 'SELECT status FROM jobs WHERE id = $1', [c.s.job]);
      expectState((row?.status === 'cancelled') === allowed, `job: ${JSON.stringify(row)}`);
    },
    cells: [E499, E498, OK, ITEM, ITEM, ITEM, OK, ITEM, OK, ITEM, ITEM],
  },
  // ── the group, webhooks and users pages (issue 30) ──
  ...groupPageRows(),
];

// ── item details: helpers ──

/** A 1×1 PNG. */
const PNG_1PX = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a50d2b2e0000000049454e44ae426082',
  'hex',
);

/** A multipart POST with one file part, the token (if any) before it, as a careful client sends it. */
async function upload(c: Ctx, path: string, field: string, bytes: Buffer, name: string): Promise<Reply> {
  const form = new FormData();
  form.set('f', 'json');
  if (c.token) form.set('token', c.token);
  form.set(field, new Blob([bytes]), name);
  const res = await fetch(`${base(c)}/${path}`, { method: 'POST', body: form });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, headers: res.headers };
}

/** A file download as the matrix reads replies: its envelope when it answered one, else the file's text. */
function asFile(r: Reply): Reply {
  return r.headers.get('content-type')?.startsWith('application/json') && r.body?.error ? r : { ...r, body: { file: r.text } };
}

async function itemWithResource(c: Ctx, sharedPrivate: boolean): Promise<string> {
  const item = await freshItem(c, sharedPrivate ? { groups: c.f.group } : {});
  const params = { fileName: 'a.json', text: '{}', ...(sharedPrivate ? { access: 'private' } : {}) };
  await post(base(c), `content/users/${owner(c).username}/items/${item}/addResources`, params, owner(c).token);
  return item;
}

const resourceRow = (c: Ctx, item: string, path: string) =>
  q1(c, `SELECT size FROM item_files WHERE item_id = $1 AND kind = 'resource' AND path = $2`, [item, path]);
const infoFile = (c: Ctx, item: string, path: string) =>
  q1(c, `SELECT 1 FROM item_files WHERE item_id = $1 AND kind = 'info' AND path = $2`, [item, path]);
const relationship = (c: Ctx, origin: string, destination: string) =>
  q1(c, 'SELECT 1 FROM item_relationships WHERE origin_id = $1 AND destination_id = $2', [origin, destination]);

/** Bull Board's JSON API, the way its page calls it once the token is known. */
async function board(c: Ctx): Promise<Reply> {
  const res = await fetch(`${c.f.t.root}/admin/queues/api/queues`, { headers: c.token ? { Authorization: `Bearer ${c.token}` } : {} });
  const text = await res.text();
  return { status: res.status, body: undefined, text, headers: res.headers };
}

// ── groups: search, update, protection, members, joining, invitations, category schema ──

interface GroupSetup {
  access?: 'private' | 'org';
  autoJoin?: boolean;
  protected?: boolean;
  /** What the recipient is in the group before the call. */
  recipient?: 'member' | 'admin' | 'applicant' | 'invited';
}

/** A fresh group of the owner's with `member` as member and `manager` as manager, and the recipient as asked. */
async function groupWith(c: Ctx, o: GroupSetup = {}): Promise<string> {
  const r = await post(
    base(c),
    'community/createGroup',
    { title: uniq('cellgroup'), access: o.access ?? 'private', autoJoin: String(o.autoJoin ?? false) },
    owner(c).token,
  );
  const id = r.body.group.id;
  const recipient = c.f.recipient.username;
  const users = [c.f.people.member.username, ...(o.recipient === 'member' ? [recipient] : [])].join(',');
  const admins = [c.f.people.manager.username, ...(o.recipient === 'admin' ? [recipient] : [])].join(',');
  await post(base(c), `community/groups/${id}/addUsers`, { users, admins }, owner(c).token);
  if (o.recipient === 'applicant') await post(base(c), `community/groups/${id}/join`, {}, c.f.recipient.token);
  if (o.recipient === 'invited') await post(base(c), `community/groups/${id}/invite`, { users: recipient }, owner(c).token);
  if (o.protected) await post(base(c), `community/groups/${id}/protect`, {}, owner(c).token);
  return id;
}

const groupRow = async (c: Ctx, id: string) => q1(c, 'SELECT * FROM groups WHERE id = $1', [id]);
const applied = async (c: Ctx, group: string, user: string) =>
  !!(await q1(c, 'SELECT 1 FROM group_applications a JOIN users u ON u.id = a.user_id WHERE a.group_id = $1 AND u.username = $2', [
    group,
    user,
  ]));
const invitation = async (c: Ctx, group: string, user: string) =>
  q1(c, 'SELECT i.id FROM group_invitations i JOIN users u ON u.id = i.user_id WHERE i.group_id = $1 AND u.username = $2', [group, user]);

/** A thumbnail fetched as a client's <img> would: the image, or the envelope as the matrix reads it. */
async function image(c: Ctx, path: string): Promise<Reply> {
  const res = await fetch(`${base(c)}/${path}`, { headers: c.token ? { Authorization: `Bearer ${c.token}` } : {} });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('latin1');
  let body: any;
  if (res.headers.get('content-type')?.startsWith('image/png')) body = { image: bytes.subarray(1, 4).toString() === 'PNG' };
  else body = JSON.parse(text);
  return { status: res.status, body, text, headers: res.headers };
}

/** A function, so that ROWS (above) can list these rows before the helpers they use are defined. */
function GROUP_ROWS(): Row[] {
  const JOIN = '400 Unable to join group.';
  const LEAVE = '400 Unable to leave group.';
  const UNDELETABLE = '400 Unable to delete group.';
  const NO_INVITATION = '400 Invitation does not exist or is inaccessible.';
  /** Who may change a private group: its owner, its manager, the administrator; `view` sees it but may not. */
  const MANAGE = [E499, E498, OK, GROUP, E403, OK, OK, E403, GROUP, GROUP, GROUP];
  /** Owner-or-administrator operations on a private group (protect, unprotect, delete). */
  const OWN = [E499, E498, OK, GROUP, E403, E403, OK, E403, GROUP, GROUP, GROUP];
  /** Reads of a private group's members: its members and those who may view the organisation's groups. */
  const MEMBERS = [E499, E498, OK, GROUP, OK, OK, OK, OK, GROUP, GROUP, GROUP];
  return [
    {
      route: 'community/groups',
      what: 'private group by id',
      call: (c) => g(c, 'community/groups', { q: `id:${c.f.group}` }),
      done: (b, c) => b.results.some((r: any) => r.id === c.f.group),
      cells: [NOT, E498, OK, NOT, OK, OK, OK, OK, NOT, NOT, NOT],
    },
    {
      route: 'community/groups/<id>/update',
      what: 'private group',
      setup: async (c) => ({ group: await groupWith(c), snippet: uniq('snippet') }),
      call: (c) => p(c, `community/groups/${c.s.group}/update`, { snippet: c.s.snippet }),
      verify: async (c, allowed) =>
        expectState(((await groupRow(c, c.s.group)).snippet === c.s.snippet) === allowed, 'snippet does not match the answer'),
      cells: MANAGE,
    },
    ...(['protect', 'unprotect'] as const).map((op): Row => ({
      route: `community/groups/<id>/${op}`,
      what: 'private group',
      setup: async (c) => ({ group: await groupWith(c, { protected: op === 'unprotect' }) }),
      call: (c) => p(c, `community/groups/${c.s.group}/${op}`),
      verify: async (c, allowed) =>
        expectState((await groupRow(c, c.s.group)).protected === (op === 'protect' ? allowed : !allowed), 'protected does not match'),
      cells: OWN,
    })),
    {
      route: 'community/groups/<id>/delete',
      what: 'protected private group',
      setup: async (c) => ({ group: await groupWith(c, { protected: true }) }),
      call: (c) => p(c, `community/groups/${c.s.group}/delete`),
      verify: async (c) => expectState(!!(await groupRow(c, c.s.group)), 'a protected group was deleted'),
      cells: [E499, E498, UNDELETABLE, GROUP, E403, E403, UNDELETABLE, E403, GROUP, GROUP, GROUP],
    },
    {
      route: 'community/groups/<id>/users',
      what: 'private group',
      call: (c) => g(c, `community/groups/${c.f.group}/users`),
      done: (b, c) => b.owner === owner(c).username && b.admins.includes(c.f.people.manager.username),
      cells: MEMBERS,
    },
    {
      route: 'community/groups/<id>/userlist',
      what: 'private group',
      call: (c) => g(c, `community/groups/${c.f.group}/userlist`),
      done: (b, c) => b.owner.username === owner(c).username && b.users.some((u: any) => u.username === c.f.people.member.username),
      cells: MEMBERS,
    },
    {
      route: 'community/groups/<id>/removeUsers',
      what: 'manager',
      setup: async (c) => ({ group: await groupWith(c, { recipient: 'admin' }) }),
      call: (c) => p(c, `community/groups/${c.s.group}/removeUsers`, { users: c.f.recipient.username }),
      done: (b) => b.notRemoved.length === 0,
      verify: async (c, allowed) => {
        const now = await memberType(c, c.s.group, c.f.recipient.username);
        expectState(now === (allowed ? undefined : 'admin'), `recipient's membership is ${now}`);
      },
      // A manager removes members, not other managers: answered, but listed in notRemoved.
      cells: [E499, E498, OK, GROUP, E403, NOT, OK, E403, GROUP, GROUP, GROUP],
    },
    {
      route: 'community/groups/<id>/join',
      what: 'org group open to all (autoJoin)',
      setup: async (c) => ({ group: await groupWith(c, { access: 'org', autoJoin: true }) }),
      call: (c) => p(c, `community/groups/${c.s.group}/join`),
      verify: async (c, allowed) => {
        if (!c.me || c.col === 'revoked') return;
        const now = await memberType(c, c.s.group, c.me.username);
        expectState(!allowed || now === 'member', `caller's membership is ${now}`);
      },
      cells: [E499, E498, JOIN, OK, JOIN, JOIN, OK, OK, OK, OK, OK],
    },
    {
      route: 'community/groups/<id>/join',
      what: 'org group needing approval',
      setup: async (c) => ({ group: await groupWith(c, { access: 'org' }) }),
      call: (c) => p(c, `community/groups/${c.s.group}/join`),
      verify: async (c, allowed) => {
        if (!c.me || c.col === 'revoked') return;
        const now = await memberType(c, c.s.group, c.me.username);
        const asked = await applied(c, c.s.group, c.me.username);
        expectState(!allowed || (asked && (now === undefined || now === null)), `caller: member ${now}, applied ${asked}`);
      },
      cells: [E499, E498, JOIN, OK, JOIN, JOIN, OK, OK, OK, OK, OK],
    },
    {
      route: 'community/groups/<id>/leave',
      what: 'private group',
      setup: async (c) => ({ group: await groupWith(c) }),
      call: (c) => p(c, `community/groups/${c.s.group}/leave`),
      verify: async (c, allowed) => {
        if (!c.me || c.col === 'revoked') return;
        const now = await memberType(c, c.s.group, c.me.username);
        expectState(!allowed || !now, `caller's membership is ${now}`);
      },
      cells: [E499, E498, LEAVE, GROUP, OK, OK, LEAVE, LEAVE, GROUP, GROUP, GROUP],
    },
    {
      route: 'community/groups/<id>/invite',
      what: 'recipient as member',
      setup: async (c) => ({ group: await groupWith(c) }),
      call: (c) => p(c, `community/groups/${c.s.group}/invite`, { users: c.f.recipient.username, role: 'group_member' }),
      done: (b) => b.success && b.notInvited.length === 0,
      verify: async (c, allowed) =>
        expectState(!!(await invitation(c, c.s.group, c.f.recipient.username)) === allowed, 'invitation does not match the answer'),
      cells: MANAGE,
    },
    {
      route: 'community/groups/<id>/applications',
      what: "recipient's request",
      setup: async (c) => ({ group: await groupWith(c, { access: 'org', recipient: 'applicant' }) }),
      call: (c) => g(c, `community/groups/${c.s.group}/applications`),
      done: (b, c) => b.applications.some((a: any) => a.username === c.f.recipient.username),
      // An org group: every org member sees it, only its managers see who asked to join.
      cells: [E499, E498, OK, E403, E403, OK, OK, E403, E403, E403, E403],
    },
    ...(['accept', 'decline'] as const).map((op): Row => ({
      route: `community/groups/<id>/applications/<user>/${op}`,
      what: "recipient's request",
      setup: async (c) => ({ group: await groupWith(c, { access: 'org', recipient: 'applicant' }) }),
      call: (c) => p(c, `community/groups/${c.s.group}/applications/${c.f.recipient.username}/${op}`),
      verify: async (c, allowed) => {
        const asked = await applied(c, c.s.group, c.f.recipient.username);
        const now = await memberType(c, c.s.group, c.f.recipient.username);
        expectState(asked === !allowed && (now === 'member') === (allowed && op === 'accept'), `applied ${asked}, member ${now}`);
      },
      cells: [E499, E498, OK, E403, E403, OK, OK, E403, E403, E403, E403],
    })),
    {
      route: 'community/users/<user>/invitations',
      what: "owner's invitations",
      call: (c) => g(c, `community/users/${owner(c).username}/invitations`),
      done: (b) => Array.isArray(b.userInvitations),
      cells: [E499, E498, OK, E403, E403, E403, E403, E403, E403, E403, E403],
    },
    ...(['accept', 'decline'] as const).map((op): Row => ({
      route: `community/users/<user>/invitations/<id>/${op}`,
      what: "recipient's invitation",
      setup: async (c) => {
        const group = await groupWith(c, { recipient: 'invited' });
        return { group, id: (await invitation(c, group, c.f.recipient.username)).id };
      },
      call: (c) => p(c, `community/users/${c.f.recipient.username}/invitations/${c.s.id}/${op}`),
      verify: async (c) => expectState(!!(await invitation(c, c.s.group, c.f.recipient.username)), 'the invitation was answered'),
      // Only the invited user answers an invitation; nobody here is the recipient.
      cells: [E499, E498, E403, E403, E403, E403, E403, E403, E403, E403, E403],
    })),
    {
      route: 'community/users/<user>/invitations/<id>',
      what: 'unknown invitation id under own name',
      call: (c) => g(c, `community/users/${self(c)}/invitations/${'0'.repeat(32)}`),
      cells: [
        E499,
        E498,
        NO_INVITATION,
        NO_INVITATION,
        NO_INVITATION,
        NO_INVITATION,
        NO_INVITATION,
        NO_INVITATION,
        NO_INVITATION,
        NO_INVITATION,
        NO_INVITATION,
      ],
    },
    {
      route: 'community/groups/<id>/categorySchema',
      what: 'private group',
      call: (c) => g(c, `community/groups/${c.f.group}/categorySchema`),
      done: (b) => Array.isArray(b.categorySchema),
      cells: [GROUP, E498, OK, GROUP, OK, OK, OK, OK, GROUP, GROUP, GROUP],
    },
    {
      route: 'community/groups/<id>/assignCategorySchema',
      what: 'private group',
      setup: async (c) => ({ group: await groupWith(c), title: uniq('cat') }),
      call: (c) =>
        p(c, `community/groups/${c.s.group}/assignCategorySchema`, {
          categorySchema: JSON.stringify({ categorySchema: [{ title: c.s.title }] }),
        }),
      verify: async (c, allowed) =>
        expectState(
          ((await groupRow(c, c.s.group)).category_schema?.[0]?.title === c.s.title) === allowed,
          'category schema does not match the answer',
        ),
      cells: MANAGE,
    },
    {
      route: 'community/groups/<id>/info/<thumbnail>',
      what: "private group's thumbnail",
      setup: async (c) => {
        const group = await groupWith(c);
        const form = new FormData();
        for (const [k, v] of Object.entries({ f: 'json', token: owner(c).token })) form.set(k, v);
        form.set('thumbnail', new Blob([PNG_1PX], { type: 'image/png' }), 'logo.png');
        const r = await (await fetch(`${base(c)}/community/groups/${group}/update`, { method: 'POST', body: form })).json();
        if (!(r as any).success) throw new Error(`thumbnail upload failed: ${JSON.stringify(r)}`);
        return { group };
      },
      call: (c) => image(c, `community/groups/${c.s.group}/info/logo.png`),
      done: (b) => b.image === true,
      cells: [GROUP, E498, OK, GROUP, OK, OK, OK, OK, GROUP, GROUP, GROUP],
    },
  ];
}

const orgId = async (c: Ctx) => (await q1(c, 'SELECT org_id FROM users WHERE username = $1', [owner(c).username])).org_id as string;
const description = async (c: Ctx, user: string) => (await q1(c, 'SELECT description FROM users WHERE username = $1', [user])).description;
const notificationsWith = async (c: Ctx, user: string, message: string) =>
  (
    await q1(
      c,
      `SELECT count(*)::int AS n FROM notifications n JOIN users u ON u.id = n.user_id WHERE u.username = $1 AND n.data->>'message' = $2`,
      [user, message],
    )
  ).n as number;

/** An org notification from the administrator to `user`; returns its id. */
async function notify(c: Ctx, user: string): Promise<string> {
  const message = uniq('note');
  await post(base(c), 'portals/self/createNotification', { users: user, message, notificationChannelType: 'builtin' }, c.f.admin);
  return (await q1(c, `SELECT n.id FROM notifications n WHERE n.data->>'message' = $1`, [message])).id;
}

/** A thumbnail fetched as a browser does: the image as `{image: true}`, an error as its envelope. */
async function thumbnail(c: Ctx, user: string, name: string): Promise<Reply> {
  const res = await fetch(`${base(c)}/community/users/${user}/info/${name}${c.token ? `?token=${c.token}` : ''}`);
  if (res.headers.get('content-type') === 'image/png') {
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, body: { image: bytes.equals(PNG_1PX) }, text: '', headers: res.headers };
  }
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text, headers: res.headers };
}

function profileRow(what: string, role: string, cells: string[]): Row {
  return {
    route: 'community/users/<user>/update',
    what,
    setup: async (c) => ({ target: await freshUser(c, role), text: uniq('about') }),
    call: (c) => p(c, `community/users/${c.s.target}/update`, { description: c.s.text }),
    verify: async (c, allowed) =>
      expectState(((await description(c, c.s.target)) === c.s.text) === allowed, 'description does not match the answer'),
    cells,
  };
}

//                                  anon   revoked owner  other  member manager admin  view   update share  users
function usersRows(): Row[] {
  return [
    {
      route: 'community/users',
      what: 'finds the owner (profile shared with the org)',
      call: (c) => g(c, 'community/users', { q: `username:${owner(c).username}` }),
      done: (b, c) => b.results.some((u: any) => u.username === owner(c).username),
      cells: [E499, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
    },
    {
      route: 'community/users',
      what: 'finds a private profile',
      setup: async (c) => {
        const target = await freshUser(c, 'org_user');
        await post(base(c), `community/users/${target}/update`, { access: 'private' }, c.f.admin);
        return { target };
      },
      call: (c) => g(c, 'community/users', { q: `username:${c.s.target}` }),
      done: (b, c) => b.results.some((u: any) => u.username === c.s.target),
      cells: [E499, E498, NOT, NOT, NOT, NOT, OK, NOT, NOT, NOT, OK],
    },
    {
      route: 'portals/self/users/search',
      what: 'finds the owner',
      call: (c) => g(c, 'portals/self/users/search', { q: `username:${owner(c).username}` }),
      done: (b, c) => b.results.some((u: any) => u.username === owner(c).username && Array.isArray(u.privileges)),
      cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, OK],
    },
    {
      route: 'portals/<orgId>',
      what: 'own organisation by id',
      call: async (c) => g(c, `portals/${await orgId(c)}`),
      done: (b) => typeof b.id === 'string',
      cells: [OK, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
    },
    {
      route: 'portals/self/settings',
      what: 'settings',
      call: (c) => g(c, 'portals/self/settings'),
      done: (b) => Array.isArray(b.allowedRedirectUris),
      cells: [OK, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
    },
    {
      route: 'portals/self/subscriptionInfo',
      what: "the organisation's subscription",
      call: (c) => g(c, 'portals/self/subscriptionInfo'),
      done: (b) => b.state === 'active' && typeof b.id === 'string',
      cells: [E499, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
    },
    {
      route: 'portals/self/settings/update',
      what: 'informationalBanner',
      setup: async () => ({ text: uniq('banner') }),
      call: (c) => p(c, 'portals/self/settings/update', { informationalBanner: JSON.stringify({ text: c.s.text }) }),
      verify: async (c, allowed) => {
        const { text } = await q1(c, `SELECT settings->'informationalBanner'->>'text' AS text FROM orgs WHERE id = $1`, [await orgId(c)]);
        // Cells run at once: an allowed one may have been overwritten by another allowed one, never by a refused one.
        if (!allowed) expectState(text !== c.s.text, 'a refused update changed the banner');
      },
      cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, E403],
    },
    {
      route: 'portals/self/isServiceNameAvailable',
      what: 'unused name',
      call: (c) => g(c, 'portals/self/isServiceNameAvailable', { name: uniq('svcname'), type: 'Feature Service' }),
      done: (b) => b.available === true,
      cells: [E499, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
    },
    {
      route: 'community/users/<user>/update',
      what: 'own profile',
      setup: async () => ({ text: uniq('about') }),
      call: (c) => p(c, `community/users/${self(c)}/update`, { description: c.s.text }),
      verify: async (c, allowed) => {
        if (c.me) expectState(((await description(c, self(c))) === c.s.text) === allowed, 'description does not match the answer');
      },
      cells: [E499, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
    },
    profileRow("an org_user's profile", 'org_user', [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, OK]),
    // The user manager lacks publishFeatures, so it may not rewrite a publisher's profile.
    profileRow("a publisher's profile", 'org_publisher', [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, E403]),
    {
      route: 'community/users/<user>/properties',
      what: "owner's app settings",
      call: (c) => g(c, `community/users/${owner(c).username}/properties`),
      done: (b) => typeof b.properties === 'object',
      cells: [E499, E498, OK, E403, E403, E403, OK, E403, E403, E403, OK],
    },
    {
      route: 'community/users/<user>/setProperties',
      what: "an org_user's app settings",
      setup: async (c) => ({ target: await freshUser(c, 'org_user'), value: uniq('v') }),
      call: (c) => p(c, `community/users/${c.s.target}/setProperties`, { properties: JSON.stringify({ mark: c.s.value }) }),
      verify: async (c, allowed) => {
        const { mark } = await q1(c, `SELECT properties->>'mark' AS mark FROM users WHERE username = $1`, [c.s.target]);
        expectState((mark === c.s.value) === allowed, `properties mark ${mark}`);
      },
      cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, OK],
    },
    {
      route: 'community/users/<user>/tags',
      what: "owner's tags",
      call: (c) => g(c, `community/users/${owner(c).username}/tags`),
      done: (b) => Array.isArray(b.tags),
      cells: [E499, E498, OK, E403, E403, E403, OK, OK, E403, E403, E403],
    },
    {
      route: 'community/users/<user>/info/<name>',
      what: "a fresh user's thumbnail (profile shared with the org)",
      setup: async (c) => {
        const target = await freshUser(c, 'org_user');
        const token = await tokenFor(base(c), target, `password-${target}`);
        const form = new FormData();
        form.set('f', 'json');
        form.set('token', token);
        form.set('thumbnail', new Blob([PNG_1PX], { type: 'image/png' }), 'face.png');
        await fetch(`${base(c)}/community/users/${target}/update`, { method: 'POST', body: form });
        return { target };
      },
      call: (c) => thumbnail(c, c.s.target, 'face.png'),
      done: (b) => b.image === true,
      cells: [USER, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
    },
    {
      route: 'community/users/<user>/notifications',
      what: "owner's notifications",
      call: (c) => g(c, `community/users/${owner(c).username}/notifications`),
      done: (b) => Array.isArray(b.notifications),
      cells: [E499, E498, OK, E403, E403, E403, E403, E403, E403, E403, E403],
    },
    {
      route: 'community/users/<user>/notifications/<id>',
      what: "one of the owner's notifications",
      setup: async (c) => ({ id: await notify(c, owner(c).username) }),
      call: (c) => g(c, `community/users/${owner(c).username}/notifications/${c.s.id}`),
      done: (b, c) => b.id === c.s.id,
      cells: [E499, E498, OK, E403, E403, E403, E403, E403, E403, E403, E403],
    },
    {
      route: 'community/users/<user>/notifications/<id>/delete',
      what: "one of the owner's notifications",
      setup: async (c) => ({ id: await notify(c, owner(c).username) }),
      call: (c) => p(c, `community/users/${owner(c).username}/notifications/${c.s.id}/delete`),
      verify: async (c, allowed) =>
        expectState(
          !(await q1(c, 'SELECT 1 FROM notifications WHERE id = $1', [c.s.id])) === allowed,
          'notification presence does not match the answer',
        ),
      cells: [E499, E498, OK, E403, E403, E403, E403, E403, E403, E403, E403],
    },
    {
      route: 'community/groups/<id>/createNotification',
      what: 'private group, to every member',
      setup: async () => ({ message: uniq('groupnote') }),
      call: (c) => p(c, `community/groups/${c.f.group}/createNotification`, { message: c.s.message, notificationChannelType: 'builtin' }),
      verify: async (c, allowed) =>
        expectState(
          (await notificationsWith(c, c.f.people.member.username, c.s.message)) === (allowed ? 1 : 0),
          'member notification does not match the answer',
        ),
      cells: [E499, E498, OK, GROUP, E403, OK, OK, E403, GROUP, GROUP, GROUP],
    },
    {
      route: 'portals/self/createNotification',
      what: 'to a user of the organisation',
      setup: async () => ({ message: uniq('orgnote') }),
      call: (c) =>
        p(c, 'portals/self/createNotification', {
          users: c.f.recipient.username,
          message: c.s.message,
          notificationChannelType: 'builtin',
        }),
      verify: async (c, allowed) =>
        expectState(
          (await notificationsWith(c, c.f.recipient.username, c.s.message)) === (allowed ? 1 : 0),
          'recipient notification does not match the answer',
        ),
      cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, OK],
    },
  ];
}

// ── feature attachments ──

/** A layer of the private and of the org service with attachments enabled, one feature and one attachment; made once. */
const attachmentLayers = new WeakMap<Fixtures, Promise<Record<'priv' | 'org', { layer: string; oid: number; id: number }>>>();

function attachmentFixtures(c: Ctx) {
  let made = attachmentLayers.get(c.f);
  if (!made) {
    const one = async (svc: Fixtures['svcOrg']) => {
      const o = owner(c);
      const def = {
        layers: [
          {
            name: 'Photos',
            geometryType: 'esriGeometryPoint',
            hasAttachments: true,
            fields: [{ name: 'GlobalID', type: 'esriFieldTypeGlobalID' }],
          },
        ],
      };
      const made = await post(svc.admin, 'addToDefinition', { addToDefinition: JSON.stringify(def) }, o.token);
      const layer = `${svc.url}/${made.body.layers[0].id}`;
      const oid = (await post(layer, 'addFeatures', { features: '[{"attributes":{},"geometry":{"x":1,"y":1}}]' }, o.token)).body
        .addResults[0].objectId;
      const attached = await attachTo(layer, oid, o.token);
      if (!attached.body?.addAttachmentResult) throw new Error(`addAttachment failed: ${attached.text}`);
      const id = attached.body.addAttachmentResult.objectId;
      return { layer, oid, id };
    };
    made = (async () => ({ priv: await one(c.f.svcPrivate), org: await one(c.f.svcOrg) }))();
    attachmentLayers.set(c.f, made);
  }
  return made;
}

/** addAttachment as a careful client sends it: the token before the file part. */
async function attachTo(layer: string, oid: number, token: string | undefined): Promise<Reply> {
  const form = new FormData();
  form.set('f', 'json');
  if (token) form.set('token', token);
  form.set('attachment', new Blob(['photo bytes']), 'photo.jpg');
  return read(await fetch(`${layer}/${oid}/addAttachment`, { method: 'POST', body: form }));
}

/** The attachment's file, or the envelope refusing it; a file's text is the body's `file`. */
async function downloadAttachment(c: Ctx): Promise<Reply> {
  const res = await fetch(`${c.s.layer}/${c.s.oid}/attachments/${c.s.id}${c.token ? `?token=${c.token}` : ''}`);
  const json = res.headers.get('content-type')?.includes('application/json');
  const r = await read(res);
  return json ? r : { ...r, body: { file: r.text } };
}

const attachmentCount = async (c: Ctx, layer: string, oid: number) =>
  (await get(layer, `${oid}/attachments`, {}, owner(c).token)).body.attachmentInfos.length as number;

function attachmentRows(): Row[] {
  const readers = [E499, E498, OK, SVC, SVC, SVC, OK, OK, SVC, SVC, SVC];
  const editors = [E499, E498, OK, E403, E403, E403, OK, E403, OK, E403, E403];
  return [
    {
      route: 'FeatureServer/<layer>/<oid>/attachments',
      what: 'private service',
      setup: async (c) => (await attachmentFixtures(c)).priv,
      call: (c) => get(c.s.layer, `${c.s.oid}/attachments`, {}, c.token),
      done: (b) => b.attachmentInfos.length === 1,
      cells: readers,
    },
    {
      route: 'FeatureServer/<layer>/queryAttachments',
      what: 'private service',
      setup: async (c) => (await attachmentFixtures(c)).priv,
      call: (c) => get(c.s.layer, 'queryAttachments', { objectIds: String(c.s.oid) }, c.token),
      done: (b) => b.attachmentGroups.length === 1,
      cells: readers,
    },
    {
      route: 'FeatureServer/<layer>/<oid>/attachments/<id>',
      what: 'private service: the file',
      setup: async (c) => (await attachmentFixtures(c)).priv,
      call: downloadAttachment,
      done: (b) => b.file === 'photo bytes',
      cells: readers,
    },
    {
      route: 'FeatureServer/<layer>/<oid>/attachments/<id>',
      what: 'org service: the file',
      setup: async (c) => (await attachmentFixtures(c)).org,
      call: downloadAttachment,
      done: (b) => b.file === 'photo bytes',
      cells: [E499, E498, OK, OK, OK, OK, OK, OK, OK, OK, OK],
    },
    {
      route: 'FeatureServer/<layer>/<oid>/addAttachment',
      what: 'org service, a fresh feature',
      setup: async (c) => {
        const { layer } = (await attachmentFixtures(c)).org;
        const added = await post(layer, 'addFeatures', { features: '[{"attributes":{},"geometry":{"x":2,"y":2}}]' }, owner(c).token);
        return { layer, oid: added.body.addResults[0].objectId };
      },
      call: (c) => attachTo(c.s.layer, c.s.oid, c.token),
      done: (b) => b.addAttachmentResult.success,
      verify: async (c, allowed) =>
        expectState((await attachmentCount(c, c.s.layer, c.s.oid)) === (allowed ? 1 : 0), 'attachments do not match the answer'),
      cells: editors,
    },
    {
      route: 'FeatureServer/<layer>/<oid>/deleteAttachments',
      what: 'org service, a fresh attachment',
      setup: async (c) => {
        const { layer } = (await attachmentFixtures(c)).org;
        const added = await post(layer, 'addFeatures', { features: '[{"attributes":{},"geometry":{"x":3,"y":3}}]' }, owner(c).token);
        const oid = added.body.addResults[0].objectId;
        const id = (await attachTo(layer, oid, owner(c).token)).body.addAttachmentResult.objectId;
        return { layer, oid, id };
      },
      call: (c) => post(c.s.layer, `${c.s.oid}/deleteAttachments`, { attachmentIds: String(c.s.id) }, c.token),
      done: (b) => b.deleteAttachmentResults[0].success,
      verify: async (c, allowed) =>
        expectState((await attachmentCount(c, c.s.layer, c.s.oid)) === (allowed ? 0 : 1), 'attachments do not match the answer'),
      cells: editors,
    },
  ];
}

// ── organization webhooks: full administrators only ──

/** A webhook of the administrators' organisation, written straight to its table (no receiver in this suite). */
async function freshWebhook(c: Ctx): Promise<string> {
  const id = uniq('hook')
    .replace(/[^0-9a-f]/g, '')
    .padEnd(32, '0')
    .slice(0, 32);
  await c.f.t.db.query(
    `INSERT INTO webhooks (id, org_id, name, payload_url, events) SELECT $1, org_id, 'matrix', 'https://example.com/', '{/items}' FROM users WHERE username = $2`,
    [id, c.f.people.admin.username],
  );
  return id;
}

function webhookRows(): Row[] {
  const ONLY_ADMIN = [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, E403];
  const hookRow = async (c: Ctx, id: string) => q1(c, `SELECT is_active FROM webhooks WHERE id = $1`, [id]);
  return [
    { route: 'portals/self/webhooks', what: 'list', call: (c) => g(c, 'portals/self/webhooks'), cells: ONLY_ADMIN },
    { route: 'portals/self/webhooks/settings', what: 'read', call: (c) => g(c, 'portals/self/webhooks/settings'), cells: ONLY_ADMIN },
    {
      route: 'portals/self/webhooks/settings/update',
      what: 'notificationTimeOutInSeconds',
      // Each cell asks for a value of its own (cells run at once): a refused cell's value must never be stored.
      setup: async (c) => ({ secs: String(20 + COLUMNS.indexOf(c.col)) }),
      call: (c) => p(c, 'portals/self/webhooks/settings/update', { notificationTimeOutInSeconds: c.s.secs }),
      verify: async (c, allowed) => {
        const row = await q1(c, `SELECT notification_timeout_s AS secs FROM webhook_settings`, []);
        expectState((String(row?.secs) === c.s.secs) === allowed, 'settings do not match the answer');
      },
      cells: ONLY_ADMIN,
    },
    {
      route: 'portals/self/webhooks/<id>',
      what: 'read one',
      setup: async (c) => ({ id: await freshWebhook(c) }),
      call: (c) => g(c, `portals/self/webhooks/${c.s.id}`),
      cells: ONLY_ADMIN,
    },
    {
      route: 'portals/self/webhooks/<id>/deactivate',
      what: 'an active webhook',
      setup: async (c) => ({ id: await freshWebhook(c) }),
      call: (c) => p(c, `portals/self/webhooks/${c.s.id}/deactivate`),
      verify: async (c, allowed) => expectState((await hookRow(c, c.s.id)).is_active === !allowed, 'isActive does not match the answer'),
      cells: ONLY_ADMIN,
    },
    {
      route: 'portals/self/webhooks/<id>/delete',
      what: 'a webhook',
      setup: async (c) => ({ id: await freshWebhook(c) }),
      call: (c) => p(c, `portals/self/webhooks/${c.s.id}/delete`),
      verify: async (c, allowed) => expectState(!(await hookRow(c, c.s.id)) === allowed, 'the webhook does not match the answer'),
      cells: ONLY_ADMIN,
    },
    {
      route: 'portals/self/webhooks/<id>/notificationStatus',
      what: 'its deliveries',
      setup: async (c) => ({ id: await freshWebhook(c) }),
      call: (c) => g(c, `portals/self/webhooks/${c.s.id}/notificationStatus`),
      cells: ONLY_ADMIN,
    },
  ];
}

/** The /home pages of issue 30 (part B): what each tab of a private group's page, and the admin pages, show whom. */
function groupPageRows(): Row[] {
  const home = (c: Ctx, name: string, params: Record<string, string> = {}) =>
    htmlPage(`${c.f.t.root}/home`, `${name}.html`, params, c.token);
  return [
    {
      route: 'home/group.html',
      what: 'private group, Overview',
      call: (c) => home(c, 'group', { id: c.f.group }),
      done: (b) => b.html.includes('Your membership'),
      cells: [GROUP, E498, OK, GROUP, OK, OK, OK, OK, GROUP, GROUP, GROUP],
    },
    {
      route: 'home/group.html?tab=members',
      what: 'private group, its members',
      call: (c) => home(c, 'group', { id: c.f.group, tab: 'members' }),
      done: (b) => b.html.includes('id="group-members"'),
      cells: [GROUP, E498, OK, GROUP, OK, OK, OK, OK, GROUP, GROUP, GROUP],
    },
    {
      route: 'home/group.html?tab=settings',
      what: 'private group, the settings form',
      call: (c) => home(c, 'group', { id: c.f.group, tab: 'settings' }),
      done: (b) => b.html.includes('id="group-settings"'),
      cells: [GROUP, E498, OK, GROUP, NOT, OK, OK, NOT, GROUP, GROUP, GROUP],
    },
    {
      route: 'home/webhooks.html',
      what: 'the webhooks page',
      call: (c) => home(c, 'webhooks'),
      done: (b) => b.html.includes('id="hook-table"'),
      cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, E403],
    },
    {
      route: 'home/users.html',
      what: 'the users page',
      call: (c) => home(c, 'users'),
      done: (b) => b.html.includes('id="user-table"'),
      cells: [E499, E498, E403, E403, E403, E403, OK, E403, E403, E403, OK],
    },
  ];
}
