/* eslint-disable @typescript-eslint/no-explicit-any -- page.evaluate callbacks run in the browser */
import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { seriousViolations } from '../support/axe';
import { launchChromium, watchRequests } from '../support/browser';
import { addItem, adminToken, createGroup, createUser, get, post, uniq } from '../support/client';

/**
 * The landing page, My content and its Share / Unshare dialog, and the item page's sharing panel, driven in Chromium as
 * a person does (sign-in form, check boxes, the dialog), each change confirmed through REST. Screenshots go to
 * docs/images only when UPDATE_SCREENSHOTS=1.
 */
const shots = process.env.UPDATE_SCREENSHOTS === '1' ? path.resolve(__dirname, '../../docs/images') : undefined;

describe('sharing pages in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let ctx: BrowserContext;
  let owner: { username: string; password: string; token: string };
  let other: { username: string; password: string; token: string };
  const groups: { id: string; title: string }[] = [];
  const items: { id: string; title: string }[] = [];
  let othersItem: string;
  const prefix = uniq('Alpha');

  beforeAll(async () => {
    t = await startApp();
    const admin = await adminToken(t.base);
    owner = await createUser(t.base, admin);
    other = await createUser(t.base, admin);
    for (let i = 1; i <= 3; i++) {
      const title = `${prefix} group ${i}`;
      groups.push({ id: await createGroup(t.base, owner.token, { title }), title });
    }
    for (let i = 1; i <= 6; i++) {
      const title = `${prefix} map ${i}`;
      items.push({ id: await addItem(t.base, owner.username, owner.token, { title }), title });
    }
    othersItem = await addItem(t.base, other.username, other.token, { title: `${prefix} not mine` });
    const shared = await post(
      t.base,
      `content/users/${owner.username}/shareItems`,
      { items: items.map((i) => i.id).join(','), groups: `${groups[0].id},${groups[1].id}` },
      owner.token,
    );
    expect(shared.body.results.every((r: { success: boolean }) => r.success)).toBe(true);
    browser = await launchChromium();
    ctx = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function newPage(): Promise<Page> {
    const page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  const itemGroups = async (id: string) => {
    const r = await get(t.base, `content/items/${id}/groups`, {}, owner.token);
    return [...r.body.admin, ...r.body.member, ...r.body.other].map((g: { id: string }) => g.id).sort();
  };
  const access = async (id: string) => (await get(t.base, `content/items/${id}`, {}, owner.token)).body.access;
  const contentUrl = (q: string) => `${t.root}/home/content.html?q=${encodeURIComponent(q)}`;

  async function expectAccessible(page: Page) {
    const found = await seriousViolations(page);
    expect(found).toEqual([]);
  }

  it('a browser gets the landing page at /, the context path and sharing/rest; API clients do not', async () => {
    const page = await newPage();
    const seen = await watchRequests(page);
    for (const url of [`${t.root}/`, t.base, `${t.base}/`]) {
      await page.goto(url);
      expect(await page.locator('h1').textContent()).toBe('ArcGIS Sharing');
      await expect(page.locator('#landing-sign-in').count()).resolves.toBe(1);
    }
    expect(seen.cspViolations).toEqual([]);
    await expectAccessible(page);
    // Without Accept: text/html, or with an explicit f, today's JSON answers.
    const plain = await fetch(t.base);
    expect(((await plain.json()) as any).error.message).toBe('Invalid URL');
    expect(plain.headers.get('vary')).toMatch(/Accept/);
    const withF = await fetch(`${t.base}?f=json`, { headers: { Accept: 'text/html' } });
    expect(((await withF.json()) as any).error.message).toBe('Invalid URL');
    const catalogJson = await fetch(`${t.root}/arcgis/rest/services`);
    expect(((await catalogJson.json()) as any).currentVersion).toBeDefined();
    // The catalog without f in a browser is the services directory, as ArcGIS's.
    await page.goto(`${t.root}/arcgis/rest/services`);
    expect(await page.locator('h1').textContent()).toBe('Folder: /');
    await page.close();
  });

  it('signs in from the landing page and comes back to it, with the sections', async () => {
    const page = await newPage();
    await page.goto(`${t.root}/`);
    await Promise.all([page.waitForURL(/generateToken/), page.click('#landing-sign-in')]);
    await page.fill('#username', owner.username);
    await page.fill('#password', owner.password);
    await Promise.all([
      page.waitForURL((u) => !u.pathname.endsWith('generateToken')),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    expect(await page.locator('p.lead').textContent()).toContain(owner.username);
    const nav = await page.locator('nav.site a').allTextContents();
    expect(nav).toEqual(['Home', 'My content', 'Groups', 'Services directory', 'Exports']);
    expect(await page.locator('ul.groups li').count()).toBe(3);
    expect(page.url()).not.toContain('token=');
    await expectAccessible(page);
    if (shots) await page.screenshot({ path: path.join(shots, 'pages-landing.png') });
    await Promise.all([
      page.waitForURL(/groups\.html/),
      page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Groups' }).click(),
    ]);
    expect(await page.locator('ul.groups a').allTextContents()).toEqual(groups.map((g) => g.title));
    expect(await page.locator('ul.groups a').first().getAttribute('href')).toBe(`/home/group.html?id=${groups[0].id}`);
    await expectAccessible(page);
    await page.close();
  });

  it('selects 3 items on My content and unshares them from 2 groups, item by item', async () => {
    const page = await newPage();
    await page.goto(contentUrl(prefix));
    expect(await page.locator('tr[data-id]').count()).toBe(6);
    for (const i of items.slice(0, 3)) await page.getByRole('checkbox', { name: `Select ${i.title}`, exact: true }).check();
    expect(await page.locator('#selection-count').textContent()).toBe('3 items selected.');
    await page.getByRole('button', { name: 'Unshare…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Unshare 3 items' });
    await dialog.getByRole('checkbox', { name: groups[0].title }).check();
    await dialog.getByRole('checkbox', { name: groups[1].title }).check();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Unshare' }).click();
    await page.waitForSelector('#results:not([hidden])');
    const rows = await page
      .locator('#results-rows tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (c: any) => c.textContent)));
    expect(rows).toEqual(items.slice(0, 3).map((i) => [i.title, 'Done', '']));
    expect(await page.locator('#selection-count').textContent()).toBe('No items selected.');
    for (const i of items.slice(0, 3)) expect(await itemGroups(i.id)).toEqual([]);
    // The list is drawn again under the results, with the new sharing levels.
    await page.waitForSelector('#content-app[data-rows-reloaded="1"]');
    for (const i of items.slice(0, 3)) expect(await page.locator(`tr[data-id="${i.id}"] td`).nth(3).textContent()).toBe('private');
    expect(await page.locator(`tr[data-id="${items[3].id}"] td`).nth(3).textContent()).toBe('shared');
    expect(await itemGroups(items[3].id)).toEqual([groups[0].id, groups[1].id].sort());
    await expectAccessible(page);
    if (shots) await page.screenshot({ path: path.join(shots, 'pages-content-results.png'), fullPage: true });
    await page.close();
  });

  it("shows a batch's failed item, another user's, and keeps it selected", async () => {
    const page = await newPage();
    await page.goto(contentUrl(prefix));
    await page.evaluate(([key, sel]) => (globalThis as any).sessionStorage.setItem(key, JSON.stringify(sel)), [
      `arcgis-selection:${owner.username}`,
      { [items[0].id]: items[0].title, [othersItem]: 'not mine' },
    ] as const);
    await page.reload();
    expect(await page.locator('#selection-count').textContent()).toBe('2 items selected.');
    await page.getByRole('button', { name: 'Share…', exact: true }).click();
    await page.getByRole('dialog').getByRole('checkbox', { name: groups[2].title }).check();
    await page.getByRole('dialog').getByRole('button', { name: 'Share', exact: true }).click();
    await page.waitForSelector('#results:not([hidden])');
    expect(await page.locator(`#results-rows tr[data-item-id="${othersItem}"]`).textContent()).toContain(
      'Item does not exist or is inaccessible.',
    );
    expect(await page.locator(`#results-rows tr[data-item-id="${othersItem}"] td.error`).textContent()).toBe('Failed');
    expect(await page.locator('#results-summary').textContent()).toContain('1 failed');
    expect(await page.locator('#selection-count').textContent()).toBe('1 item selected.');
    const kept = await page.evaluate(
      (key) => Object.keys(JSON.parse((globalThis as any).sessionStorage.getItem(key) ?? '{}')),
      `arcgis-selection:${owner.username}`,
    );
    expect(kept).toEqual([othersItem]);
    expect(await itemGroups(items[0].id)).toEqual([groups[2].id]);
    expect(await itemGroups(othersItem).catch(() => [])).toEqual([]);
    await page.click('#clear-selection');
    await page.close();
  });

  it('shares an item with the organization', async () => {
    const page = await newPage();
    await page.goto(contentUrl(items[3].title));
    await page.getByRole('checkbox', { name: `Select ${items[3].title}` }).check();
    await page.getByRole('button', { name: 'Share…', exact: true }).click();
    await page.getByRole('dialog').getByRole('radio', { name: 'Organization' }).check();
    await page.getByRole('dialog').getByRole('button', { name: 'Share', exact: true }).click();
    await page.waitForSelector('#results:not([hidden])');
    expect(await page.locator('#results-rows td').nth(1).textContent()).toBe('Done');
    expect(await access(items[3].id)).toBe('org');
    await page.close();
  });

  /** Presses Tab until `selector` has the focus: the element is reachable by keyboard alone. */
  async function tabTo(page: Page, selector: string) {
    for (let i = 0; i < 80; i++) {
      if (await page.evaluate((s) => (globalThis as any).document.activeElement?.matches(s) ?? false, selector)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${selector}`);
  }

  it('unshares one item with the keyboard alone', async () => {
    const page = await newPage();
    const item = items[4];
    await page.goto(contentUrl(item.title));
    await tabTo(page, `input.pick[value="${item.id}"]`);
    await page.keyboard.press('Space');
    await tabTo(page, '#unshare-button');
    await page.keyboard.press('Enter');
    // The modal dialog keeps the focus: Tab cycles through its controls (and the browser's own UI) only.
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      const where = await page.evaluate(() => {
        const el = (globalThis as any).document.activeElement;
        return el === (globalThis as any).document.body ? 'body' : el.closest('#share-dialog') ? 'dialog' : el.id || el.tagName;
      });
      expect(['dialog', 'body']).toContain(where);
    }
    await tabTo(page, `#share-dialog input[value="${groups[1].id}"]`);
    await page.keyboard.press('Space');
    await tabTo(page, '#share-submit');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#results:not([hidden])');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('results-title');
    expect(await itemGroups(item.id)).toEqual([groups[0].id]);
    await page.close();
  });

  it('renders the results of a 1,000-item batch', async () => {
    const page = await newPage();
    await page.goto(contentUrl(prefix));
    const sel: Record<string, string> = { [items[5].id]: items[5].title };
    while (Object.keys(sel).length < 1000) sel[randomBytes(16).toString('hex')] = 'missing';
    await page.evaluate(([key, s]) => (globalThis as any).sessionStorage.setItem(key, JSON.stringify(s)), [
      `arcgis-selection:${owner.username}`,
      sel,
    ] as const);
    await page.reload();
    await page.getByRole('button', { name: 'Unshare…' }).click();
    await page.getByRole('dialog').getByRole('checkbox', { name: groups[0].title }).check();
    const [reply] = await Promise.all([
      page.waitForResponse(/unshareItems/),
      page.getByRole('dialog').getByRole('button', { name: 'Unshare' }).click(),
    ]);
    const replied = Date.now();
    await reply.finished();
    await page.waitForSelector('#results:not([hidden])');
    const shown = Date.now() - replied;
    expect(await page.locator('#results-rows tr').count()).toBe(1000);
    const dom = await page.locator('#results').getAttribute('data-render-ms');
    console.log(`1,000-item batch: results on the page ${shown} ms after the reply (DOM built in ${dom} ms)`);
    expect(await itemGroups(items[5].id)).toEqual([groups[1].id]);
    await page.click('#clear-selection');
    await page.close();
  }, 60_000);

  it("changes an item's sharing from its page: remove a group, add one, set the level", async () => {
    const page = await newPage();
    const item = items[1];
    await post(t.base, `content/users/${owner.username}/shareItems`, { items: item.id, groups: groups[0].id }, owner.token);
    await page.goto(`${t.base}/content/items/${item.id}?f=html`);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: `Remove from ${groups[0].title}` }).click()]);
    expect(await itemGroups(item.id)).toEqual([]);
    await page.selectOption('#add-group', groups[2].id);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Add to group' }).click()]);
    expect(await itemGroups(item.id)).toEqual([groups[2].id]);
    await page.getByRole('radio', { name: 'Everyone (public)' }).check();
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Change level' }).click()]);
    expect(await access(item.id)).toBe('public');
    await expectAccessible(page);
    await page.close();
  });

  it('another origin cannot make the signed-in browser share or unshare', async () => {
    const item = items[2];
    const target = `${t.base}/content/users/${owner.username}/shareItems`;
    const attack = `<!doctype html><html><body>
      <form id="f" method="post" action="${target}">
        <input name="items" value="${item.id}"><input name="everyone" value="true"><input name="org" value="true"><input name="f" value="json">
      </form>
      <script>
        fetch(${JSON.stringify(target)}, { method: 'POST', credentials: 'include', headers: { 'X-CSRF-Token': 'guess' },
          body: new URLSearchParams({ items: ${JSON.stringify(item.id)}, everyone: 'true', f: 'json' }) })
          .then((r) => r.text()).then((t) => { document.title = 'fetch:' + t; }, (e) => { document.title = 'fetch failed'; })
          .finally(() => document.getElementById('f').submit());
      </script></body></html>`;
    const evil: Server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(attack));
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const page = await newPage();
      await page.goto(`${t.root}/`);
      expect(await page.locator('p.lead').textContent()).toContain(owner.username); // the session is live
      const port = (evil.address() as AddressInfo).port;
      await Promise.all([page.waitForURL(/shareItems/), page.goto(`http://127.0.0.1:${port}/`)]);
      const answer = JSON.parse((await page.locator('body').textContent()) ?? '{}');
      expect(answer.error.code).toBe(499);
      expect(await access(item.id)).toBe('private');
      await page.close();
    } finally {
      evil.close();
    }
  });
});
