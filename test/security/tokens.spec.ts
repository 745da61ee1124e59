/**
 * Tokens and sign-in under attack: over-long passwords, password guessing (per user and address, spraying,
 * botnets, floods, several API processes), tokens replayed from another referer or address, derived tokens that
 * outlive their parent, and expired tokens that pile up. Addresses are simulated with X-Forwarded-For, which the
 * API honours from loopback ('trust proxy' in bootstrap.ts), so each test signs in from addresses of its own.
 */
import { createHash, randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/core/config/env';
import { startApp, TestApp } from '../support/app';
import { adminToken, createUser, read, Reply, uniq } from '../support/client';

jest.setTimeout(120_000);

const DEFAULTS = loadConfig({}).signin;
const FREE = DEFAULTS.freeFailures;
/** The per-address and per-user limits are set low here only so those tests need 15 and 12 scrypts, not 50 and 200. */
const ADDRESS_FREE = 15;
const USER_FREE = 12;

let t: TestApp;
let admin: string;

interface From {
  ip?: string;
  referer?: string;
  token?: string;
  method?: 'GET' | 'POST';
}

async function call(base: string, path: string, params: Record<string, string | number> = {}, from: From = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (from.ip) headers['x-forwarded-for'] = from.ip;
  if (from.referer) headers.referer = from.referer;
  const all = new URLSearchParams({ f: 'json', ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) });
  if (from.token) all.set('token', from.token);
  const res =
    from.method === 'GET'
      ? await fetch(`${base}/${path}?${all}`, { headers })
      : await fetch(`${base}/${path}`, { method: 'POST', body: all, headers });
  return read(res);
}

/** A fresh address per call, in 10.0.0.0/8. */
const addr = () => `10.${randomBytes(3).join('.')}`;

const signIn = (user: { username: string; password: string }, ip: string, extra: Record<string, string | number> = {}) =>
  call(t.base, 'generateToken', { username: user.username, password: user.password, client: 'requestip', ...extra }, { ip });

const detail = (r: Reply) => String((r.body as { error?: { details?: string[] } })?.error?.details?.[0] ?? '');
const THROTTLED = /Too many failed sign-in attempts\. Try again in (\d+) seconds\./;
const INVALID = 'Invalid username or password.';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  t = await startApp({
    SIGNIN_ADDRESS_FREE_FAILURES: String(ADDRESS_FREE),
    SIGNIN_USER_FREE_FAILURES: String(USER_FREE),
    TOKEN_PURGE_INTERVAL_S: '1',
  });
  admin = await adminToken(t.base);
});
afterAll(() => t?.close());

describe('password length', () => {
  it('refuses an over-long password at sign-in with a 400 before hashing it', async () => {
    const user = await createUser(t.base, admin);
    const ip = addr();
    for (const password of ['x'.repeat(257), 'x'.repeat(4 * 1024 * 1024)]) {
      const started = Date.now();
      const r = await signIn({ username: user.username, password }, ip);
      expect({ http: r.status, code: r.body?.error?.code, detail: detail(r) }).toEqual({
        http: 200,
        code: 400,
        detail: "'password' must be at most 256 characters.",
      });
      expect(Date.now() - started).toBeLessThan(5000);
    }
    // Refused before the password check: no failure was counted, so the user's next sign-in from there is not slowed.
    for (let i = 0; i < FREE + 2; i++) await signIn({ username: user.username, password: 'x'.repeat(300) }, ip);
    expect((await signIn(user, ip)).body).toHaveProperty('token');
  });

  it('refuses an over-long password at user creation, and accepts one at the limit', async () => {
    const root = t.base.replace(/\/sharing\/rest$/, '');
    const long = await call(
      root,
      'portaladmin/security/users/createUser',
      { username: uniq('long'), password: 'p'.repeat(257) },
      { token: admin },
    );
    expect(detail(long)).toBe("'password' must be at most 256 characters.");
    const username = uniq('edge');
    const ok = await call(root, 'portaladmin/security/users/createUser', { username, password: 'p'.repeat(256) }, { token: admin });
    expect(ok.body?.status).toBe('success');
    expect((await signIn({ username, password: 'p'.repeat(256) }, addr())).body).toHaveProperty('token');
  });
});

