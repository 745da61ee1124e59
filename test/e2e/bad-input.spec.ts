/**
 * Bad input on every route, as ArcGIS answers it and as the client's token refresh needs: the reply is always HTTP 200 with the ArcGIS
 * envelope {"error":{code,messageCode?,message,details}} and a message that says what is wrong — never HTTP 500,
 * never a stack trace, never an HTML page.
 *
 * 499 (GWM_0003) token missing, 498 invalid token, 403 forbidden, 400 bad input, 400 CONT_0001 missing item,
 * 400 COM_0019 unknown user, 400 COM_0003 missing group, 400 GWM_0002 unknown URL. `f` is json or pjson.
 */
import { randomBytes } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { addItem, addUsers, adminToken, createGroup, createUser, get, post, Reply, uniq } from '../support/client';

jest.setTimeout(60_000);

// ---------------------------------------------------------------------------------------------------------------
// Fixture and helpers
// ---------------------------------------------------------------------------------------------------------------

let t: TestApp;
const fx = {
  admin: '',
  owner: { username: '', password: '', token: '' },
  member: { username: '', password: '', token: '' },
  other: { username: '', password: '', token: '' },
  itemId: '',
  groupId: '',
  roleId: '',
  roleName: '',
  /** 32 hex characters that are no item, group or role. */
  missingId: randomBytes(16).toString('hex'),
};

const GARBAGE_TOKEN = 'garbage-token-zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz';
/** A stack frame, a driver error class, a module path or an HTML page: none may ever reach a client. */
const LEAK = /\n\s+at \S.*:\d+:\d+|QueryFailedError|node_modules|<!DOCTYPE|<html|<body/i;

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
type Params = Record<string, string>;

interface SendOptions {
  method?: Method;
  params?: Params;
  headers?: Record<string, string>;
  /** Raw body; `params` then go to the query string. */
  body?: string | Buffer;
  contentType?: string;
}

/** Like client.ts post/get, but with any method, headers and raw bodies, and no `f` added unless given. */
async function send(url: string, o: SendOptions = {}): Promise<Reply> {
  const method = o.method ?? 'POST';
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  let target = url;
  let body: string | Buffer | URLSearchParams | undefined;
  const qs = (p?: Params) => (p && Object.keys(p).length ? `${target.includes('?') ? '&' : '?'}${new URLSearchParams(p)}` : '');
  if (o.body !== undefined) {
    body = o.body;
    if (o.contentType) headers['content-type'] = o.contentType;
    target += qs(o.params);
  } else if (method === 'GET') {
    target += qs(o.params);
  } else if (o.params) {
    body = new URLSearchParams(o.params);
  }
  const res = await fetch(target, { method, headers, body: body as RequestInit['body'] });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

interface Want {
  code: number;
  messageCode?: string;
  /** Substring of error.message. */
  message?: string;
  /** Substring of one of error.details. */
  detail?: string;
  /** Matched against message + details joined, when the exact wording is not fixed. */
  text?: RegExp;
}

const short = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
const describeReq = (method: string, url: string, params?: Params) =>
  `${method} ${short(url.replace(t.root, ''), 200)}${params ? ' ' + short(JSON.stringify(params), 200) : ''}`;

/** Asserts the ArcGIS error envelope; the request is part of the compared object so a failure names it. */
function expectError(r: Reply, req: string, want: Want) {
  const error: Record<string, unknown> = {
    code: want.code,
    message: want.message ? expect.stringContaining(want.message) : expect.any(String),
    details: want.detail ? expect.arrayContaining([expect.stringContaining(want.detail)]) : expect.any(Array),
  };
  if (want.messageCode) error.messageCode = want.messageCode;
  expect({ req, http: r.status, contentType: r.headers.get('content-type'), body: r.body ?? short(r.text, 500) }).toMatchObject({
    req,
    http: 200,
    contentType: expect.stringContaining('application/json'),
    body: { error },
  });
  if (want.text) {
    const e = (r.body as { error: { message: string; details: string[] } }).error;
    expect({ req, text: [e.message, ...(e.details ?? [])].join(' | ') }).toEqual({ req, text: expect.stringMatching(want.text) });
  }
  expect({ req, leak: LEAK.exec(r.text)?.[0] ?? null }).toEqual({ req, leak: null });
}

function expectOk(r: Reply, req: string) {
  expect({
    req,
    http: r.status,
    contentType: r.headers.get('content-type'),
    error: (r.body as { error?: unknown })?.error ?? null,
    json: r.body !== undefined,
  }).toEqual({
    req,
    http: 200,
    contentType: expect.stringContaining('application/json'),
    error: null,
    json: true,
  });
}

/** What is wrong with a reply to hostile input, or null: HTTP 200 JSON, a result or a non-500 envelope, no leak. */
function hostileProblem(r: Reply, allowed: number[] = [400, 403, 498, 499]): string | null {
  if (r.status !== 200) return `HTTP ${r.status}: ${short(r.text, 300)}`;
  if (!r.headers.get('content-type')?.includes('application/json'))
    return `content-type ${r.headers.get('content-type')}: ${short(r.text, 200)}`;
  if (r.body === undefined) return `not JSON: ${short(r.text, 200)}`;
  const leak = LEAK.exec(r.text);
  if (leak) return `leaks '${leak[0]}': ${short(r.text, 300)}`;
  const e = (r.body as { error?: { code?: unknown; message?: unknown; details?: unknown } }).error;
  if (e === undefined) return null;
  if (typeof e.code !== 'number' || !allowed.includes(e.code)) return `error code ${String(e.code)}: ${short(JSON.stringify(e), 300)}`;
  if (typeof e.message !== 'string' || !e.message) return `empty message: ${short(JSON.stringify(e), 300)}`;
  if (!Array.isArray(e.details)) return `details not an array: ${short(JSON.stringify(e), 300)}`;
  return null;
}

async function pool<T>(tasks: (() => Promise<T>)[], size = 8): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        out[i] = await tasks[i]();
      }
    }),
  );
  return out;
}

const ids = (n: number, prefix = '') => Array.from({ length: n }, (_, i) => (prefix + i.toString(16)).padStart(32, '0')).join(',');

// ---------------------------------------------------------------------------------------------------------------
// Route table: every route in src/**/*.controller.ts
// ---------------------------------------------------------------------------------------------------------------

interface Route {
  name: string;
  /** POST: @Post only. ANY: @Operation (GET and POST). */
  kind: 'POST' | 'ANY';
  auth: 'required' | 'public';
  /** Path under `root` (portaladmin) rather than `base` (sharing/rest). */
  root?: boolean;
  path: string;
  pathParams?: Record<string, () => string>;
  /** Valid parameters; each fuzzed parameter is replaced one at a time. */
  params?: () => Params;
  token?: () => string;
  /** String parameters (DTO fields) to fuzz; path parameters are fuzzed too. */
  fuzz?: string[];
  /** Whether the baseline call succeeds (false: it answers a clear error by design, e.g. a missing id so nothing is deleted). */
  ok?: boolean;
}

const owner = () => fx.owner.username;
const item = () => fx.itemId;
const group = () => fx.groupId;
const SHARE_FLAGS = ['everyone', 'org', 'account', 'confirmItemControl'];

