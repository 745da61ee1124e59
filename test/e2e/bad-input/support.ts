/**
 * The table-driven machinery of the bad-input specs (one per module): the shared fixture, a raw `send`, the
 * envelope assertions and the per-route tables every module runs on its own routes.
 *
 * 499 (GWM_0003) token missing, 498 invalid token, 403 forbidden, 400 bad input, 400 CONT_0001 missing item,
 * 400 COM_0019 unknown user, 400 COM_0003 missing group, 400 GWM_0002 unknown URL. `f` is json or pjson.
 */
import { randomBytes } from 'node:crypto';
import { startApp, TestApp } from '../../support/app';
import { addItem, addUsers, adminToken, createGroup, createUser, post, Reply, uniq } from '../../support/client';

jest.setTimeout(60_000);

// ---------------------------------------------------------------------------------------------------------------
// Fixture and helpers
// ---------------------------------------------------------------------------------------------------------------

export let t: TestApp;
export const fx = {
  admin: '',
  owner: { username: '', password: '', token: '' },
  member: { username: '', password: '', token: '' },
  other: { username: '', password: '', token: '' },
  itemId: '',
  /** An item of the owner that routes changing an item (update, resources, protect) may change. */
  editItemId: '',
  groupId: '',
  roleId: '',
  roleName: '',
  /** 32 hex characters that are no item, group or role. */
  missingId: randomBytes(16).toString('hex'),
  /** A folder of the owner's, and an item of theirs whose multipart upload takes parts (no part yet). */
  folderId: '',
  folderTitle: '',
  uploadId: '',
};

export const GARBAGE_TOKEN = 'garbage-token-zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz';
/** A stack frame, a driver error class, a module path or an HTML page: none may ever reach a client. */
export const LEAK = /\n\s+at \S.*:\d+:\d+|QueryFailedError|node_modules|<!DOCTYPE|<html|<body/i;

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
export type Params = Record<string, string>;

export interface SendOptions {
  method?: Method;
  params?: Params;
  headers?: Record<string, string>;
  /** Raw body; `params` then go to the query string. */
  body?: string | Buffer;
  contentType?: string;
}