describe('sign-in throttling', () => {
  it('after the free failures of a (user, address) pair each attempt waits 2^k s, the right password included, and success resets', async () => {
    const user = await createUser(t.base, admin);
    const ip = addr();
    const wrong = { ...user, password: 'wrong-password' };
    for (let i = 0; i < FREE; i++) expect(detail(await signIn(wrong, ip))).toBe(INVALID);

    const started = Date.now();
    const locked = await signIn(user, ip);
    expect(Date.now() - started).toBeLessThan(1000);
    expect({ http: locked.status, code: locked.body?.error?.code, message: locked.body?.error?.message }).toEqual({
      http: 200,
      code: 400,
      message: 'Unable to generate token.',
    });
    expect(detail(locked)).toMatch(THROTTLED);
    expect(Number(locked.headers.get('retry-after'))).toBe(2);

    await sleep(2100);
    expect(detail(await signIn(wrong, ip))).toBe(INVALID);
    const longer = await signIn(user, ip);
    expect(detail(longer)).toMatch(THROTTLED);
    expect(Number(longer.headers.get('retry-after'))).toBe(4);

    await sleep(4100);
    expect((await signIn(user, ip)).body).toHaveProperty('token');
    // The pair starts over: a mistake is an ordinary failure again.
    expect(detail(await signIn(wrong, ip))).toBe(INVALID);
    expect((await signIn(user, ip)).body).toHaveProperty('token');
  });

  it('an attacker elsewhere failing against a name does not lock out its owner at their own address', async () => {
    const victim = await createUser(t.base, admin);
    const home = addr();
    const attacker = addr();
    for (let i = 0; i < FREE + 1; i++) await signIn({ ...victim, password: 'guess-' + i }, attacker);
    expect(detail(await signIn(victim, attacker))).toMatch(THROTTLED);
    expect((await signIn(victim, home)).body).toHaveProperty('token');
  });

  it('counts an IPv6 client by its /64, so fresh addresses from one subnet do not reset the count', async () => {
    const victim = await createUser(t.base, admin);
    const net = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
    const host = () => `${net}:${randomBytes(2).toString('hex')}:1:2:${randomBytes(2).toString('hex')}`;
    for (let i = 0; i < FREE; i++) expect(detail(await signIn({ ...victim, password: 'guess-' + i }, host()))).toBe(INVALID);
    expect(detail(await signIn(victim, host()))).toMatch(THROTTLED);
  });

  it('spraying many names from one address closes that address, except to pairs that signed in there before', async () => {
    const regular = await createUser(t.base, admin);
    // Made before the spray: the address's first lock is short, and creating a user (a password hash) on a busy
    // machine can outlast it.
    const newcomer = await createUser(t.base, admin);
    const office = addr();
    expect((await signIn(regular, office)).body).toHaveProperty('token');
    const names = Array.from({ length: ADDRESS_FREE }, () => uniq('nobody'));
    const sprayed = await Promise.all(names.map((username) => signIn({ username, password: 'Summer2024!' }, office)));
    expect(sprayed.map(detail)).toEqual(names.map(() => INVALID));

    expect(detail(await signIn(newcomer, office))).toMatch(THROTTLED);
    expect((await signIn(regular, office)).body).toHaveProperty('token');
    expect((await signIn(newcomer, addr())).body).toHaveProperty('token');
  });

  it('failures from many addresses against one user close it briefly everywhere but at addresses it signed in from', async () => {
    const victim = await createUser(t.base, admin);
    const home = addr();
    expect((await signIn(victim, home)).body).toHaveProperty('token');
    for (let i = 0; i < USER_FREE; i++) expect(detail(await signIn({ ...victim, password: 'bot-' + i }, addr()))).toBe(INVALID);

    const fromBot = await signIn(victim, addr());
    expect(detail(fromBot)).toMatch(THROTTLED);
    expect(Number(fromBot.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await signIn(victim, home)).body).toHaveProperty('token');
  });

  it('a concurrent burst of guesses gets at most the free failures plus one per hash slot checked', async () => {
    const user = await createUser(t.base, admin);
    const ip = addr();
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn({ ...user, password: 'burst-' + i }, ip)));
    const checked = replies.filter((r) => detail(r) === INVALID).length;
    const throttled = replies.filter((r) => THROTTLED.test(detail(r))).length;
    expect(checked + throttled).toBe(30);
    expect(checked).toBeGreaterThanOrEqual(FREE);
    expect(checked).toBeLessThanOrEqual(FREE + DEFAULTS.hashConcurrency - 1);
  });

  it('a flood from many addresses is refused at once beyond the hash queue instead of piling up', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, () => signIn({ username: uniq('flood'), password: 'x-password' }, addr())),
    );
    const busy = replies.filter((r) => /Too many password checks are in progress/.test(detail(r))).length;
    const checked = replies.filter((r) => detail(r) === INVALID).length;
    expect(busy + checked).toBe(100);
    expect(busy).toBeGreaterThan(0);
    expect(replies.every((r) => r.status === 200 && r.body?.error?.code === 400)).toBe(true);
  });

  it('the throttle holds across API processes (state in Redis)', async () => {
    const other = await startApp({ SIGNIN_ADDRESS_FREE_FAILURES: String(ADDRESS_FREE), SIGNIN_USER_FREE_FAILURES: String(USER_FREE) });
    try {
      const user = await createUser(t.base, admin);
      const ip = addr();
      for (let i = 0; i < FREE; i++) expect(detail(await signIn({ ...user, password: 'nope' }, ip))).toBe(INVALID);
      const r = await call(other.base, 'generateToken', { username: user.username, password: user.password, client: 'requestip' }, { ip });
      expect(detail(r)).toMatch(THROTTLED);
    } finally {
      await other.close();
    }
  });
});