const ROUTES: Route[] = [
  {
    name: 'generateToken',
    kind: 'POST',
    auth: 'public',
    path: 'generateToken',
    params: () => ({ username: fx.owner.username, password: fx.owner.password }),
    fuzz: ['username', 'password', 'client', 'referer', 'ip', 'expiration'],
  },
  {
    name: 'oauth2/revokeToken',
    kind: 'POST',
    auth: 'required',
    path: 'oauth2/revokeToken',
    params: () => ({ auth_token: 'no-such-token' }),
    fuzz: ['auth_token'],
    ok: false,
  },
  { name: 'community/self', kind: 'ANY', auth: 'required', path: 'community/self' },
  { name: 'community/users/:username', kind: 'ANY', auth: 'public', path: 'community/users/:username', pathParams: { username: owner } },
  { name: 'portals/self', kind: 'ANY', auth: 'public', path: 'portals/self' },
  {
    name: 'portals/self/createRole',
    kind: 'POST',
    auth: 'required',
    path: 'portals/self/createRole',
    token: () => fx.admin,
    params: () => ({ name: uniq('role') }),
    fuzz: ['name', 'description'],
  },
  {
    name: 'portals/self/roles/:roleId/setPrivileges',
    kind: 'POST',
    auth: 'required',
    path: 'portals/self/roles/:roleId/setPrivileges',
    pathParams: { roleId: () => fx.roleId },
    token: () => fx.admin,
    params: () => ({ privileges: JSON.stringify({ privileges: ['portal:user:createItem'] }) }),
    fuzz: ['privileges'],
  },
  {
    name: 'portals/self/updateUserRole',
    kind: 'POST',
    auth: 'required',
    path: 'portals/self/updateUserRole',
    token: () => fx.admin,
    params: () => ({ user: fx.member.username, role: 'org_user' }),
    fuzz: ['user', 'role'],
  },
  {
    name: 'portaladmin/security/users/createUser',
    kind: 'POST',
    auth: 'required',
    root: true,
    path: 'portaladmin/security/users/createUser',
    token: () => fx.admin,
    params: () => ({ username: uniq('fz'), password: 'password-123' }),
    fuzz: ['username', 'password', 'firstname', 'lastname', 'fullname', 'email', 'description', 'role'],
  },
  {
    name: 'content/users/:owner/addItem',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/addItem',
    pathParams: { owner },
    params: () => ({ title: uniq('item'), type: 'Web Map' }),
    fuzz: [
      'title',
      'type',
      'tags',
      'typeKeywords',
      'description',
      'snippet',
      'url',
      'text',
      'extent',
      'spatialReference',
      'properties',
      'filename',
    ],
  },
  {
    name: 'content/users/:owner/:folder/addItem',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/:folder/addItem',
    pathParams: { owner, folder: () => 'somefolder' },
    params: () => ({ title: uniq('item'), type: 'Web Map' }),
    fuzz: ['title'],
    ok: false,
  },
  {
    name: 'content/users/:owner',
    kind: 'ANY',
    auth: 'required',
    path: 'content/users/:owner',
    pathParams: { owner },
    fuzz: ['start', 'num'],
  },
  { name: 'content/items/:id', kind: 'ANY', auth: 'public', path: 'content/items/:id', pathParams: { id: item } },
  { name: 'content/items/:id/data', kind: 'ANY', auth: 'public', path: 'content/items/:id/data', pathParams: { id: item } },
  // The baseline id is missing so that nothing is deleted.
  {
    name: 'content/users/:owner/items/:id/delete',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/delete',
    pathParams: { owner, id: () => fx.missingId },
    ok: false,
  },
  {
    name: 'content/users/:owner/items/:id/status',
    kind: 'ANY',
    auth: 'required',
    path: 'content/users/:owner/items/:id/status',
    pathParams: { owner, id: item },
    fuzz: ['jobId', 'jobType'],
  },
  {
    name: 'search',
    kind: 'ANY',
    auth: 'public',
    path: 'search',
    params: () => ({ q: 'title: item' }),
    fuzz: ['q', 'start', 'num', 'sortField', 'sortOrder'],
  },
  {
    name: 'content/groups/:id/search',
    kind: 'ANY',
    auth: 'public',
    path: 'content/groups/:id/search',
    pathParams: { id: group },
    params: () => ({ q: 'item' }),
    fuzz: ['q', 'start', 'num', 'sortField', 'sortOrder'],
  },
  {
    name: 'community/createGroup',
    kind: 'POST',
    auth: 'required',
    path: 'community/createGroup',
    params: () => ({ title: uniq('group') }),
    fuzz: [
      'title',
      'access',
      'tags',
      'description',
      'snippet',
      'phone',
      'sortField',
      'sortOrder',
      'isViewOnly',
      'isInvitationOnly',
      'autoJoin',
    ],
  },
  { name: 'community/groups/:id', kind: 'ANY', auth: 'public', path: 'community/groups/:id', pathParams: { id: group } },
  {
    name: 'content/groups/:id',
    kind: 'ANY',
    auth: 'public',
    path: 'content/groups/:id',
    pathParams: { id: group },
    fuzz: ['start', 'num'],
  },
  {
    name: 'community/groups/:id/addUsers',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/addUsers',
    pathParams: { id: group },
    params: () => ({ users: fx.member.username }),
    fuzz: ['users', 'admins'],
  },
  {
    name: 'community/groups/:id/removeUsers',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/removeUsers',
    pathParams: { id: group },
    params: () => ({ users: 'nobody_in_this_group' }),
    fuzz: ['users'],
  },
  {
    name: 'community/groups/:id/updateUserMemberships',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/updateUserMemberships',
    pathParams: { id: group },
    params: () => ({ users: fx.member.username, newMemberType: 'member' }),
    fuzz: ['users', 'newMemberType'],
  },
  // The baseline id is missing so that the fixture group is not deleted.
  {
    name: 'community/groups/:id/delete',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/delete',
    pathParams: { id: () => fx.missingId },
    ok: false,
  },
  {
    name: 'content/users/:owner/unshareItems',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/unshareItems',
    pathParams: { owner },
    params: () => ({ items: fx.itemId, groups: fx.groupId }),
    fuzz: ['items', 'groups'],
  },
  {
    name: 'content/users/:owner/shareItems',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/shareItems',
    pathParams: { owner },
    params: () => ({ items: fx.itemId, groups: fx.groupId }),
    fuzz: ['items', 'groups', ...SHARE_FLAGS],
  },
  {
    name: 'content/users/:owner/items/:id/unshare',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/unshare',
    pathParams: { owner, id: item },
    params: () => ({ groups: fx.groupId }),
    fuzz: ['groups'],
  },
  {
    name: 'content/users/:owner/items/:id/share',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/share',
    pathParams: { owner, id: item },
    params: () => ({ groups: fx.groupId }),
    fuzz: ['groups', ...SHARE_FLAGS],
  },
  {
    name: 'content/items/:id/unshare',
    kind: 'POST',
    auth: 'required',
    path: 'content/items/:id/unshare',
    pathParams: { id: item },
    params: () => ({ groups: fx.groupId }),
    fuzz: ['groups'],
  },
  {
    name: 'content/items/:id/share',
    kind: 'POST',
    auth: 'required',
    path: 'content/items/:id/share',
    pathParams: { id: item },
    params: () => ({ groups: fx.groupId }),
    fuzz: ['groups', ...SHARE_FLAGS],
  },
];

/** The route's URL; `encoded` replaces path parameters with already-encoded text. */
function urlOf(r: Route, encoded: Record<string, string> = {}): string {
  const path = r.path.replace(/:([A-Za-z]+)/g, (_, k: string) => (k in encoded ? encoded[k] : encodeURIComponent(r.pathParams![k]())));
  return `${r.root ? t.root : t.base}/${path}`;
}
const tokenOf = (r: Route) => (r.token ?? (() => fx.owner.token))();
const methodsOf = (r: Route): Method[] => (r.kind === 'ANY' ? ['POST', 'GET'] : ['POST']);

// ---------------------------------------------------------------------------------------------------------------