/** Like client.ts post/get, but with any method, headers and raw bodies, and no `f` added unless given. */
export async function send(url: string, o: SendOptions = {}): Promise<Reply> {
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

export interface Want {
  code: number;
  messageCode?: string;
  /** Substring of error.message. */
  message?: string;
  /** Substring of one of error.details. */
  detail?: string;
  /** Matched against message + details joined, when the exact wording is not fixed. */
  text?: RegExp;
}

export const short = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
export const describeReq = (method: string, url: string, params?: Params) =>
  `${method} ${short(url.replace(t.root, ''), 200)}${params ? ' ' + short(JSON.stringify(params), 200) : ''}`;

/** Asserts the ArcGIS error envelope; the request is part of the compared object so a failure names it. */
export function expectError(r: Reply, req: string, want: Want) {
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

export function expectOk(r: Reply, req: string) {
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
export function hostileProblem(r: Reply, allowed: number[] = [400, 403, 498, 499]): string | null {
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

export async function pool<T>(tasks: (() => Promise<T>)[], size = 8): Promise<T[]> {
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

export const ids = (n: number, prefix = '') => Array.from({ length: n }, (_, i) => (prefix + i.toString(16)).padStart(32, '0')).join(',');

export interface Route {
  name: string;
  /** POST: @Post only. ANY: @Operation (GET and POST). */
  kind: 'POST' | 'ANY';
  /** An ANY route served on GET and POST only (@Get and @Post): other methods are unknown URLs there. */
  getPostOnly?: boolean;
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

/** The route's URL; `encoded` replaces path parameters with already-encoded text. */
export function urlOf(r: Route, encoded: Record<string, string> = {}): string {
  const path = r.path.replace(/:([A-Za-z]+)/g, (_, k: string) => (k in encoded ? encoded[k] : encodeURIComponent(r.pathParams![k]())));
  return `${r.root ? t.root : t.base}/${path}`;
}
export const tokenOf = (r: Route) => (r.token ?? (() => fx.owner.token))();
export const methodsOf = (r: Route): Method[] => (r.kind === 'ANY' ? ['POST', 'GET'] : ['POST']);

/** The app and the fixture every bad-input spec starts from: an owner with an item, a group with a member, a role. */
export function useFixture(): void {
  beforeAll(async () => {
    t = await startApp();
    fx.admin = await adminToken(t.base);
    fx.owner = await createUser(t.base, fx.admin, 'org_publisher');
    fx.member = await createUser(t.base, fx.admin, 'org_user');
    fx.other = await createUser(t.base, fx.admin, 'org_user');
    fx.itemId = await addItem(t.base, fx.owner.username, fx.owner.token, { title: uniq('item') });
    fx.editItemId = await addItem(t.base, fx.owner.username, fx.owner.token, { title: uniq('edited') });
    fx.groupId = await createGroup(t.base, fx.owner.token);
    await addUsers(t.base, fx.owner.token, fx.groupId, [fx.member.username]);
    fx.roleName = uniq('role');
    const role = await post(t.base, 'portals/self/createRole', { name: fx.roleName }, fx.admin);
    if (!role.body?.id) throw new Error(`createRole failed: ${role.text}`);
    fx.roleId = role.body.id;
    fx.folderTitle = uniq('folder');
    const folder = await post(t.base, `content/users/${fx.owner.username}/createFolder`, { title: fx.folderTitle }, fx.owner.token);
    if (!folder.body?.folder?.id) throw new Error(`createFolder failed: ${folder.text}`);
    fx.folderId = folder.body.folder.id;
    const upload = await post(
      t.base,
      `content/users/${fx.owner.username}/addItem`,
      { title: uniq('upload'), type: 'CSV', multipart: 'true', filename: 'parts.csv' },
      fx.owner.token,
    );
    if (!upload.body?.id) throw new Error(`multipart addItem failed: ${upload.text}`);
    fx.uploadId = upload.body.id;
  });
  afterAll(() => t.close());
}

export const HOSTILE: [string, string][] = [
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
export const wellFormed = (v: string) => v.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
export const fitsUrl = (v: string) => encodeURIComponent(wellFormed(v)).length < 12_000;
export const encPath = (v: string) => encodeURIComponent(wellFormed(v));

/** Every table that runs once per route: a valid baseline, no token, a garbage token, bad f, other methods, hostile strings. */
export function routeTables(routes: Route[]): void {
  describe('baseline: every route answers its valid request', () => {
    it.each(routes.map((r) => [r.name, r] as const))('%s', async (_n, r) => {
      for (const method of methodsOf(r)) {
        const params = { f: 'json', ...(r.params?.() ?? {}), token: tokenOf(r) };
        const res = await send(urlOf(r), { method, params });
        const req = describeReq(method, urlOf(r), params);
        if (r.ok === false) expectError(res, req, { code: 400 });
        else expectOk(res, req);
      }
    });
  });

  describe('token missing → 499 GWM_0003', () => {
    const required = routes.filter((r) => r.auth === 'required');
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
  });

  describe('garbage token → 498 (token param, Authorization: Bearer, X-Esri-Authorization: Bearer)', () => {
    const ways: [string, (r: Route, p: Params) => SendOptions][] = [
      ['token parameter', (_r, p) => ({ params: { ...p, token: GARBAGE_TOKEN } })],
      ['Authorization: Bearer', (_r, p) => ({ params: p, headers: { Authorization: `Bearer ${GARBAGE_TOKEN}` } })],
      ['X-Esri-Authorization: Bearer', (_r, p) => ({ params: p, headers: { 'X-Esri-Authorization': `Bearer ${GARBAGE_TOKEN}` } })],
    ];
    const cases = routes.flatMap((r) => ways.map(([how, build]) => [`${r.name} via ${how}`, r, build] as const));
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
  });

  describe('f must be json or pjson → 400 naming the allowed values', () => {
    // These answer f=html with a directory page (test/e2e/directory.spec.ts), as ArcGIS's do.
    const hasPage = new Set(['generateToken', 'content/users/:owner', 'content/items/:id', 'community/groups/:id']);
    const cases = routes.flatMap((r) =>
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
  });

  describe('unsupported methods → 400 envelope, never an HTML page', () => {
    const cases = routes.flatMap((r) => (['PUT', 'DELETE', 'PATCH'] as Method[]).map((m) => [`${m} ${r.name}`, r, m] as const));
    it.each(cases)('%s', async (_n, r, method) => {
      const params = { f: 'json', ...(r.params?.() ?? {}), token: tokenOf(r) };
      const res = await send(urlOf(r), { method, params });
      const req = describeReq(method, urlOf(r), params);
      // @Operation routes know the path and name the method; @Post routes have no handler for it (unknown URL).
      if (r.kind === 'ANY' && !r.getPostOnly)
        expectError(res, req, { code: 400, message: `Method ${method} is not supported.`, detail: 'Use GET or POST.' });
      else expectError(res, req, { code: 400, messageCode: 'GWM_0002', message: 'Invalid URL', detail: 'No operation at' });
    });
  });

  describe('hostile strings into every string parameter', () => {
    const cases = routes.flatMap((r) => [
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
  });
}

export interface Case {
  path: () => string;
  method?: Method;
  params?: () => Params;
  /** Defaults to the owner's token; null sends none. */
  token?: () => string | null;
  root?: boolean;
  want: () => Want;
}
export const INVALID = 'Invalid or missing input parameters.';
export const o = () => fx.owner.username;
export const ghost = 'ghost_user_' + randomBytes(3).toString('hex');
export const admin = () => fx.admin;
export const other = () => fx.other.token;
export const noToken = () => null;
export const notHex = 'z'.repeat(32);
export const long = (n: number) => 'a'.repeat(n);

/** Each named case answers the error it wants. */
export function caseTable(CASES: Record<string, Case>): void {
  it.each(Object.keys(CASES))('%s', async (name) => {
    const c = CASES[name];
    const method = c.method ?? 'POST';
    const token = (c.token ?? (() => fx.owner.token))();
    const params: Params = { f: 'json', ...(c.params?.() ?? {}), ...(token ? { token } : {}) };
    const url = `${c.root ? t.root : t.base}/${c.path()}`;
    const r = await send(url, { method, params });
    expectError(r, describeReq(method, url, params), c.want());
  });
}

/** One module's bad-input spec: the per-route tables on its routes, then its named cases and any `more` tests. */
export function moduleSuite(name: string, routes: Route[], cases: Record<string, Case>, more?: () => void): void {
  describe(`bad input: ${name}`, () => {
    useFixture();
    routeTables(routes);
    describe('missing and malformed parameters', () => {
      caseTable(cases);
      more?.();
    });
  });
}