describe('token binding', () => {
  const self = (token: string, from: From) => call(t.base, 'community/self', {}, { ...from, token, method: 'GET' });
  const code = (r: Reply) => r.body?.error?.code ?? 'ok';

  it('a referer-bound token works only with a matching Referer (same origin for URLs, exact otherwise)', async () => {
    const user = await createUser(t.base, admin);
    const ip = addr();
    const web = (await signIn(user, ip, { client: 'referer', referer: 'https://app.example.org' })).body;
    expect(code(await self(web.token, { referer: 'https://app.example.org/maps/index.html?x=1' }))).toBe('ok');
    expect(code(await self(web.token, { referer: 'https://app.example.org/' }))).toBe('ok');
    for (const referer of [
      undefined,
      'https://evil.example/',
      'https://app.example.org.evil.example/',
      'http://app.example.org/',
      'https://app.example.org:8443/',
    ]) {
      expect([referer, code(await self(web.token, { referer }))]).toEqual([referer, 498]);
    }
    const rest = (await signIn(user, ip, { client: 'referer', referer: '@esri/arcgis-rest-js' })).body;
    expect(code(await self(rest.token, { referer: '@esri/arcgis-rest-js' }))).toBe('ok');
    expect(code(await self(rest.token, { referer: '@esri/arcgis-rest-js-evil' }))).toBe(498);
    expect(code(await self(rest.token, {}))).toBe(498);
  });

  it('an address-bound token (requestip, ip) works only from that address', async () => {
    const user = await createUser(t.base, admin);
    const home = addr();
    const req = (await signIn(user, home)).body;
    expect(code(await self(req.token, { ip: home }))).toBe('ok');
    expect(code(await self(req.token, { ip: addr() }))).toBe(498);
    const byDefault = (await call(t.base, 'generateToken', { username: user.username, password: user.password }, { ip: home })).body;
    expect(code(await self(byDefault.token, { ip: addr() }))).toBe(498);

    const named = (await signIn(user, home, { client: 'ip', ip: '::ffff:10.9.8.7' })).body;
    expect(code(await self(named.token, { ip: '10.9.8.7' }))).toBe('ok');
    expect(code(await self(named.token, { ip: home }))).toBe(498);
    expect(detail(await signIn(user, home, { client: 'ip' }))).toBe("'ip' must be an IPv4 or IPv6 address when client is 'ip'.");
  });

  it('believes X-Forwarded-For only from the proxies TRUST_PROXY names', async () => {
    const direct = await startApp({ TRUST_PROXY: 'false' });
    try {
      const user = await createUser(direct.base, await adminToken(direct.base));
      // Without a trusted proxy the header is the client's own claim: the token binds to the socket's address.
      const token = (
        await call(direct.base, 'generateToken', { username: user.username, password: user.password, client: 'requestip' }, { ip: addr() })
      ).body.token;
      const from = (ip?: string) => call(direct.base, 'community/self', {}, { token, ip, method: 'GET' });
      expect(code(await from())).toBe('ok');
      expect(code(await from(addr()))).toBe('ok');
    } finally {
      await direct.close();
    }
  });

  it('downloads with ?token= and the Bull Board cookie follow the same binding', async () => {
    const home = addr();
    const token = (
      await call(t.base, 'generateToken', { username: 'admin', password: 'admin-password-1', client: 'requestip' }, { ip: home })
    ).body.token;
    const added = await call(
      t.base,
      'content/users/admin/addItem',
      { title: uniq('map'), type: 'Web Map', text: '{"operationalLayers":[]}' },
      { token, ip: home },
    );
    const id = added.body.id;
    expect(code(await call(t.base, `content/items/${id}/data`, {}, { token, ip: home, method: 'GET' }))).toBe('ok');
    expect(code(await call(t.base, `content/items/${id}/data`, {}, { token, ip: addr(), method: 'GET' }))).toBe(498);

    const board = `${t.root}/admin/queues`;
    const opened = await fetch(`${board}?token=${token}`, { headers: { 'x-forwarded-for': home }, redirect: 'manual' });
    expect(opened.status).toBeLessThan(400);
    const cookie = opened.headers.get('set-cookie')!.split(';')[0];
    expect((await fetch(board, { headers: { cookie, 'x-forwarded-for': home }, redirect: 'manual' })).status).toBeLessThan(400);
    expect((await fetch(board, { headers: { cookie, 'x-forwarded-for': addr() }, redirect: 'manual' })).status).toBe(401);
    expect((await fetch(board, { headers: { cookie: 'board_token=%E0', 'x-forwarded-for': home }, redirect: 'manual' })).status).toBe(401);
    expect((await fetch(`${board}?token=${token}`, { headers: { 'x-forwarded-for': addr() }, redirect: 'manual' })).status).toBe(401);
  });
});

