/* eslint-disable @typescript-eslint/no-explicit-any -- page.evaluate callbacks run in the browser, on OpenLayers objects */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { launchChromium, watchRequests } from '../support/browser';
import { startWorker } from '../support/worker';
import { adminToken, createUser } from '../support/client';
import { sampleService, SampleService } from '../support/sample-service';

/**
 * The services directory in a real browser (Chromium through playwright-core): a person clicks from the catalog to a
 * layer, runs the query form and opens the map preview, which must draw polygons, lines and points from the layer's
 * own query endpoint without one request leaving this machine. Screenshots go to SCREENSHOT_DIR (a temporary
 * directory by default) for a person to look at.
 */
const shots = process.env.SCREENSHOT_DIR ?? path.join(tmpdir(), 'arcgis-directory-screenshots');

describe('services directory in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let owner: { username: string; password: string; token: string };
  let svc: SampleService;
  let worker: Awaited<ReturnType<typeof startWorker>>;

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    t = await startApp();
    owner = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    svc = await sampleService(t.base, owner, 'private');
    browser = await launchChromium();
    worker = await startWorker(t.config);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await t?.close();
  });

  async function newPage(): Promise<{ page: Page; seen: Awaited<ReturnType<typeof watchRequests>> }> {
    const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
    page.setDefaultTimeout(15_000);
    return { page, seen: await watchRequests(page) };
  }

  /** Signs in through the pages' own form, as a person does: the page session then authenticates every page. */
  async function signIn(page: Page) {
    await page.goto(`${t.base}/generateToken?f=html`);
    await page.fill('#username', owner.username);
    await page.fill('#password', owner.password);
    await Promise.all([page.waitForURL(/\/arcgis\/rest\/services\?f=html$/), page.getByRole('button', { name: 'Sign in' }).click()]);
  }

  /** Clicks the link named `name` and waits for the page it leads to. */
  async function follow(page: Page, name: string, url: RegExp) {
    await Promise.all([page.waitForURL(url), page.getByRole('link', { name, exact: true }).click()]);
  }

  function expectLocalOnly(seen: Awaited<ReturnType<typeof watchRequests>>) {
    expect(seen.outside).toEqual([]);
    expect(seen.cspViolations).toEqual([]);
    expect(seen.all.length).toBeGreaterThan(0);
  }

  it('clicks from the catalog to a layer, and runs the query form', async () => {
    const { page, seen } = await newPage();
    await signIn(page);
    await page.screenshot({ path: path.join(shots, 'directory-catalog.png') });
    await follow(page, svc.name, /\/FeatureServer\?/);
    expect(await page.locator('h1').textContent()).toBe(`${svc.name} (FeatureServer)`);
    await follow(page, 'Sites', /\/FeatureServer\/2\?/);
    expect(await page.locator('h1').textContent()).toBe('Sites (ID: 2)');
    expect(await page.locator('table.fields').textContent()).toContain('Place name');
    await page.screenshot({ path: path.join(shots, 'directory-layer.png'), fullPage: true });

    await follow(page, 'Query', /\/2\/query\?/);
    await page.fill('#q-where', "Kind = 'site'");
    await page.fill('#q-outFields', 'Name,Kind,Opened');
    await page.fill('#q-orderByFields', 'Name');
    await Promise.all([page.waitForURL(/where=/), page.getByRole('button', { name: /Query/ }).click()]);
    await page.waitForSelector('table.results');
    const names = await page.locator('table.results tbody td:first-child').allTextContents();
    expect(names.map((n) => n.trim())).toEqual(['Mill', 'Tower', 'Well']);
    // The page session answered for the private layer; no URL carries a token.
    expect(page.url()).not.toContain('token=');
    await page.screenshot({ path: path.join(shots, 'directory-query.png'), fullPage: true });

    // The same form, asked for JSON, is the layer's JSON answer.
    await page.selectOption('#q-f', 'json');
    await Promise.all([page.waitForURL(/f=json/), page.getByRole('button', { name: /Query/ }).click()]);
    const json = JSON.parse((await page.locator('body').textContent()) ?? '');
    expect(json.features.map((f: { attributes: { Name: string } }) => f.attributes.Name)).toEqual(['Mill', 'Tower', 'Well']);
    expectLocalOnly(seen);
    await page.close();
  }, 60_000);

  /** How many pixels of the canvas are (about) the preview's blue, drawn or filled. */
  const bluePixels = (page: Page) =>
    page.evaluate(() => {
      const canvas = (globalThis as any).document.querySelector('#map canvas');
      const data: Uint8ClampedArray = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && data[i + 2] > data[i] + 40) n++;
      return n;
    });

  it.each([
    [0, 'polygons', 2, 'North field'],
    [1, 'lines', 1, 'High street'],
    [2, 'points', 3, 'Tower'],
  ])(
    'map preview of layer %i draws its %s, fits them, and shows the attributes of the one clicked',
    async (layerId, _kind, count, name) => {
      const { page, seen } = await newPage();
      await signIn(page);
      await page.goto(`${svc.url}/${layerId}?f=html`);
      await follow(page, 'Map preview', /\/preview\?/);
      await page.waitForSelector('#map[data-state="ready"]', { timeout: 20_000 });
      const state = await page.evaluate(() => {
        const w = globalThis as any;
        const { map, source } = w.preview;
        const view = map.getView().calculateExtent(map.getSize());
        const inView = source.getFeaturesInExtent(view).length;
        return { features: source.getFeatures().length, inView, status: w.document.getElementById('status').textContent };
      });
      // All of them loaded from the query endpoint, and the view fitted to the layer's extent shows all of them.
      expect(state).toEqual({ features: count, inView: count, status: `${count} feature(s).` });
      expect(await bluePixels(page)).toBeGreaterThan(50);

      // Click the feature named `name` where the map draws it.
      const target = await page.evaluate((wanted) => {
        const w = globalThis as any;
        const f = w.preview.source.getFeatures().find((x: any) => x.get('Name') === wanted);
        const g = f.getGeometry();
        const type = g.getType();
        const at =
          type === 'Point' ? g.getCoordinates() : type === 'Polygon' ? g.getInteriorPoint().getCoordinates() : g.getCoordinateAt(0.5);
        return w.preview.map.getPixelFromCoordinate(at.slice(0, 2));
      }, name);
      const box = (await page.locator('#map').boundingBox())!;
      await page.mouse.click(box.x + target[0], box.y + target[1]);
      await page.waitForSelector('#attributes table.feature');
      const attributes = await page.locator('#attributes table.feature').textContent();
      expect(attributes).toContain(`Name${name}`);
      expect(attributes).toContain('OBJECTID');
      if (layerId === 0) {
        expect(attributes).toContain('Opened2001-01-02T00:00:00.000Z');
        await page.screenshot({ path: path.join(shots, 'map-preview.png') });
      }
      // Clicking where nothing is drawn says so.
      await page.mouse.click(box.x + 3, box.y + box.height - 3);
      await page.waitForSelector('#attributes p.none');
      expectLocalOnly(seen);
      expect(seen.all.some((u) => u.includes(`/FeatureServer/${layerId}/query`))).toBe(true);
      await page.close();
    },
  );

  it('markup in the data stays text in the preview', async () => {
    const { page, seen } = await newPage();
    let dialogs = 0;
    page.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
    await signIn(page);
    await page.goto(`${svc.url}/0/preview?f=html`);
    await page.waitForSelector('#map[data-state="ready"]');
    const at = await page.evaluate(() => {
      const w = globalThis as any;
      const f = w.preview.source.getFeatures().find((x: any) => String(x.get('Name')).startsWith('<img'));
      return w.preview.map.getPixelFromCoordinate(f.getGeometry().getInteriorPoint().getCoordinates().slice(0, 2));
    });
    const box = (await page.locator('#map').boundingBox())!;
    await page.mouse.click(box.x + at[0], box.y + at[1]);
    await page.waitForSelector('#attributes table.feature');
    expect(await page.locator('#attributes img').count()).toBe(0);
    expect(await page.locator('#attributes table.feature').textContent()).toContain('<img src=x onerror="alert(1)">');
    expect(dialogs).toBe(0);
    expectLocalOnly(seen);
    await page.close();
  });

  it('signs in through generateToken into a page session, and signs out', async () => {
    const { page, seen } = await newPage();
    await page.goto(`${t.root}/arcgis/rest/services?f=html`);
    expect(await page.locator('body').textContent()).not.toContain(svc.name);
    await follow(page, 'Sign in', /generateToken\?/);
    await page.fill('#username', owner.username);
    await page.fill('#password', 'wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('#sign-in-status.error');
    expect(await page.locator('#sign-in-status').textContent()).toContain('Could not sign in');
    await page.fill('#password', owner.password);
    await Promise.all([page.waitForURL(/\/arcgis\/rest\/services\?f=html$/), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(await page.locator('header .user').textContent()).toContain(`Signed in as ${owner.username}`);
    expect(await page.getByRole('link', { name: svc.name, exact: true }).count()).toBe(1);

    // Any page opened in the same browser session is signed in, with no token in its URL.
    await page.goto(`${svc.url}/0?f=html`);
    expect(await page.locator('h1').textContent()).toBe('Areas (ID: 0)');

    await Promise.all([page.waitForURL(/\/arcgis\/rest\/services\?f=html$/), page.getByRole('button', { name: 'Sign out' }).click()]);
    expect(await page.locator('body').textContent()).not.toContain(svc.name);
    await page.goto(`${svc.url}/0?f=html`);
    expect(await page.locator('body').textContent()).toContain('Error 499');
    await page.goto(`${t.root}/arcgis/rest/services?f=html`);
    expect(await page.locator('header .user').textContent()).toContain('Sign in');
    expect(page.url()).not.toContain('token=');
    expectLocalOnly(seen);
    await page.close();
  }, 60_000);

  it("shows a service's item page, which links to the service's directory page", async () => {
    const { page, seen } = await newPage();
    await signIn(page);
    await page.goto(`${t.base}/content/users/${owner.username}?f=html`);
    await follow(page, svc.name, /content\/items\//);
    expect(await page.locator('dl.facts').textContent()).toContain('Feature Service');
    await page.screenshot({ path: path.join(shots, 'portal-item.png') });
    await follow(page, svc.url, /FeatureServer\?f=html/);
    expect(await page.locator('h1').textContent()).toBe(`${svc.name} (FeatureServer)`);
    expectLocalOnly(seen);
    await page.close();
  });

  it('runs an export from the item page to a completed download', async () => {
    const { page, seen } = await newPage();
    await signIn(page);
    await page.goto(`${t.base}/content/items/${svc.itemId}?f=html`);
    await page.selectOption('#x-format', 'CSV');
    for (const id of ['0', '1']) await page.uncheck(`input[name="layer"][value="${id}"]`);
    await page.fill('#x-where', "Kind = 'site'");
    await page.fill('#x-xcol', 'lon');
    await page.fill('#x-ycol', 'lat');
    await page.fill('#x-title', 'Sites as CSV');
    await page.getByRole('button', { name: 'Export' }).click();
    await page.waitForSelector('#export-download', { timeout: 60_000 });
    expect(await page.locator('#export-status').textContent()).toBe('Export completed.');
    await page.screenshot({ path: path.join(shots, 'export-form.png'), fullPage: true });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-download')]);
    const csv = await new Promise<string>((resolve, reject) => {
      let text = '';
      void download.createReadStream().then((s) => {
        s.on('data', (d: Buffer) => (text += d.toString('utf8')));
        s.on('end', () => resolve(text));
        s.on('error', reject);
      }, reject);
    });
    const [header, ...rows] = csv.trim().split(/\r?\n/);
    expect(header.split(',')).toEqual(expect.arrayContaining(['lon', 'lat', 'Name']));
    expect(rows).toHaveLength(3);
    expect(csv).toContain('Tower');
    expectLocalOnly(seen);
    await page.close();
  }, 90_000);

  it('shows the export failing as the export operation refuses it', async () => {
    const { page } = await newPage();
    await signIn(page);
    await page.goto(`${t.base}/content/items/${svc.itemId}?f=html`);
    await page.fill('#x-where', 'NoSuchField = 1');
    await page.getByRole('button', { name: 'Export' }).click();
    await page.waitForSelector('#export-status.error');
    expect(await page.locator('#export-status').textContent()).toMatch(/Export failed: Invalid export parameters\./);
    await page.close();
  });
});