describe('bad input on every route', () => {
  beforeAll(async () => {
    t = await startApp();
    fx.admin = await adminToken(t.base);
    fx.owner = await createUser(t.base, fx.admin, 'org_publisher');
    fx.member = await createUser(t.base, fx.admin, 'org_user');
    fx.other = await createUser(t.base, fx.admin, 'org_user');
    fx.itemId = await addItem(t.base, fx.owner.username, fx.owner.token, { title: uniq('item') });
    fx.groupId = await createGroup(t.base, fx.owner.token);
    await addUsers(t.base, fx.owner.token, fx.groupId, [fx.member.username]);
    fx.roleName = uniq('role');
    const role = await post(t.base, 'portals/self/createRole', { name: fx.roleName }, fx.admin);
    if (!role.body?.id) throw new Error(`createRole failed: ${role.text}`);
    fx.roleId = role.body.id;
  });
  afterAll(() => t.close());

  describe('baseline: every route answers its valid request', () => {
    it.each(ROUTES.map((r) => [r.name, r] as const))('%s', async (_n, r) => {
      for (const method of methodsOf(r)) {
        const params = { f: 'json', ...(r.params?.() ?? {}), token: tokenOf(r) };
        const res = await send(urlOf(r), { method, params });
        const req = describeReq(method, urlOf(r), params);
        if (r.ok === false) expectError(res, req, { code: 400 });
        else expectOk(res, req);
      }
    });
  });

  // -------------------------------------------------------------------------------------------------------------
  describe('token missing → 499 GWM_0003', () => {
    const required = ROUTES.filter((r) => r.auth === 'required');
    it.each(required.map((r) => [r.name, r] as const))('%s', async (_n, r) => {
      for (const method of methodsOf(r)) {
        const params = { f: 'json', ...(r.params?.() ?? {}) };
        const res = await send(urlOf(r), { method, params });
        expectError(res, describeReq(method, urlOf(r), params), {
          code: 499,
          messageCode: 'GWM_0003',
          message: 'Token Required',
          detail: 'Token Required',
        });
      }
    });

    it('a non-Bearer Authorization header counts as no token', async () => {
      const url = `${t.base}/community/self`;
      const r = await send(url, {
        params: { f: 'json' },
        headers: { Authorization: `Basic ${Buffer.from('admin:x').toString('base64')}` },
      });
      expectError(r, 'POST community/self Authorization: Basic', { code: 499, messageCode: 'GWM_0003', message: 'Token Required' });
    });
  });

  // -------------------------------------------------------------------------------------------------------------
  describe('garbage token → 498 (token param, Authorization: Bearer, X-Esri-Authorization: Bearer)', () => {
    const ways: [string, (r: Route, p: Params) => SendOptions][] = [
      ['token parameter', (_r, p) => ({ params: { ...p, token: GARBAGE_TOKEN } })],
      ['Authorization: Bearer', (_r, p) => ({ params: p, headers: { Authorization: `Bearer ${GARBAGE_TOKEN}` } })],
      ['X-Esri-Authorization: Bearer', (_r, p) => ({ params: p, headers: { 'X-Esri-Authorization': `Bearer ${GARBAGE_TOKEN}` } })],
    ];
    const cases = ROUTES.flatMap((r) => ways.map(([how, build]) => [`${r.name} via ${how}`, r, build] as const));
    it.each(cases)('%s', async (_n, r, build) => {
      for (const method of methodsOf(r)) {
        const o = build(r, { f: 'json', ...(r.params?.() ?? {}) });
        const res = await send(urlOf(r), { ...o, method });
        expectError(res, `${describeReq(method, urlOf(r), o.params)} ${JSON.stringify(o.headers ?? {})}`, {
          code: 498,
          message: 'Invalid token.',
        });
      }
    });

    it('a valid token in the Authorization or X-Esri-Authorization header is accepted (control)', async () => {
      for (const h of ['Authorization', 'X-Esri-Authorization']) {
        const r = await send(`${t.base}/community/self`, {
          method: 'GET',
          params: { f: 'json' },
          headers: { [h]: `Bearer ${fx.owner.token}` },
        });
        expectOk(r, `GET community/self ${h}: Bearer <valid>`);
        expect(r.body.username).toBe(fx.owner.username);
      }
    });
  });

  // -------------------------------------------------------------------------------------------------------------
  describe('f must be json or pjson → 400 naming the allowed values', () => {
    // These answer f=html with a directory page (test/e2e/directory.spec.ts), as ArcGIS's do.
    const hasPage = new Set(['generateToken', 'content/users/:owner', 'content/items/:id', 'community/groups/:id']);
    const cases = ROUTES.flatMap((r) =>
      ['xml', 'html', 'geojson', 'JSON5']
        .filter((f) => f !== 'html' || !hasPage.has(r.name))
        .map((f) => [`${r.name} f=${f}`, r, f] as const),
    );
    it.each(cases)('%s', async (_n, r, f) => {
      for (const method of methodsOf(r)) {
        for (const token of [undefined, tokenOf(r)]) {
          const params: Params = { ...(r.params?.() ?? {}), f, ...(token ? { token } : {}) };
          const res = await send(urlOf(r), { method, params });
          expectError(res, describeReq(method, urlOf(r), params), {
            code: 400,
            message: `Invalid value for parameter 'f': '${f}'.`,
            detail: "Allowed values of 'f': json, pjson.",
          });
        }
      }
    });

    it('f sent twice (f=json&f=xml) is rejected, not half-applied', async () => {
      const r = await send(`${t.base}/portals/self?f=json&f=xml`, { method: 'GET' });
      expectError(r, 'GET portals/self?f=json&f=xml', { code: 400, detail: "Allowed values of 'f': json, pjson." });
    });
  });

  // -------------------------------------------------------------------------------------------------------------
  describe('f=pjson is indented JSON; a missing f means compact json', () => {
    const indented = (r: Reply) => r.text === JSON.stringify(JSON.parse(r.text), null, 2) && r.text.includes('\n  "');

    it('success replies (GET and POST)', async () => {
      const a = await send(`${t.base}/portals/self`, { method: 'GET', params: { f: 'pjson' } });
      expectOk(a, 'GET portals/self f=pjson');
      expect(indented(a)).toBe(true);
      const b = await send(`${t.base}/community/self`, { params: { f: 'pjson', token: fx.owner.token } });
      expectOk(b, 'POST community/self f=pjson');
      expect(indented(b)).toBe(true);
      const c = await send(`${t.base}/search`, { method: 'GET', params: { f: 'pjson', q: 'title: item', token: fx.owner.token } });
      expectOk(c, 'GET search f=pjson');
      expect(indented(c)).toBe(true);
    });

    it('error replies (400, 499, 498, unknown URL) are indented too', async () => {
      const cases: [string, Promise<Reply>][] = [
        ['content/items/nothex f=pjson', send(`${t.base}/content/items/nothex`, { method: 'GET', params: { f: 'pjson' } })],
        ['community/self f=pjson no token', send(`${t.base}/community/self`, { params: { f: 'pjson' } })],
        ['community/self f=pjson garbage token', send(`${t.base}/community/self`, { params: { f: 'pjson', token: GARBAGE_TOKEN } })],
        ['nope f=pjson', send(`${t.base}/nope`, { method: 'GET', params: { f: 'pjson' } })],
      ];
      for (const [req, p] of cases) {
        const r = await p;
        expectError(r, req, { code: (r.body as { error?: { code: number } })?.error?.code ?? -1 });
        expect({ req, indented: indented(r) }).toEqual({ req, indented: true });
      }
    });

    it('missing f and empty f answer compact json', async () => {
      for (const params of [{}, { f: '' }] as Params[]) {
        const r = await send(`${t.base}/portals/self`, { method: 'GET', params });
        expectOk(r, `GET portals/self ${JSON.stringify(params)}`);
        expect(r.text).not.toContain('\n');
        const e = await send(`${t.base}/content/items/nothex`, { method: 'GET', params });
        expectError(e, `GET content/items/nothex ${JSON.stringify(params)}`, { code: 400, messageCode: 'CONT_0001' });
        expect(e.text).not.toContain('\n');
      }
    });
  });

  // -------------------------------------------------------------------------------------------------------------
  describe('unsupported methods → 400 envelope, never an HTML page', () => {
    const cases = ROUTES.flatMap((r) => (['PUT', 'DELETE', 'PATCH'] as Method[]).map((m) => [`${m} ${r.name}`, r, m] as const));
    it.each(cases)('%s', async (_n, r, method) => {
      const params = { f: 'json', ...(r.params?.() ?? {}), token: tokenOf(r) };
      const res = await send(urlOf(r), { method, params });
      const req = describeReq(method, urlOf(r), params);
      // @Operation routes know the path and name the method; @Post routes have no handler for it (unknown URL).
      if (r.kind === 'ANY') expectError(res, req, { code: 400, message: `Method ${method} is not supported.`, detail: 'Use GET or POST.' });
      else expectError(res, req, { code: 400, messageCode: 'GWM_0002', message: 'Invalid URL', detail: 'No operation at' });
    });

    it('GET on a POST-only operation is an unknown URL, not a 404 page', async () => {
      for (const r of ROUTES.filter((x) => x.kind === 'POST' && x.name !== 'generateToken')) {
        const res = await send(urlOf(r), { method: 'GET', params: { f: 'json', token: tokenOf(r) } });
        expectError(res, describeReq('GET', urlOf(r)), { code: 400, messageCode: 'GWM_0002', message: 'Invalid URL' });
      }
    });

    it('GET generateToken is refused: passwords must not travel in URLs', async () => {
      const r = await get(t.base, 'generateToken', { username: fx.owner.username, password: fx.owner.password });
      expectError(r, 'GET generateToken', { code: 400, message: 'Unable to generate token.', detail: 'generateToken requires POST.' });
    });
  });

  // -------------------------------------------------------------------------------------------------------------
  describe('unknown routes → 400 GWM_0002 "Invalid URL"', () => {
    const paths: [Method, string, boolean][] = [
      ['GET', '/sharing/rest/nope', false],
      ['POST', '/sharing/rest/nope', true],
      ['GET', '/sharing/rest', false],
      ['GET', '/sharing/rest/', false],
      ['GET', '/sharing/rest/content/items', false],
      ['POST', '/sharing/rest/content/items/0123456789abcdef0123456789abcdef/nope', true],
      ['GET', '/sharing/rest/content/items/0123456789abcdef0123456789abcdef/data/extra', false],
      ['POST', '/sharing/rest/community/users', true],
      ['GET', '/sharing/rest/community/groups/0123456789abcdef0123456789abcdef/members', false],
      ['POST', '/sharing/rest/portals/self/roles/0123456789abcdef0123456789abcdef/delete', true],
      ['GET', '/', false],
      ['GET', '/index.html', false],
      ['GET', '/portaladmin/security/users', false],
      ['POST', '/portaladmin/security/users/deleteUser', true],
      ['GET', '/sharing/rest/../../etc/passwd', false],
    ];
    it.each(paths)('%s %s (token: %s)', async (method, path, withToken) => {
      const params: Params = { f: 'json', ...(withToken ? { token: fx.owner.token } : {}) };
      const r = await send(`${t.root}${path}`, { method, params });
      expectError(r, `${method} ${path}`, { code: 400, messageCode: 'GWM_0002', message: 'Invalid URL', detail: 'No operation at' });
    });

    it('a malformed percent-escape in the path answers an envelope', async () => {
      for (const path of [
        '/sharing/rest/content/items/%E0%A4%A',
        '/sharing/rest/community/users/%',
        '/sharing/rest/community/groups/%zz',
      ]) {
        const r = await send(`${t.root}${path}`, { method: 'GET', params: { f: 'json' } });
        expectError(r, `GET ${path}`, { code: 400 });
      }
    });

    it('/health is plain JSON; other methods on it answer the envelope', async () => {
      const ok = await send(`${t.root}/health`, { method: 'GET' });
      expect({ http: ok.status, body: ok.body }).toMatchObject({ http: 200, body: { status: 'ok' } });
      for (const method of ['POST', 'PUT', 'DELETE'] as Method[]) {
        const r = await send(`${t.root}/health`, { method, params: { f: 'json' } });
        expectError(r, `${method} /health`, { code: 400, messageCode: 'GWM_0002', message: 'Invalid URL' });
      }
    });
  });

  // -------------------------------------------------------------------------------------------------------------
  describe('malformed bodies', () => {
    const BAD_JSON = ['{"f":"json", "q": ', '{f: json}', "{'f':'json'}", '[1,2', '"unterminated', 'nul\u0000l'];
    const targets: [string, string, boolean][] = [
      ['search (public)', 'search', false],
      ['community/createGroup (token required)', 'community/createGroup', true],
      ['generateToken', 'generateToken', false],
      ['content/users/:owner/shareItems', 'content/users/:owner/shareItems', true],
    ];
    it.each(targets)('malformed JSON with content-type application/json: %s', async (_n, path, withToken) => {
      for (const body of BAD_JSON) {
        const url = `${t.base}/${path.replace(':owner', fx.owner.username)}`;
        const headers = withToken ? { Authorization: `Bearer ${fx.owner.token}` } : undefined;
        const r = await send(url, { body, contentType: 'application/json', headers, params: { f: 'json' } });
        expectError(r, `POST ${path} application/json ${JSON.stringify(body)}`, {
          code: 400,
          message: 'Unable to parse the request body.',
        });
      }
    });

    it('a well-formed JSON body is read like a form (control)', async () => {
      const r = await send(`${t.base}/search`, {
        body: JSON.stringify({ f: 'json', q: 'title: item', token: fx.owner.token }),
        contentType: 'application/json',
      });
      expectOk(r, 'POST search application/json');
      expect(r.body.total).toBeGreaterThan(0);
    });

    const B = 'XbOuNdArY123';
    const part = (name: string, value: string) => `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const filePart = (name: string, file: string, value: string) =>
      `--${B}\r\nContent-Disposition: form-data; name="${name}"; filename="${file}"\r\nContent-Type: text/csv\r\n\r\n${value}\r\n`;
    const multipartCases: [string, string, string, RegExp][] = [
      ['no boundary in the content-type', 'multipart/form-data', part('f', 'json') + `--${B}--\r\n`, /boundary/i],
      [
        'body cut off before the closing boundary',
        `multipart/form-data; boundary=${B}`,
        part('f', 'json') + `--${B}\r\nContent-Disposition: form-data; name="title"\r\n\r\nabc`,
        /end of form|unexpected end/i,
      ],
      [
        'garbage instead of parts',
        `multipart/form-data; boundary=${B}`,
        'this is not multipart at all',
        /end of form|unexpected end|malformed/i,
      ],
      ['part without headers', `multipart/form-data; boundary=${B}`, `--${B}\r\n\r\nvalue\r\n--${B}--\r\n`, /malformed part header/i],
      [
        'two files where one is allowed',
        `multipart/form-data; boundary=${B}`,
        filePart('file', 'a.csv', 'a,b') + filePart('file2', 'b.csv', 'c,d') + `--${B}--\r\n`,
        /too many files/i,
      ],
    ];
    it.each(multipartCases)('malformed multipart: %s', async (_n, contentType, body, text) => {
      for (const [path, withToken] of [
        [`content/users/${fx.owner.username}/addItem`, true],
        ['search', false],
      ] as const) {
        const headers = withToken ? { Authorization: `Bearer ${fx.owner.token}` } : undefined;
        const r = await send(`${t.base}/${path}`, { body, contentType, headers, params: { f: 'json' } });
        expectError(r, `POST ${path} ${contentType} (${_n})`, { code: 400, text });
      }
    });

    it('a well-formed multipart addItem with a file and the token in the body works (control)', async () => {
      const body =
        part('f', 'json') +
        part('token', fx.owner.token) +
        part('title', uniq('csv')) +
        part('type', 'CSV') +
        filePart('file', 'a.csv', 'a,b\n1,2') +
        `--${B}--\r\n`;
      const r = await send(`${t.base}/content/users/${fx.owner.username}/addItem`, {
        body,
        contentType: `multipart/form-data; boundary=${B}`,
      });
      expectOk(r, 'POST addItem multipart');
      expect(r.body.success).toBe(true);
    });

    it('a form body in an unsupported charset answers an envelope', async () => {
      const r = await send(`${t.base}/search`, { body: 'f=json&q=abc', contentType: 'application/x-www-form-urlencoded; charset=koi8-r' });
      expectError(r, 'POST search urlencoded charset=koi8-r', { code: 400, text: /charset/i });
    });

    it('a body that claims gzip answers an envelope refusing compressed bodies', async () => {
      const r = await send(`${t.base}/search`, {
        body: 'f=json&q=abc',
        contentType: 'application/x-www-form-urlencoded',
        headers: { 'Content-Encoding': 'gzip' },
      });
      // The message must say what is wrong with the body (its encoding), not just "Bad Request".
      expectError(r, 'POST search Content-Encoding: gzip (not gzip)', { code: 415, text: /gzip|encoding|decompress|compressed|inflate/i });
    });
  });

  // -------------------------------------------------------------------------------------------------------------
  describe('missing and malformed parameters', () => {
    interface Case {
      path: () => string;
      method?: Method;
      params?: () => Params;
      /** Defaults to the owner's token; null sends none. */
      token?: () => string | null;
      root?: boolean;
      want: () => Want;
    }
    const INVALID = 'Invalid or missing input parameters.';
    const o = () => fx.owner.username;
    const ghost = 'ghost_user_' + randomBytes(3).toString('hex');
    const admin = () => fx.admin;
    const other = () => fx.other.token;
    const noToken = () => null;
    const notHex = 'z'.repeat(32);
    const long = (n: number) => 'a'.repeat(n);

    const CASES: Record<string, Case> = {
      // generateToken
      'generateToken: username missing': {
        path: () => 'generateToken',
        token: noToken,
        params: () => ({ password: 'x' }),
        want: () => ({ code: 400, message: INVALID, detail: "'username' is required." }),
      },
      'generateToken: password missing': {
        path: () => 'generateToken',
        token: noToken,
        params: () => ({ username: o() }),
        want: () => ({ code: 400, message: INVALID, detail: "'password' is required." }),
      },
      'generateToken: client=foo': {
        path: () => 'generateToken',
        token: noToken,
        params: () => ({ username: o(), password: 'x', client: 'foo' }),
        want: () => ({ code: 400, detail: "'client' must be one of referer, ip, requestip." }),
      },
      'generateToken: client=referer without referer': {
        path: () => 'generateToken',
        token: noToken,
        params: () => ({ username: o(), password: fx.owner.password, client: 'referer' }),
        want: () => ({ code: 400, message: 'Unable to generate token.', detail: "'referer' must be specified" }),
      },
      'generateToken: expiration=abc': {
        path: () => 'generateToken',
        token: noToken,
        params: () => ({ username: o(), password: 'x', expiration: 'abc' }),
        want: () => ({ code: 400, detail: "'expiration' must be a whole number of minutes." }),
      },
      'generateToken: expiration=0': {
        path: () => 'generateToken',
        token: noToken,
        params: () => ({ username: o(), password: 'x', expiration: '0' }),
        want: () => ({ code: 400, detail: "'expiration' must be at least 1 minute." }),
      },
      'generateToken: wrong password': {
        path: () => 'generateToken',
        token: noToken,
        params: () => ({ username: o(), password: 'wrong-password' }),
        want: () => ({ code: 400, message: 'Unable to generate token.', detail: 'Invalid username or password.' }),
      },
      'generateToken: unknown user': {
        path: () => 'generateToken',
        token: noToken,
        params: () => ({ username: ghost, password: 'whatever-1' }),
        want: () => ({ code: 400, message: 'Unable to generate token.', detail: 'Invalid username or password.' }),
      },

      // revokeToken
      'oauth2/revokeToken: auth_token missing': {
        path: () => 'oauth2/revokeToken',
        want: () => ({ code: 400, message: INVALID, detail: "'auth_token' is required." }),
      },
      'oauth2/revokeToken: auth_token unknown': {
        path: () => 'oauth2/revokeToken',
        params: () => ({ auth_token: GARBAGE_TOKEN }),
        want: () => ({ code: 400, message: 'Unable to revoke token.' }),
      },

      // community/users
      'community/users/:username unknown user → COM_0019': {
        method: 'GET',
        path: () => `community/users/${ghost}`,
        want: () => ({ code: 400, messageCode: 'COM_0019', message: 'User does not exist or is inaccessible.', detail: ghost }),
      },
      'community/users/:username malformed name → COM_0019': {
        method: 'GET',
        path: () => `community/users/${encodeURIComponent('bad name!')}`,
        want: () => ({ code: 400, messageCode: 'COM_0019', message: 'User does not exist or is inaccessible.' }),
      },
      'community/users/:username 10k-char name → COM_0019': {
        method: 'GET',
        path: () => `community/users/${long(10000)}`,
        want: () => ({ code: 400, messageCode: 'COM_0019', message: 'User does not exist or is inaccessible.' }),
      },

      // createRole / setPrivileges / updateUserRole
      'createRole: name missing': {
        path: () => 'portals/self/createRole',
        token: admin,
        want: () => ({ code: 400, message: INVALID, detail: "'name' is required." }),
      },
      'createRole: name of 129 characters': {
        path: () => 'portals/self/createRole',
        token: admin,
        params: () => ({ name: long(129) }),
        want: () => ({ code: 400, message: INVALID, text: /name.*128/ }),
      },
      'createRole: name already used in the org': {
        path: () => 'portals/self/createRole',
        token: admin,
        params: () => ({ name: fx.roleName }),
        want: () => ({ code: 400, text: /already|exists|taken|in use|duplicate/i }),
      },
      'createRole: not an administrator → 403': {
        path: () => 'portals/self/createRole',
        token: other,
        params: () => ({ name: uniq('role') }),
        want: () => ({ code: 403, messageCode: 'GWM_0003', message: 'You do not have permissions' }),
      },
      'setPrivileges: privileges missing': {
        path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
        token: admin,
        want: () => ({ code: 400, message: INVALID, detail: "'privileges' is required" }),
      },
      'setPrivileges: privileges not JSON': {
        path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
        token: admin,
        params: () => ({ privileges: 'portal:user:createItem' }),
        want: () => ({ code: 400, message: "'privileges' is not valid JSON." }),
      },
      'setPrivileges: privileges truncated JSON': {
        path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
        token: admin,
        params: () => ({ privileges: '{"privileges":["portal:user:createItem"' }),
        want: () => ({ code: 400, message: "'privileges' is not valid JSON." }),
      },
      'setPrivileges: privileges not a list': {
        path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
        token: admin,
        params: () => ({ privileges: '{"privileges":"portal:user:createItem"}' }),
        want: () => ({ code: 400, message: "'privileges' must be a JSON object" }),
      },
      'setPrivileges: privileges JSON null': {
        path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
        token: admin,
        params: () => ({ privileges: 'null' }),
        want: () => ({ code: 400, message: "'privileges' must be a JSON object" }),
      },
      'setPrivileges: unknown privilege': {
        path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
        token: admin,
        params: () => ({ privileges: '{"privileges":["portal:user:fly"]}' }),
        want: () => ({ code: 400, message: 'Unknown privileges.', detail: "Unknown privilege 'portal:user:fly'." }),
      },
      'setPrivileges: role id not hex': {
        path: () => 'portals/self/roles/not-a-role/setPrivileges',
        token: admin,
        params: () => ({ privileges: '{"privileges":[]}' }),
        want: () => ({ code: 400, message: 'Role does not exist.', detail: 'not-a-role' }),
      },
      'setPrivileges: unknown role id': {
        path: () => `portals/self/roles/${fx.missingId}/setPrivileges`,
        token: admin,
        params: () => ({ privileges: '{"privileges":[]}' }),
        want: () => ({ code: 400, message: 'Role does not exist.' }),
      },
      'updateUserRole: user missing': {
        path: () => 'portals/self/updateUserRole',
        token: admin,
        params: () => ({ role: 'org_user' }),
        want: () => ({ code: 400, message: INVALID, detail: "'user' is required." }),
      },
      'updateUserRole: role missing': {
        path: () => 'portals/self/updateUserRole',
        token: admin,
        params: () => ({ user: fx.member.username }),
        want: () => ({ code: 400, message: INVALID, detail: "'role' is required." }),
      },
      'updateUserRole: unknown user → COM_0019': {
        path: () => 'portals/self/updateUserRole',
        token: admin,
        params: () => ({ user: ghost, role: 'org_user' }),
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },
      'updateUserRole: unknown role': {
        path: () => 'portals/self/updateUserRole',
        token: admin,
        params: () => ({ user: fx.member.username, role: 'org_superhero' }),
        want: () => ({ code: 400, message: 'Invalid role.', detail: "'role' must be one of org_admin, org_publisher, org_user" }),
      },

      // createUser
      'createUser: username missing': {
        root: true,
        path: () => 'portaladmin/security/users/createUser',
        token: admin,
        params: () => ({ password: 'password-123' }),
        want: () => ({ code: 400, message: INVALID, detail: "'username' must be 1-128 characters" }),
      },
      'createUser: username with spaces': {
        root: true,
        path: () => 'portaladmin/security/users/createUser',
        token: admin,
        params: () => ({ username: 'bad name!', password: 'password-123' }),
        want: () => ({ code: 400, detail: "'username' must be 1-128 characters" }),
      },
      'createUser: password missing': {
        root: true,
        path: () => 'portaladmin/security/users/createUser',
        token: admin,
        params: () => ({ username: uniq('u') }),
        want: () => ({ code: 400, detail: "'password' is required." }),
      },
      'createUser: password too short': {
        root: true,
        path: () => 'portaladmin/security/users/createUser',
        token: admin,
        params: () => ({ username: uniq('u'), password: 'short' }),
        want: () => ({ code: 400, detail: "'password' must be at least 8 characters." }),
      },
      'createUser: email malformed': {
        root: true,
        path: () => 'portaladmin/security/users/createUser',
        token: admin,
        params: () => ({ username: uniq('u'), password: 'password-123', email: 'not-an-email' }),
        want: () => ({ code: 400, detail: "'email' must be an email address." }),
      },
      'createUser: unknown role': {
        root: true,
        path: () => 'portaladmin/security/users/createUser',
        token: admin,
        params: () => ({ username: uniq('u'), password: 'password-123', role: 'org_superhero' }),
        want: () => ({ code: 400, message: 'Invalid role.' }),
      },
      'createUser: user name taken (other case)': {
        root: true,
        path: () => 'portaladmin/security/users/createUser',
        token: admin,
        params: () => ({ username: fx.owner.username.toUpperCase(), password: 'password-123' }),
        want: () => ({ code: 400, message: 'Unable to create user.', detail: 'already taken' }),
      },
      'createUser: not an administrator → 403': {
        root: true,
        path: () => 'portaladmin/security/users/createUser',
        token: other,
        params: () => ({ username: uniq('u'), password: 'password-123' }),
        want: () => ({ code: 403, messageCode: 'GWM_0003' }),
      },

      // addItem
      'addItem: title and type missing': {
        path: () => `content/users/${o()}/addItem`,
        want: () => ({ code: 400, detail: "'type' and 'title' property required." }),
      },
      'addItem: type missing': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x' }),
        want: () => ({ code: 400, detail: "'type' and 'title' property required." }),
      },
      'addItem: blank title': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: '   ', type: 'Web Map' }),
        want: () => ({ code: 400, message: "'type' and 'title' property required." }),
      },
      'addItem: title of 257 characters': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: long(257), type: 'Web Map' }),
        want: () => ({ code: 400, detail: "'title' must be at most 256 characters." }),
      },
      'addItem: properties not JSON': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', properties: '{oops' }),
        want: () => ({ code: 400, message: "'properties' is not a valid JSON object." }),
      },
      'addItem: properties a JSON array': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', properties: '[1,2]' }),
        want: () => ({ code: 400, message: "'properties' is not a valid JSON object.", detail: 'expected a JSON object' }),
      },
      'addItem: properties with a \\u0000 escape': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', properties: '{"a":"\\u0000"}' }),
        want: () => ({ code: 400, text: /properties/ }),
      },
      'addItem: extent with 3 numbers': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', extent: '1,2,3' }),
        want: () => ({ code: 400, message: "'extent' is not valid.", detail: 'xmin,ymin,xmax,ymax' }),
      },
      'addItem: extent not numbers': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', extent: 'a,b,c,d' }),
        want: () => ({ code: 400, message: "'extent' is not valid." }),
      },
      'addItem: tag longer than 256': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', tags: `ok,${long(257)}` }),
        want: () => ({ code: 400, text: /tags/ }),
      },
      'addItem: unknown owner → COM_0019': {
        path: () => `content/users/${ghost}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map' }),
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },
      'addItem: malformed owner → COM_0019': {
        path: () => `content/users/${encodeURIComponent("o'brien;--")}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map' }),
        want: () => ({ code: 400, messageCode: 'COM_0019' }),
      },
      "addItem: into another user's content → 403": {
        path: () => `content/users/${fx.member.username}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map' }),
        want: () => ({ code: 403, messageCode: 'GWM_0003', detail: 'Items can only be added to your own content.' }),
      },
      'addItem: into a folder': {
        path: () => `content/users/${o()}/somefolder/addItem`,
        params: () => ({ title: 'x', type: 'Web Map' }),
        want: () => ({ code: 400, message: 'Folder does not exist.', detail: 'somefolder' }),
      },

      // user content
      'content/users/:owner: start=abc': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ start: 'abc' }),
        want: () => ({ code: 400, message: INVALID, detail: "'start' must be a whole number." }),
      },
      'content/users/:owner: start=1.5': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ start: '1.5' }),
        want: () => ({ code: 400, detail: "'start' must be a whole number." }),
      },
      'content/users/:owner: start=0': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ start: '0' }),
        want: () => ({ code: 400, detail: "'start' must be 1 or more." }),
      },
      'content/users/:owner: num=ten': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ num: 'ten' }),
        want: () => ({ code: 400, detail: "'num' must be a whole number." }),
      },
      'content/users/:owner: num=-1': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ num: '-1' }),
        want: () => ({ code: 400, detail: "'num' must be 0 or more." }),
      },
      'content/users/:owner: num=101': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ num: '101' }),
        want: () => ({ code: 400, detail: "'num' must be at most 100." }),
      },
      'content/users/:owner: unknown owner → COM_0019': {
        method: 'GET',
        path: () => `content/users/${ghost}`,
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },
      "content/users/:owner: another user's content → 403": {
        method: 'GET',
        path: () => `content/users/${fx.member.username}`,
        want: () => ({ code: 403, messageCode: 'GWM_0003' }),
      },

      // items
      'content/items/:id: not hex': {
        method: 'GET',
        path: () => `content/items/${notHex}`,
        want: () => ({
          code: 400,
          messageCode: 'CONT_0001',
          message: 'Item does not exist or is inaccessible.',
          detail: 'is not a valid item id (32 hexadecimal characters)',
        }),
      },
      'content/items/:id: 31 hex characters': {
        method: 'GET',
        path: () => `content/items/${fx.itemId.slice(1)}`,
        want: () => ({ code: 400, messageCode: 'CONT_0001', detail: 'is not a valid item id' }),
      },
      'content/items/:id: 33 hex characters': {
        method: 'GET',
        path: () => `content/items/${fx.itemId}0`,
        want: () => ({ code: 400, messageCode: 'CONT_0001', detail: 'is not a valid item id' }),
      },
      'content/items/:id: unknown id': {
        method: 'GET',
        path: () => `content/items/${fx.missingId}`,
        want: () => ({ code: 400, messageCode: 'CONT_0001', message: 'Item does not exist or is inaccessible.', detail: fx.missingId }),
      },
      'content/items/:id: private item, anonymous': {
        method: 'GET',
        token: noToken,
        path: () => `content/items/${fx.itemId}`,
        want: () => ({ code: 400, messageCode: 'CONT_0001' }),
      },
      'content/items/:id/data: not hex': {
        method: 'GET',
        path: () => `content/items/abc/data`,
        want: () => ({ code: 400, messageCode: 'CONT_0001', detail: "'abc' is not a valid item id" }),
      },
      'content/items/:id/data: unknown id': {
        method: 'GET',
        path: () => `content/items/${fx.missingId}/data`,
        want: () => ({ code: 400, messageCode: 'CONT_0001' }),
      },
      'delete: id not hex': {
        path: () => `content/users/${o()}/items/${notHex}/delete`,
        want: () => ({ code: 400, messageCode: 'CONT_0001', detail: 'is not a valid item id' }),
      },
      'delete: unknown id': {
        path: () => `content/users/${o()}/items/${fx.missingId}/delete`,
        want: () => ({ code: 400, messageCode: 'CONT_0001' }),
      },
      'delete: unknown owner → COM_0019': {
        path: () => `content/users/${ghost}/items/${fx.itemId}/delete`,
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },
      'delete: owner and item id both malformed → the owner is named first, as the URL nests them': {
        path: () => `content/users/bad!!/items/${notHex}/delete`,
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: 'bad!!' }),
      },
      'status: jobType=foo': {
        method: 'GET',
        path: () => `content/users/${o()}/items/${fx.itemId}/status`,
        params: () => ({ jobType: 'foo' }),
        want: () => ({ code: 400, detail: "'jobType' must be one of publish, generateFeatures, export, createService." }),
      },
      'status: id not hex': {
        method: 'GET',
        path: () => `content/users/${o()}/items/xyz/status`,
        want: () => ({ code: 400, messageCode: 'CONT_0001' }),
      },
      'status: unknown owner → COM_0019': {
        method: 'GET',
        path: () => `content/users/${ghost}/items/${fx.itemId}/status`,
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },

      // search
      'search: q missing': { method: 'GET', path: () => 'search', want: () => ({ code: 400, message: "'q' is required." }) },
      'search: q blank': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: '   ' }),
        want: () => ({ code: 400, message: "'q' is required." }),
      },
      'search: q of 2049 characters': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: long(2049) }),
        want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "'q' is longer than 2048 characters." }),
      },
      'search: q of 10,000 characters (POST)': {
        path: () => 'search',
        params: () => ({ q: long(10000) }),
        want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: 'longer than 2048' }),
      },
      'search: unknown field foo: bar': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'foo: bar' }),
        want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "Unknown search field 'foo'" }),
      },
      'search: unbalanced "(title: a"': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: '(title: a' }),
        want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "Missing ')'." }),
      },
      'search: unbalanced "title: a)"': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'title: a)' }),
        want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "Unexpected ')'" }),
      },
      'search: unbalanced "((a)"': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: '((a)' }),
        want: () => ({ code: 400, detail: "Missing ')'." }),
      },
      'search: unbalanced ")("': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: ')(' }),
        want: () => ({ code: 400, detail: "Unexpected ')'" }),
      },
      'search: field without value': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'title:' }),
        want: () => ({ code: 400, detail: "Missing value after 'title:'." }),
      },
      'search: unterminated quote': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'title: "abc' }),
        want: () => ({ code: 400, detail: 'Unterminated quote' }),
      },
      'search: dangling OR': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'a OR' }),
        want: () => ({ code: 400, detail: 'The query ends where a search term was expected.' }),
      },
      'search: 33 terms': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: Array.from({ length: 33 }, (_, i) => `t${i}`).join(' OR ') }),
        want: () => ({ code: 400, detail: 'More than 32 search terms.' }),
      },
      'search: sortField=bogus': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'a', sortField: 'bogus' }),
        want: () => ({ code: 400, detail: "'sortField' must be one of title, created, modified, type, owner, size, id, numViews." }),
      },
      'search: sortOrder=sideways': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'a', sortOrder: 'sideways' }),
        want: () => ({ code: 400, detail: "'sortOrder' must be asc or desc." }),
      },
      'search: num=101': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'a', num: '101' }),
        want: () => ({ code: 400, detail: "'num' must be at most 100." }),
      },
      'search: start=x': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'a', start: 'x' }),
        want: () => ({ code: 400, detail: "'start' must be a whole number." }),
      },
      'content/groups/:id/search: group id not hex': {
        method: 'GET',
        path: () => 'content/groups/nothex/search',
        params: () => ({ q: 'a' }),
        want: () => ({ code: 400, messageCode: 'COM_0003', detail: "'nothex' is not a valid group id" }),
      },
      'content/groups/:id/search: unknown field': {
        method: 'GET',
        path: () => `content/groups/${fx.groupId}/search`,
        params: () => ({ q: 'foo: bar' }),
        want: () => ({ code: 400, detail: "Unknown search field 'foo'" }),
      },
      'content/groups/:id/search: unbalanced "(a"': {
        method: 'GET',
        path: () => `content/groups/${fx.groupId}/search`,
        params: () => ({ q: '(a' }),
        want: () => ({ code: 400, detail: "Missing ')'." }),
      },
      'content/groups/:id/search: unbalanced "a)"': {
        method: 'GET',
        path: () => `content/groups/${fx.groupId}/search`,
        params: () => ({ q: 'a)' }),
        want: () => ({ code: 400, detail: "Unexpected ')'" }),
      },
      'content/groups/:id/search: num=101': {
        method: 'GET',
        path: () => `content/groups/${fx.groupId}/search`,
        params: () => ({ q: 'a', num: '101' }),
        want: () => ({ code: 400, detail: "'num' must be at most 100." }),
      },

      // groups
      'createGroup: title missing': {
        path: () => 'community/createGroup',
        want: () => ({ code: 400, message: INVALID, detail: "'title' is required." }),
      },
      'createGroup: blank title': {
        path: () => 'community/createGroup',
        params: () => ({ title: '   ' }),
        want: () => ({ code: 400, detail: "'title' is required." }),
      },
      'createGroup: title of 257 characters': {
        path: () => 'community/createGroup',
        params: () => ({ title: long(257) }),
        want: () => ({ code: 400, text: /title.*256/ }),
      },
      'createGroup: access=bogus': {
        path: () => 'community/createGroup',
        params: () => ({ title: 'x', access: 'bogus' }),
        want: () => ({ code: 400, detail: "'access' must be one of private, org, public." }),
      },
      'createGroup: isViewOnly=maybe': {
        path: () => 'community/createGroup',
        params: () => ({ title: 'x', isViewOnly: 'maybe' }),
        want: () => ({ code: 400, detail: "'isViewOnly' must be true or false." }),
      },
      'createGroup: isInvitationOnly=yes': {
        path: () => 'community/createGroup',
        params: () => ({ title: 'x', isInvitationOnly: 'yes' }),
        want: () => ({ code: 400, detail: "'isInvitationOnly' must be true or false." }),
      },
      'createGroup: autoJoin=2': {
        path: () => 'community/createGroup',
        params: () => ({ title: 'x', autoJoin: '2' }),
        want: () => ({ code: 400, detail: "'autoJoin' must be true or false." }),
      },
      'createGroup: sortField=bogus': {
        path: () => 'community/createGroup',
        params: () => ({ title: 'x', sortField: 'bogus' }),
        want: () => ({ code: 400, detail: "'sortField' is not a valid sort field." }),
      },
      'createGroup: sortOrder=up': {
        path: () => 'community/createGroup',
        params: () => ({ title: 'x', sortOrder: 'up' }),
        want: () => ({ code: 400, detail: "'sortOrder' must be asc or desc." }),
      },
      'community/groups/:id: not hex': {
        method: 'GET',
        path: () => `community/groups/${notHex}`,
        want: () => ({
          code: 400,
          messageCode: 'COM_0003',
          message: 'Group does not exist or is inaccessible.',
          detail: 'is not a valid group id (32 hexadecimal characters)',
        }),
      },
      'community/groups/:id: short id': {
        method: 'GET',
        path: () => 'community/groups/abc123',
        want: () => ({ code: 400, messageCode: 'COM_0003', detail: "'abc123' is not a valid group id" }),
      },
      'community/groups/:id: unknown id': {
        method: 'GET',
        path: () => `community/groups/${fx.missingId}`,
        want: () => ({ code: 400, messageCode: 'COM_0003', detail: fx.missingId }),
      },
      'content/groups/:id: not hex': {
        method: 'GET',
        path: () => 'content/groups/nothex',
        want: () => ({ code: 400, messageCode: 'COM_0003' }),
      },
      'content/groups/:id: num=101': {
        method: 'GET',
        path: () => `content/groups/${fx.groupId}`,
        params: () => ({ num: '101' }),
        want: () => ({ code: 400, detail: "'num' must be at most 100." }),
      },
      'content/groups/:id: start=-5': {
        method: 'GET',
        path: () => `content/groups/${fx.groupId}`,
        params: () => ({ start: '-5' }),
        want: () => ({ code: 400, detail: "'start' must be 1 or more." }),
      },
      'addUsers: neither users nor admins': {
        path: () => `community/groups/${fx.groupId}/addUsers`,
        want: () => ({ code: 400, message: "'users' or 'admins' is required." }),
      },
      'addUsers: 1001 users': {
        path: () => `community/groups/${fx.groupId}/addUsers`,
        params: () => ({ users: Array.from({ length: 1001 }, (_, i) => `u${i}`).join(',') }),
        want: () => ({ code: 400, detail: 'At most 1000 users per request.' }),
      },
      'addUsers: 1001 admins': {
        path: () => `community/groups/${fx.groupId}/addUsers`,
        params: () => ({ admins: Array.from({ length: 1001 }, (_, i) => `u${i}`).join(',') }),
        want: () => ({ code: 400, detail: 'At most 1000 admins per request.' }),
      },
      'addUsers: group id not hex': {
        path: () => 'community/groups/nothex/addUsers',
        params: () => ({ users: fx.member.username }),
        want: () => ({ code: 400, messageCode: 'COM_0003' }),
      },
      'addUsers: not a manager → 403': {
        path: () => `community/groups/${fx.groupId}/addUsers`,
        token: other,
        params: () => ({ users: fx.member.username }),
        want: () => ({ code: 403, messageCode: 'GWM_0003' }),
      },
      'removeUsers: users missing': {
        path: () => `community/groups/${fx.groupId}/removeUsers`,
        want: () => ({ code: 400, detail: "'users' is required." }),
      },
      'removeUsers: users empty': {
        path: () => `community/groups/${fx.groupId}/removeUsers`,
        params: () => ({ users: ' , ,' }),
        want: () => ({ code: 400, message: "'users' is required." }),
      },
      'removeUsers: 1001 users': {
        path: () => `community/groups/${fx.groupId}/removeUsers`,
        params: () => ({ users: Array.from({ length: 1001 }, (_, i) => `u${i}`).join(',') }),
        want: () => ({ code: 400, detail: 'At most 1000 users per request.' }),
      },
      'updateUserMemberships: users missing': {
        path: () => `community/groups/${fx.groupId}/updateUserMemberships`,
        params: () => ({ newMemberType: 'admin' }),
        want: () => ({ code: 400, detail: "'users' is required." }),
      },
      'updateUserMemberships: newMemberType missing': {
        path: () => `community/groups/${fx.groupId}/updateUserMemberships`,
        params: () => ({ users: fx.member.username }),
        want: () => ({ code: 400, detail: "'newMemberType' must be member or admin." }),
      },
      'updateUserMemberships: newMemberType=owner': {
        path: () => `community/groups/${fx.groupId}/updateUserMemberships`,
        params: () => ({ users: fx.member.username, newMemberType: 'owner' }),
        want: () => ({ code: 400, detail: "'newMemberType' must be member or admin." }),
      },
      'group delete: id not hex': { path: () => 'community/groups/nothex/delete', want: () => ({ code: 400, messageCode: 'COM_0003' }) },
      'group delete: unknown id': {
        path: () => `community/groups/${fx.missingId}/delete`,
        want: () => ({ code: 400, messageCode: 'COM_0003' }),
      },
      'group delete: not the owner → 403': {
        path: () => `community/groups/${fx.groupId}/delete`,
        token: () => fx.member.token,
        want: () => ({ code: 403, messageCode: 'GWM_0003' }),
      },

      // sharing
      'unshareItems: items missing': {
        path: () => `content/users/${o()}/unshareItems`,
        params: () => ({ groups: fx.groupId }),
        want: () => ({ code: 400, detail: "'items' is required" }),
      },
      'unshareItems: groups missing': {
        path: () => `content/users/${o()}/unshareItems`,
        params: () => ({ items: fx.itemId }),
        want: () => ({ code: 400, detail: "'groups' is required" }),
      },
      'unshareItems: items empty list': {
        path: () => `content/users/${o()}/unshareItems`,
        params: () => ({ items: ',,,', groups: fx.groupId }),
        want: () => ({ code: 400, message: "'items' is required." }),
      },
      'unshareItems: non-hex item id in the list': {
        path: () => `content/users/${o()}/unshareItems`,
        params: () => ({ items: `${fx.itemId},nothex`, groups: fx.groupId }),
        want: () => ({ code: 400, message: 'Invalid ids: ids are 32 hexadecimal characters.', detail: "'nothex' is not a valid item id." }),
      },
      'unshareItems: short item id in the list': {
        path: () => `content/users/${o()}/unshareItems`,
        params: () => ({ items: fx.itemId.slice(0, 31), groups: fx.groupId }),
        want: () => ({ code: 400, detail: 'is not a valid item id.' }),
      },
      'unshareItems: non-hex group id in the list': {
        path: () => `content/users/${o()}/unshareItems`,
        params: () => ({ items: fx.itemId, groups: `${fx.groupId},${notHex}` }),
        want: () => ({ code: 400, detail: `'${notHex}' is not a valid group id.` }),
      },
      'unshareItems: 1001 items': {
        path: () => `content/users/${o()}/unshareItems`,
        params: () => ({ items: ids(1001), groups: fx.groupId }),
        want: () => ({ code: 400, message: 'Too many items: 1001.', detail: 'At most 1000 items per request.' }),
      },
      'unshareItems: 20000 items': {
        path: () => `content/users/${o()}/unshareItems`,
        params: () => ({ items: ids(20000), groups: fx.groupId }),
        want: () => ({ code: 400, message: 'Too many items: 20000.' }),
      },
      'unshareItems: 101 groups': {
        path: () => `content/users/${o()}/unshareItems`,
        params: () => ({ items: fx.itemId, groups: ids(101) }),
        want: () => ({ code: 400, message: 'Too many groups: 101.', detail: 'At most 100 groups per request.' }),
      },
      'unshareItems: unknown owner → COM_0019': {
        path: () => `content/users/${ghost}/unshareItems`,
        params: () => ({ items: fx.itemId, groups: fx.groupId }),
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },
      'shareItems: items missing': {
        path: () => `content/users/${o()}/shareItems`,
        params: () => ({ groups: fx.groupId }),
        want: () => ({ code: 400, detail: "'items' is required" }),
      },
      'shareItems: neither groups nor everyone/org': {
        path: () => `content/users/${o()}/shareItems`,
        params: () => ({ items: fx.itemId }),
        want: () => ({ code: 400, message: "'groups' is required." }),
      },
      'shareItems: everyone=maybe': {
        path: () => `content/users/${o()}/shareItems`,
        params: () => ({ items: fx.itemId, everyone: 'maybe' }),
        want: () => ({ code: 400, detail: "'everyone' must be true or false." }),
      },
      'shareItems: org=perhaps': {
        path: () => `content/users/${o()}/shareItems`,
        params: () => ({ items: fx.itemId, org: 'perhaps' }),
        want: () => ({ code: 400, detail: "'org' must be true or false." }),
      },
      'shareItems: account=1': {
        path: () => `content/users/${o()}/shareItems`,
        params: () => ({ items: fx.itemId, account: '1' }),
        want: () => ({ code: 400, detail: "'account' must be true or false." }),
      },
      'shareItems: confirmItemControl=x': {
        path: () => `content/users/${o()}/shareItems`,
        params: () => ({ items: fx.itemId, groups: fx.groupId, confirmItemControl: 'x' }),
        want: () => ({ code: 400, detail: "'confirmItemControl' must be true or false." }),
      },
      'shareItems: 1001 items': {
        path: () => `content/users/${o()}/shareItems`,
        params: () => ({ items: ids(1001), groups: fx.groupId }),
        want: () => ({ code: 400, message: 'Too many items: 1001.' }),
      },
      'shareItems: 101 groups': {
        path: () => `content/users/${o()}/shareItems`,
        params: () => ({ items: fx.itemId, groups: ids(101) }),
        want: () => ({ code: 400, message: 'Too many groups: 101.' }),
      },
      'shareItems: non-hex ids in the lists': {
        path: () => `content/users/${o()}/shareItems`,
        params: () => ({ items: 'abc', groups: 'def' }),
        want: () => ({ code: 400, message: 'Invalid ids', detail: "'def' is not a valid group id." }),
      },
      'shareItems: unknown owner → COM_0019': {
        path: () => `content/users/${ghost}/shareItems`,
        params: () => ({ items: fx.itemId, groups: fx.groupId }),
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },
      'item share (owner): id not hex': {
        path: () => `content/users/${o()}/items/nothex/share`,
        params: () => ({ groups: fx.groupId }),
        want: () => ({ code: 400, messageCode: 'CONT_0001', detail: "'nothex' is not a valid item id" }),
      },
      'item share (owner): unknown item': {
        path: () => `content/users/${o()}/items/${fx.missingId}/share`,
        params: () => ({ groups: fx.groupId }),
        want: () => ({ code: 400, messageCode: 'CONT_0001', detail: fx.missingId }),
      },
      'item share (owner): everyone=maybe': {
        path: () => `content/users/${o()}/items/${fx.itemId}/share`,
        params: () => ({ everyone: 'maybe' }),
        want: () => ({ code: 400, detail: "'everyone' must be true or false." }),
      },
      'item share (owner): non-hex group list': {
        path: () => `content/users/${o()}/items/${fx.itemId}/share`,
        params: () => ({ groups: 'a,b' }),
        want: () => ({ code: 400, detail: "'a' is not a valid group id." }),
      },
      'item share (owner): unknown owner → COM_0019': {
        path: () => `content/users/${ghost}/items/${fx.itemId}/share`,
        params: () => ({ groups: fx.groupId }),
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },
      'item unshare (owner): groups missing': {
        path: () => `content/users/${o()}/items/${fx.itemId}/unshare`,
        want: () => ({ code: 400, detail: "'groups' is required" }),
      },
      'item unshare (owner): id not hex': {
        path: () => `content/users/${o()}/items/${notHex}/unshare`,
        params: () => ({ groups: fx.groupId }),
        want: () => ({ code: 400, messageCode: 'CONT_0001' }),
      },
      'item unshare (owner): unknown owner → COM_0019': {
        path: () => `content/users/${ghost}/items/${fx.itemId}/unshare`,
        params: () => ({ groups: fx.groupId }),
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },
      'item share (group admin): everyone=true is for owners': {
        path: () => `content/items/${fx.itemId}/share`,
        params: () => ({ everyone: 'true' }),
        want: () => ({ code: 400, message: "'everyone' and 'org' can only be set by the owner or an administrator." }),
      },
      'item share (group admin): id not hex': {
        path: () => 'content/items/nothex/share',
        params: () => ({ groups: fx.groupId }),
        want: () => ({ code: 400, messageCode: 'CONT_0001' }),
      },
      'item share (group admin): unknown item': {
        path: () => `content/items/${fx.missingId}/share`,
        params: () => ({ groups: fx.groupId }),
        want: () => ({ code: 400, messageCode: 'CONT_0001' }),
      },
      'item unshare (group admin): groups missing': {
        path: () => `content/items/${fx.itemId}/unshare`,
        want: () => ({ code: 400, detail: "'groups' is required" }),
      },
      'item unshare (group admin): non-hex group': {
        path: () => `content/items/${fx.itemId}/unshare`,
        params: () => ({ groups: 'xyz' }),
        want: () => ({ code: 400, detail: "'xyz' is not a valid group id." }),
      },
    };

    it.each(Object.keys(CASES))('%s', async (name) => {
      const c = CASES[name];
      const method = c.method ?? 'POST';
      const token = (c.token ?? (() => fx.owner.token))();
      const params: Params = { f: 'json', ...(c.params?.() ?? {}), ...(token ? { token } : {}) };
      const url = `${c.root ? t.root : t.base}/${c.path()}`;
      const r = await send(url, { method, params });
      expectError(r, describeReq(method, url, params), c.want());
    });

    // --- values that must not reach Postgres unchecked, and q edge cases ---

    const paged: [string, () => string, Params][] = [
      ['content/users/:owner', (): string => `content/users/${fx.owner.username}`, {}],
      ['search', (): string => 'search', { q: 'item' }],
      ['content/groups/:id', (): string => `content/groups/${fx.groupId}`, {}],
      ['content/groups/:id/search', (): string => `content/groups/${fx.groupId}/search`, { q: 'item' }],
    ];
    it.each(paged)('%s: start=99999999999999999999 answers an empty page or a 400 naming start, never 500', async (_n, path, extra) => {
      const params: Params = { f: 'json', ...extra, start: '99999999999999999999', token: fx.owner.token };
      const r = await send(`${t.base}/${path()}`, { method: 'GET', params });
      const req = describeReq('GET', `${t.base}/${path()}`, params);
      if (r.body?.error) expectError(r, req, { code: 400, text: /start/ });
      else {
        expectOk(r, req);
        expect(r.body.results ?? r.body.items).toEqual([]);
      }
    });

    it('search: q of exactly 2048 characters is accepted, on /search and on a group search', async () => {
      // Within the 512 characters the terms may have together: the rest is white space.
      const q = 'x'.repeat(500).padEnd(2048, ' ');
      for (const path of ['search', `content/groups/${fx.groupId}/search`]) {
        const r = await send(`${t.base}/${path}`, { params: { f: 'json', q, token: fx.owner.token } });
        expectOk(r, `POST ${path} q=<2048 chars>`);
      }
    });

    it('content/groups/:id/search: a q with unbalanced parentheses cannot escape the group', async () => {
      const outside = await addItem(t.base, fx.owner.username, fx.owner.token, { title: uniq('outside') });
      const q = `nomatch_zzz) OR (id: ${outside}`;
      const r = await send(`${t.base}/content/groups/${fx.groupId}/search`, { params: { f: 'json', q, token: fx.owner.token } });
      const req = `POST content/groups/${fx.groupId}/search q=${q}`;
      // The item is not in the group: the reply must be a 400 for the unbalanced q (or, at the very least, not list it).
      expect({ req, leaked: (r.body?.results ?? []).some((x: { id: string }) => x.id === outside) }).toEqual({ req, leaked: false });
      expectError(r, req, { code: 400, message: "Invalid value for parameter 'q'." });
    });

    it('search: deeply nested NOT and parentheses answer JSON, not a crash', async () => {
      for (const q of ['NOT '.repeat(500) + 'a', '('.repeat(1000) + 'a' + ')'.repeat(1000), '('.repeat(2000)]) {
        const r = await send(`${t.base}/search`, { params: { f: 'json', q, token: fx.owner.token } });
        expect({ q: short(q, 40), problem: hostileProblem(r) }).toEqual({ q: short(q, 40), problem: null });
      }
    });
  });

  // -------------------------------------------------------------------------------------------------------------
  describe('hostile strings into every string parameter', () => {
    const HOSTILE: [string, string][] = [
      ['empty', ''],
      ['single quote', "'"],
      ['double quote', '"'],
      ['backslash', '\\'],
      ['sql drop', "'; DROP TABLE items; --"],
      ['sql or', '" OR 1=1 --'],
      ['sql paren', "') OR ('1'='1"],
      ['literal %00', '%00'],
      ['NUL byte', '\u0000'],
      ['embedded NUL', 'abc\u0000def'],
      ['unicode', 'ünïcødé 漢字 🚀 \u202e\u200b'],
      ['lone surrogate', '\ud800'],
      ['10k chars', 'x'.repeat(10_000)],
      ['10k unicode', '漢'.repeat(10_000)],
      ['html', '<script>alert(1)</script>'],
      ['template', '${7*7}{{7*7}}'],
      ['json object', '{"$ne":null}'],
      ['json array', '[]'],
      ['like wildcards', '*%_'],
      ['whitespace', ' \t\r\n '],
      ['commas', ',,,'],
      ['path traversal', '../../etc/passwd'],
      ['null', 'null'],
      ['true', 'true'],
      ['negative', '-1'],
      ['float overflow', '1e309'],
      ['big integer', '99999999999999999999'],
      ['bad percent escape', '%E0%A4%A'],
      ['crlf', 'a\r\nSet-Cookie: x=1'],
    ];
    /** Values whose URL encoding would pass Node's 16 KB header limit stay out of URLs. */
    const wellFormed = (v: string) => v.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
    const fitsUrl = (v: string) => encodeURIComponent(wellFormed(v)).length < 12_000;
    const encPath = (v: string) => encodeURIComponent(wellFormed(v));

    const cases = ROUTES.flatMap((r) => [
      ...Object.keys(r.pathParams ?? {}).map((p) => [`${r.name} path :${p}`, r, p, true] as const),
      ...(r.fuzz ?? []).map((p) => [`${r.name} ${p}`, r, p, false] as const),
    ]);

    it.each(cases)(
      '%s',
      async (_n, r, param, inPath) => {
        const tasks = HOSTILE.flatMap(([label, value]) =>
          methodsOf(r)
            .filter((m) => (m === 'POST' && !inPath) || fitsUrl(value))
            .map((method) => async () => {
              const params: Params = { f: 'json', ...(r.params?.() ?? {}), token: tokenOf(r) };
              let url: string;
              if (inPath) url = urlOf(r, { [param]: encPath(value) });
              else {
                url = urlOf(r);
                params[param] = value;
              }
              const res = await send(url, { method, params });
              const problem = hostileProblem(res);
              return problem ? `${method} ${r.name} ${inPath ? ':' : ''}${param}=<${label}> → ${problem}` : null;
            }),
        );
        const problems = (await pool(tasks, 6)).filter((p): p is string => p !== null);
        expect(problems).toEqual([]);
      },
      180_000,
    );

    it('a hostile token is always 498, on every route', async () => {
      const tasks = ROUTES.flatMap((r) =>
        HOSTILE.filter(([, v]) => v.trim() !== '' && fitsUrl(v)).flatMap(([label, value]) =>
          methodsOf(r).map((method) => async () => {
            const params: Params = { f: 'json', ...(r.params?.() ?? {}), token: value };
            const res = await send(urlOf(r), { method, params });
            const code = (res.body as { error?: { code?: number } })?.error?.code;
            const problem = hostileProblem(res) ?? (code === 498 ? null : `expected 498, got ${short(res.text, 200)}`);
            return problem ? `${method} ${r.name} token=<${label}> → ${problem}` : null;
          }),
        ),
      );
      const problems = (await pool(tasks, 8)).filter((p): p is string => p !== null);
      expect(problems).toEqual([]);
    }, 180_000);

    it('hostile keys and duplicate keys answer JSON', async () => {
      const tasks = ROUTES.map((r) => async () => {
        const body = `f=json&token=${encodeURIComponent(tokenOf(r))}&__proto__=x&constructor=y&${encodeURIComponent("'; DROP TABLE items; --")}=1&%00=2&q=a&q=b&title=a&title=b`;
        const res = await send(urlOf(r), { body, contentType: 'application/x-www-form-urlencoded' });
        const problem = hostileProblem(res);
        return problem ? `POST ${r.name} hostile keys → ${problem}` : null;
      });
      const problems = (await pool(tasks, 6)).filter((p): p is string => p !== null);
      expect(problems).toEqual([]);
    });

    it('the items table (and the fixture item) still exist afterwards', async () => {
      const [{ reg }] = await t.db.query(`SELECT to_regclass('public.items')::text AS reg`);
      expect(reg).toBe('items');
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM items`);
      expect(n).toBeGreaterThan(0);
      const r = await get(t.base, `content/items/${fx.itemId}`, {}, fx.owner.token);
      expectOk(r, 'GET fixture item');
      expect(r.body.id).toBe(fx.itemId);
    });
  });
});
