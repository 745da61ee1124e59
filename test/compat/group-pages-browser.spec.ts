/* eslint-disable @typescript-eslint/no-explicit-any -- page.evaluate callbacks run in the browser (axe's results) */
import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ADMIN } from '../support/app';
import { launchChromium, watchRequests } from '../support/browser';
import { addItem, createGroup, createUser, get, post, uniq } from '../support/client';
import { withApp } from '../support/harness';
import { clearWebhooks } from '../support/webhook-state';
import { startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';

type Seen = Awaited<ReturnType<typeof watchRequests>>;

/** axe-core's own build, run in the page by the DevTools protocol (the pages' CSP admits no injected script tag). */
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The group page (Overview, Content, Members, Settings), the webhooks page and the users page in Chromium: a person
 * removes items from a group, manages its members and a webhook, and every change is then read back through REST.
 * Another origin's page cannot change a group with the signed-in browser's session, and axe finds no serious or
 * critical violation on any of these pages.
 */
describe('group, webhooks and users pages in Chromium', () => {
  // Declared before withApp's, so it runs while the app is still up (afterAll hooks run in declaration order).
  afterAll(async () => {
    // No webhook of this suite may outlive it: later suites share the database.
    const list = await get(t.base, 'portals/self/webhooks', { num: 100 }, t.admin);
    for (const w of list.body.webhooks ?? [])
      if (w.name === hookName) await post(t.base, `portals/self/webhooks/${w.id}/delete`, {}, t.admin);
    await browser?.close();
  });
  const t = withApp({
    users: { owner: 'org_publisher', alice: 'org_user', bob: 'org_user' },
    worker: true,
    env: { WEBHOOK_ALLOW: 'localhost', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_DISPATCH_MS: '100' },
  });
  const { owner, alice, bob } = t.users;
  let browser: Browser;
  let group: string;
  let groupTitle: string;
  const items: { id: string; title: string }[] = [];
  const hookName = uniq('pages_hook');

  beforeAll(async () => {
    await clearWebhooks(t.db);
    browser = await launchChromium();
    groupTitle = uniq('Field teams');
    group = await createGroup(t.base, owner.token, { title: groupTitle });
    for (const name of ['Parks plan', 'Street trees', 'Flood zones']) {
      const title = `${name} ${uniq('v')}`;
      items.push({ id: await addItem(t.base, owner.username, owner.token, { title }), title });
    }
    const shared = await post(
      t.base,
      `content/users/${owner.username}/shareItems`,
      { items: items.map((i) => i.id).join(','), groups: group },
      owner.token,
    );
    expect(shared.body.results.every((r: { success: boolean }) => r.success)).toBe(true);
  }, 60_000);

  const groupUrl = (tab?: string) => `${t.root}/home/group.html?id=${group}${tab ? `&tab=${tab}` : ''}`;

  async function signedIn(user: { username: string; password: string }, next: string): Promise<{ page: Page; seen: Seen }> {
    // A context of its own per visitor, so another page of that browser (the other origin's) shares its cookies.
    const page = await (await browser.newContext({ viewport: { width: 1100, height: 760 } })).newPage();
    page.setDefaultTimeout(15_000);
    const seen = await watchRequests(page);
    await page.goto(`${t.base}/generateToken?f=html&next=${encodeURIComponent(next)}`);
    await page.fill('#username', user.username);
    await page.fill('#password', user.password);
    await Promise.all([
      page.waitForURL((u) => u.pathname.endsWith(new URL(next).pathname)),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    return { page, seen };
  }

  /** axe's serious and critical violations on the page as it is now (WCAG 2 A and AA rules, best practices). */
  async function axeViolations(page: Page): Promise<string[]> {
    await page.evaluate(AXE);
    const violations: any[] = await page.evaluate(async () => (await (globalThis as any).axe.run((globalThis as any).document)).violations);
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).join(', ')})`);
  }

  function expectLocalOnly(seen: Seen) {
    expect(seen.outside).toEqual([]);
    expect(seen.cspViolations).toEqual([]);
  }

  it('removes two items from the group on its Content tab, by keyboard, with a result per item', async () => {
    const { page, seen } = await signedIn(owner, groupUrl('content'));
    expect(await page.locator('h1').textContent()).toBe(`Group: ${groupTitle}`);
    expect(await page.locator('nav.tabs a[aria-current="page"]').textContent()).toBe('Content');
    const [a, b, c] = items;
    // Each check box is named by its item's title; checking one is announced in the live region.
    await page.getByRole('checkbox', { name: a.title, exact: true }).focus();
    await page.keyboard.press('Space');
    await page.getByRole('checkbox', { name: b.title, exact: true }).focus();
    await page.keyboard.press('Space');
    expect(await page.locator('#selection').textContent()).toBe('2 of 3 item(s) selected.');
    expect(await page.locator('#selection').getAttribute('role')).toBe('status');
    await page.getByRole('button', { name: 'Remove from group' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Remove from group' });
    await dialog.waitFor();
    expect(await page.locator('#confirm-text').textContent()).toContain('Remove 2 item(s)');
    // Focus starts on Cancel and stays in the dialog: Tab from the last button wraps to the first.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('confirm-no');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('confirm-yes');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('confirm-no');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#results li');
    const results = await page.locator('#results li').allTextContents();
    expect(results.sort()).toEqual([`${a.title}: removed from the group.`, `${b.title}: removed from the group.`].sort());
    expect(await page.locator('#group-items tbody tr').count()).toBe(1);
    expect(await page.locator('#summary').textContent()).toBe('2 item(s) removed; reload the page for the current list.');
    expect(await page.locator('#selection').textContent()).toContain('2 item(s) removed.');
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      await page.screenshot({ path: path.join(__dirname, '../../docs/images/group-page.png'), fullPage: true });
    }
    // Through REST: the group holds only the third item, and the two are shared with no group.
    const content = await get(t.base, `content/groups/${group}`, { num: 100 }, owner.token);
    expect(content.body.items.map((i: { id: string }) => i.id)).toEqual([c.id]);
    for (const i of [a, b]) expect((await get(t.base, `content/items/${i.id}/groups`, {}, owner.token)).body.member).toEqual([]);
    expectLocalOnly(seen);
    await page.context().close();
  }, 60_000);

  it('shows a failed removal with the reason, and keeps that item selected', async () => {
    const doomed = { title: uniq('Old survey'), id: '' };
    doomed.id = await addItem(t.base, owner.username, owner.token, { title: doomed.title });
    await post(t.base, `content/users/${owner.username}/shareItems`, { items: doomed.id, groups: group }, owner.token);
    const { page } = await signedIn(owner, groupUrl('content'));
    const [, , c] = items;
    // The item is deleted after the page was drawn: its removal fails, as unshareItems reports it for that item.
    await post(t.base, `content/users/${owner.username}/items/${doomed.id}/delete`, {}, owner.token);
    await page.getByRole('checkbox', { name: c.title, exact: true }).check();
    await page.getByRole('checkbox', { name: doomed.title, exact: true }).check();
    await page.getByRole('button', { name: 'Remove from group' }).click();
    await page.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.waitForSelector('#results li.failed');
    expect(await page.locator('#results li.ok').textContent()).toBe(`${c.title}: removed from the group.`);
    expect(await page.locator('#results li.failed').textContent()).toMatch(new RegExp(`^${doomed.title}: not removed\\. \\S`));
    expect(await page.getByRole('checkbox', { name: doomed.title, exact: true }).isChecked()).toBe(true);
    expect(await page.locator('#selection').textContent()).toBe(
      '1 item(s) removed, 1 not removed and still selected. 1 of 1 item(s) selected.',
    );
    expect(await page.getByRole('button', { name: 'Remove from group' }).isEnabled()).toBe(true);
    const content = await get(t.base, `content/groups/${group}`, { num: 100 }, owner.token);
    expect(content.body.items).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('adds a user, makes them a manager, and removes them on the Members tab', async () => {
    const { page, seen } = await signedIn(owner, groupUrl('members'));
    const users = async () => (await get(t.base, `community/groups/${group}/users`, {}, owner.token)).body;
    await page.getByLabel('User names').fill(`${alice.username}, ${bob.username}`);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Add', exact: true }).click()]);
    await page.waitForSelector(`tr[data-username="${alice.username}"]`);
    expect(await page.locator('#members-status').textContent()).toBe(`Added ${alice.username}, ${bob.username}.`);
    expect((await users()).users.sort()).toEqual([alice.username, bob.username].sort());

    await page.getByRole('button', { name: `Make manager: ${alice.username}` }).click();
    await page.waitForFunction(
      (u) => (globalThis as any).document.querySelector(`tr[data-username="${u}"] td.role`)?.textContent === 'Manager',
      alice.username,
    );
    expect(await page.locator('#members-status').textContent()).toBe(`${alice.username} is now a manager of the group.`);
    expect((await users()).admins).toContain(alice.username);
    // The button now offers the way back, named for the same user.
    expect(await page.getByRole('button', { name: `Make member: ${alice.username}` }).count()).toBe(1);

    await page.getByRole('button', { name: `Remove from the group: ${alice.username}` }).click();
    await page.waitForSelector(`tr[data-username="${alice.username}"]`, { state: 'detached' });
    expect(await page.locator('#members-status').textContent()).toBe(`Removed ${alice.username} from the group.`);
    const after = await users();
    expect([...after.admins, ...after.users]).not.toContain(alice.username);
    expect(after.users).toEqual([bob.username]);
    expectLocalOnly(seen);
    await page.context().close();
  }, 60_000);

  it('shows members only what the group lets them do', async () => {
    const { page } = await signedIn(bob, groupUrl('members'));
    expect(await page.locator(`tr[data-username="${owner.username}"] td.role`).textContent()).toBe('Owner');
    expect(await page.locator('#add-members').count()).toBe(0);
    expect(await page.locator('button.member-action').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Settings' }).count()).toBe(0);
    // Asking for Settings anyway shows the overview.
    await page.goto(groupUrl('settings'));
    expect(await page.locator('nav.tabs a[aria-current="page"]').textContent()).toBe('Overview');
    await page.context().close();
  }, 60_000);

  it('gives a manager the member actions a manager has, and no more', async () => {
    await post(t.base, `community/groups/${group}/addUsers`, { admins: alice.username }, owner.token);
    const { page } = await signedIn(alice, groupUrl('members'));
    // A manager adds members but not managers, removes members but not managers, and changes no roles.
    expect(await page.getByLabel('As').locator('option').allTextContents()).toEqual(['Member']);
    expect(await page.locator(`tr[data-username="${alice.username}"] td.role`).textContent()).toBe('Manager');
    expect(await page.locator(`tr[data-username="${alice.username}"] button`).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Make / }).count()).toBe(0);
    expect(await page.getByRole('button', { name: `Remove from the group: ${bob.username}` }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Settings' }).count()).toBe(1);
    await page.context().close();
    await post(t.base, `community/groups/${group}/removeUsers`, { users: alice.username }, owner.token);
  }, 60_000);

  it('saves the title, access, join and sharing settings through the group update', async () => {
    const { page } = await signedIn(owner, groupUrl('settings'));
    const title = uniq('Renamed teams');
    await page.getByLabel('Title').fill(title);
    await page.getByLabel('Who can see the group').selectOption('private');
    await page.getByLabel('Who can join').selectOption('auto');
    await page.getByLabel('Who can share content').selectOption('true');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForFunction(() => (globalThis as any).document.getElementById('settings-status')?.textContent === 'Settings saved.');
    const g = (await get(t.base, `community/groups/${group}`, {}, owner.token)).body;
    expect(g).toMatchObject({ title, access: 'private', autoJoin: true, isInvitationOnly: false, isViewOnly: true });
    groupTitle = title;
    // A refusal shows the envelope's message.
    await page.getByLabel('Title').fill('x'.repeat(300));
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForSelector('#settings-status.error');
    expect(await page.locator('#settings-status').textContent()).toContain("'title' must be at most 256 characters.");
    await page.context().close();
  }, 60_000);

  it('cannot be made to change the group from another origin', async () => {
    await post(t.base, `community/groups/${group}/addUsers`, { users: bob.username }, owner.token);
    const { page } = await signedIn(owner, groupUrl());
    const before = (await get(t.base, `community/groups/${group}`, {}, owner.token)).body;
    // Another origin of the same site (another port of 127.0.0.1): SameSite lets the cookie go, the server must not.
    const target = `${t.base}/community/groups/${group}`;
    const evil: Server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><html><body>
        <form id="f" method="post" action="${target}/update"><input name="f" value="json"><input name="title" value="pwned-form"></form>
        <script>
          (async () => {
            const out = {};
            try {
              const r = await fetch(${JSON.stringify(`${target}/update`)}, { method: 'POST', credentials: 'include', mode: 'no-cors',
                body: new URLSearchParams({ f: 'json', title: 'pwned-fetch' }) });
              out.fetch = r.type;
            } catch (e) { out.fetch = 'refused'; }
            try {
              await fetch(${JSON.stringify(`${target}/removeUsers`)}, { method: 'POST', credentials: 'include',
                headers: { 'X-CSRF-Token': 'guess' }, body: new URLSearchParams({ f: 'json', users: ${JSON.stringify(bob.username)} }) });
              out.preflighted = 'sent';
            } catch (e) { out.preflighted = 'refused'; }
            document.title = 'done';
            window.result = out;
            document.getElementById('f').submit();
          })();
        </script></body></html>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    try {
      const attacker = await page.context().newPage();
      await attacker.goto(`${origin}/`);
      // The form's navigation lands on the API's answer to a request it did not authenticate.
      await attacker.waitForURL(/\/update$/);
      const answer = JSON.parse((await attacker.locator('body').textContent()) ?? '{}');
      expect(answer.error.code).toBe(499);
      await attacker.close();
    } finally {
      evil.closeAllConnections();
      evil.close();
    }
    const after = (await get(t.base, `community/groups/${group}`, {}, owner.token)).body;
    expect(after.title).toBe(before.title);
    expect(after.modified).toBe(before.modified);
    expect((await get(t.base, `community/groups/${group}/users`, {}, owner.token)).body.users).toContain(bob.username);
    // The same browser changes the group from the group's own page.
    await page.goto(groupUrl('settings'));
    await page.getByLabel('Summary').fill('Changed from our own page');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForFunction(() => (globalThis as any).document.getElementById('settings-status')?.textContent === 'Settings saved.');
    expect((await get(t.base, `community/groups/${group}`, {}, owner.token)).body.snippet).toBe('Changed from our own page');
    await page.context().close();
  }, 60_000);

  it('creates a webhook, shows a delivery in its log, and deactivates it on the webhooks page', async () => {
    const rx = await startReceiver();
    try {
      const { page, seen } = await signedIn(ADMIN, `${t.root}/home/webhooks.html`);
      await page.waitForSelector('#hook-table tbody tr');
      await page.getByLabel('Name').fill(hookName);
      await page.getByLabel('Payload URL').fill(`http://localhost:${rx.port}/hook`);
      await page.getByLabel('Events').fill(`/groups/${group}/update`);
      await page.getByLabel('Secret').fill('page-secret');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.waitForFunction(
        (n) => (globalThis as any).document.getElementById('create-status')?.textContent === `Webhook ${n} created.`,
        hookName,
      );
      const row = page.locator('#hook-table tbody tr', { hasText: hookName });
      expect(await row.locator('td.state').textContent()).toBe('Active');
      const hooks = (await get(t.base, 'portals/self/webhooks', { num: 100 }, t.admin)).body.webhooks;
      const hook = hooks.find((w: { name: string }) => w.name === hookName);
      expect(hook).toMatchObject({ isActive: true, events: [`/groups/${group}/update`], payloadUrl: `http://localhost:${rx.port}/hook` });

      // An event it listens to, then its delivery in the log with the payload and the receiver's answer.
      await post(t.base, `community/groups/${group}/update`, { snippet: 'for the webhook' }, owner.token);
      await waitFor('the delivery', async () => rx.events().length > 0, 20_000);
      await page.getByRole('button', { name: `Delivery log of ${hookName}` }).click();
      await waitFor(
        'the delivery in the log',
        async () => {
          await page.getByRole('button', { name: 'Refresh the log' }).click();
          const cells = await page.locator('#log-table tbody tr td').allTextContents();
          return cells.some((c) => c.startsWith('200'));
        },
        20_000,
        500,
      );
      const logRow = page.locator('#log-table tbody tr').first();
      expect(await logRow.locator('td').nth(3).textContent()).toBe('200 ok');
      await logRow.locator('summary').click();
      const payload = JSON.parse((await logRow.locator('pre.payload').textContent()) ?? '{}');
      expect(payload).toMatchObject({ info: { webhookId: hook.id, webhookName: hookName }, events: [{ id: group, operation: 'update' }] });
      expect(await axeViolations(page)).toEqual([]);

      await page.getByRole('button', { name: `Deactivate ${hookName}` }).click();
      await page.getByRole('button', { name: `Activate ${hookName}`, exact: true }).waitFor();
      expect(await page.locator('#hooks-status').textContent()).toBe(`Webhook ${hookName} deactivated.`);
      expect((await get(t.base, `portals/self/webhooks/${hook.id}`, {}, t.admin)).body.isActive).toBe(false);

      await page.getByRole('button', { name: `Delete ${hookName}` }).click();
      await page.getByRole('dialog', { name: 'Delete webhook' }).getByRole('button', { name: 'Delete', exact: true }).click();
      await page.waitForFunction(
        (n) => (globalThis as any).document.getElementById('hooks-status')?.textContent === `Webhook ${n} deleted.`,
        hookName,
      );
      expect((await get(t.base, `portals/self/webhooks/${hook.id}`, {}, t.admin)).body.error).toBeDefined();
      expectLocalOnly(seen);
      await page.context().close();
    } finally {
      await rx.close();
    }
  }, 90_000);

  it('refuses the webhooks and users pages to those who are not administrators', async () => {
    const { page } = await signedIn(owner, groupUrl());
    for (const p of ['webhooks', 'users']) {
      await page.goto(`${t.root}/home/${p}.html`);
      expect(await page.locator('.error-box').textContent()).toContain('Error 403');
    }
    await page.context().close();
  }, 60_000);

  it('lists, searches and pages users on the users page', async () => {
    const { page, seen } = await signedIn(ADMIN, `${t.root}/home/users.html`);
    await page.waitForFunction(() => /^Users 1 to/.test((globalThis as any).document.getElementById('users-status')?.textContent ?? ''));
    await page.getByLabel('Search users').fill(alice.username);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => (globalThis as any).document.getElementById('users-status')?.textContent === 'Users 1 to 1 of 1.');
    expect(await page.locator('#user-table tbody td').first().textContent()).toBe(alice.username);
    expect(await page.getByRole('link', { name: `Content of ${alice.username}` }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    expectLocalOnly(seen);
    await page.context().close();
  }, 60_000);

  it('has no serious or critical accessibility violation on any tab of the group page', async () => {
    const other = await createUser(t.base, t.admin, 'org_user');
    await post(t.base, `community/groups/${group}/addUsers`, { users: other.username }, owner.token);
    await addItem(t.base, owner.username, owner.token, { title: uniq('Axe check') }).then((id) =>
      post(t.base, `content/users/${owner.username}/shareItems`, { items: id, groups: group }, owner.token),
    );
    const { page } = await signedIn(owner, groupUrl());
    for (const tab of ['overview', 'content', 'members', 'settings']) {
      await page.goto(groupUrl(tab));
      expect({ tab, violations: await axeViolations(page) }).toEqual({ tab, violations: [] });
    }
    // The confirmation dialog, open.
    await page.goto(groupUrl('content'));
    await page.locator('input.pick').first().check();
    await page.getByRole('button', { name: 'Remove from group' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('answers an unknown group and bad parameters with the envelope message on the page', async () => {
    const page = await browser.newPage();
    await page.goto(`${t.root}/home/group.html?id=${'0'.repeat(32)}`);
    expect(await page.locator('.error-box').textContent()).toContain('Group does not exist or is inaccessible.');
    await page.goto(`${t.root}/home/group.html?id=nope`);
    expect(await page.locator('.error-box').textContent()).toContain('not a valid group id');
    await page.goto(`${t.root}/home/group.html`);
    expect(await page.locator('.error-box').textContent()).toContain("'id' is required.");
    await page.goto(`${groupUrl()}&tab=%3Cscript%3E`);
    expect(await page.locator('.error-box').textContent()).toContain("'tab' must be one of overview, content, members, settings.");
    await page.goto(`${groupUrl()}&start=0`);
    expect(await page.locator('.error-box').textContent()).toContain("'start' must be 1 or more.");
    // A page name the portal does not have is an unknown URL, as elsewhere.
    await page.goto(`${t.root}/home/nope.html`);
    expect(await page.locator('body').textContent()).toContain('Invalid URL');
    await page.context().close();
  });
});