describe('derived tokens (generateToken with token and serverUrl)', () => {
  const derive = (parent: string, ip: string, expiration = 20160) =>
    call(t.base, 'generateToken', { serverUrl: `${t.root}/arcgis`, expiration }, { token: parent, ip });
  const works = async (token: string, ip: string) =>
    !Object.hasOwn((await call(t.base, 'community/self', {}, { token, ip, method: 'GET' })).body ?? {}, 'error');

  it('never outlive their parent and die with it, down the chain', async () => {
    const user = await createUser(t.base, admin);
    const ip = addr();
    const parent = (await signIn(user, ip, { expiration: 1 })).body;
    const child = (await derive(parent.token, ip)).body;
    expect(child.expires).toBeLessThanOrEqual(parent.expires);
    const grandchild = (await derive(child.token, ip)).body;
    expect(grandchild.expires).toBeLessThanOrEqual(parent.expires);
    expect(await works(child.token, ip)).toBe(true);
    expect(await works(grandchild.token, ip)).toBe(true);
    // The child keeps its parent's binding when it asks for none, and when it asks for another.
    expect(await works(child.token, addr())).toBe(false);
    const elsewhere = addr();
    const rebinds: Record<string, string>[] = [
      { client: 'ip', ip: elsewhere },
      { client: 'referer', referer: 'https://evil.example' },
    ];
    for (const rebind of rebinds) {
      const moved = (await call(t.base, 'generateToken', { serverUrl: `${t.root}/arcgis`, ...rebind }, { token: parent.token, ip })).body;
      expect(await works(moved.token, ip)).toBe(true);
      expect(await works(moved.token, elsewhere)).toBe(false);
    }

    const other = (await signIn(user, ip)).body;
    const revoked = await call(t.base, 'oauth2/revokeToken', { auth_token: parent.token }, { token: other.token, ip });
    expect(revoked.body).toEqual({ success: true });
    expect(await works(parent.token, ip)).toBe(false);
    expect(await works(child.token, ip)).toBe(false);
    expect(await works(grandchild.token, ip)).toBe(false);
    expect(await works(other.token, ip)).toBe(true);
  });

  it('revoking a child leaves its parent alone; the chain has a bounded depth', async () => {
    const user = await createUser(t.base, admin);
    const ip = addr();
    let token = (await signIn(user, ip)).body.token;
    const root = token;
    const chain: string[] = [];
    for (let i = 0; i < 4; i++) {
      token = (await derive(token, ip)).body.token;
      chain.push(token);
    }
    expect(detail(await derive(token, ip))).toBe('This token was itself derived too many times; sign in again.');
    await call(t.base, 'oauth2/revokeToken', { auth_token: chain[1] }, { token: root, ip });
    expect(await Promise.all([root, ...chain].map((x) => works(x, ip)))).toEqual([true, true, false, false, false]);
  });
});

describe('expired tokens', () => {
  it('are purged periodically, with the tokens derived from them; live ones stay', async () => {
    const user = await createUser(t.base, admin);
    const ip = addr();
    const expired = (await signIn(user, ip)).body.token;
    const child = (await call(t.base, 'generateToken', { serverUrl: `${t.root}/arcgis` }, { token: expired, ip })).body.token;
    const live = (await signIn(user, ip)).body.token;
    const hash = (x: string) => createHash('sha256').update(x).digest();
    const present = async () => {
      const rows = await t.db.query(`SELECT token_hash FROM tokens WHERE token_hash = ANY($1)`, [[expired, child, live].map(hash)]);
      return [expired, child, live].filter((x) => rows.some((r: { token_hash: Buffer }) => r.token_hash.equals(hash(x))));
    };
    expect(await present()).toEqual([expired, child, live]);
    await t.db.query(`UPDATE tokens SET expires_at = now() - interval '1 minute' WHERE token_hash = $1`, [hash(expired)]);
    const until = Date.now() + 10_000;
    while ((await present()).length > 1 && Date.now() < until) await sleep(200);
    expect(await present()).toEqual([live]);
    expect((await call(t.base, 'community/self', {}, { token: live, ip, method: 'GET' })).body).toMatchObject({ username: user.username });
  });
});
