/* eslint-disable @typescript-eslint/no-explicit-any -- page.evaluate callbacks run in the browser */
import * as path from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { JobsRepository } from '../../src/core/jobs/jobs.repository';
import { startApp, TestApp } from '../support/app';
import { seriousViolations } from '../support/axe';
import { launchChromium, watchRequests } from '../support/browser';
import { adminToken, createUser, post } from '../support/client';
import { sampleService, SampleService } from '../support/sample-service';
import { startWorker } from '../support/worker';

/**
 * The exports page in Chromium: a queued export is cancelled from it; another is followed, without reloading, from
 * queued through its progress to its download link once a worker has run it. cancelJob's refusals through REST.
 */
const shots = process.env.UPDATE_SCREENSHOTS === '1' ? path.resolve(__dirname, '../../docs/images') : undefined;

describe('exports page in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let owner: { username: string; password: string; token: string };
  let other: { username: string; token: string };
  let svc: SampleService;
  let worker: INestApplicationContext | undefined;

  beforeAll(async () => {
    t = await startApp();
    const admin = await adminToken(t.base);
    owner = await createUser(t.base, admin, 'org_publisher');
    other = await createUser(t.base, admin);
    svc = await sampleService(t.base, owner, 'private');
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
    page.setDefaultTimeout(20_000);
    await page.goto(`${t.base}/generateToken?f=html`);
    await page.fill('#username', owner.username);
    await page.fill('#password', owner.password);
    await Promise.all([
      page.waitForURL((u) => !u.pathname.endsWith('generateToken')),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await t?.close();
  });

  async function exportCsv(): Promise<{ jobId: string; exportItemId: string }> {
    const r = await post(t.base, `content/users/${owner.username}/export`, { itemId: svc.itemId, exportFormat: 'CSV' }, owner.token);
    if (!r.body?.jobId) throw new Error(r.text);
    return r.body;
  }
  const row = (jobId: string) => page.locator(`tr[data-job="${jobId}"]`);

  it('cancels a queued export from the page; cancelJob refuses another user and an ended job', async () => {
    const job = await exportCsv();
    await page.goto(`${t.root}/home/exports.html`);
    const seen = await watchRequests(page);
    expect(await row(job.jobId).getAttribute('data-status')).toBe('queued');
    expect(await row(job.jobId).locator('td').nth(3).textContent()).toBe('Waiting');
    expect(await seriousViolations(page)).toEqual([]);
    await row(job.jobId)
      .getByRole('button', { name: `Cancel export of ${svc.name}` })
      .click();
    await page.waitForSelector(`tr[data-job="${job.jobId}"][data-status="cancelled"]`);
    expect(await page.locator('#exports-status').textContent()).toContain('cancelled');
    expect(seen.cspViolations).toEqual([]);

    const status = await post(
      t.base,
      `content/users/${owner.username}/items/${job.exportItemId}/status`,
      { jobId: job.jobId, jobType: 'export' },
      owner.token,
    );
    expect(status.body.status).toBe('failed');
    const again = await post(
      t.base,
      `content/users/${owner.username}/items/${job.exportItemId}/cancelJob`,
      { jobId: job.jobId },
      owner.token,
    );
    expect(again.body.error).toMatchObject({ code: 400, message: 'The job has already ended.' });
    const job2 = await exportCsv();
    const foreign = await post(
      t.base,
      `content/users/${owner.username}/items/${job2.exportItemId}/cancelJob`,
      { jobId: job2.jobId },
      other.token,
    );
    expect(foreign.body.error.code).toBe(400);
    const bad = await post(t.base, `content/users/${owner.username}/items/${job2.exportItemId}/cancelJob`, { jobId: 'x' }, owner.token);
    expect(bad.body.error.details).toEqual(["'jobId' must be a job id (32 hexadecimal characters)."]);
    const ok = await post(
      t.base,
      `content/users/${owner.username}/items/${job2.exportItemId}/cancelJob`,
      { jobId: job2.jobId },
      owner.token,
    );
    expect(ok.body).toEqual({ success: true, itemId: job2.exportItemId, jobId: job2.jobId, status: 'cancelled' });
  }, 60_000);

  it("follows a running export's progress to its download link without reloading", async () => {
    const job = await exportCsv();
    await page.goto(`${t.root}/home/exports.html`);
    await page.evaluate(() => ((globalThis as any).stillThisPage = true));
    expect(await row(job.jobId).getAttribute('data-status')).toBe('queued');
    // The runner's own calls for a job it starts and reports on, so the page meets a running job at a known point
    // (a sample this small exports between two refreshes); the worker then takes the same job and finishes it.
    const jobs = t.app.get(JobsRepository);
    await jobs.start(job.jobId);
    await jobs.progress(job.jobId, 'processing: 42% (layer 1 of 3) Areas');
    await page.waitForSelector(`tr[data-job="${job.jobId}"] progress[value="42"]`);
    expect(
      await row(job.jobId)
        .getByRole('progressbar', { name: `Progress of the export of ${svc.name}` })
        .count(),
    ).toBe(1);
    if (shots) await page.screenshot({ path: path.join(shots, 'pages-exports.png'), fullPage: true });
    worker = await startWorker(t.config);
    const download = row(job.jobId).locator('a.download');
    await download.waitFor({ timeout: 60_000 });
    expect(await page.evaluate(() => (globalThis as any).stillThisPage)).toBe(true);
    expect(await row(job.jobId).getAttribute('data-status')).toBe('completed');
    expect(await download.getAttribute('href')).toBe(`/sharing/rest/content/items/${job.exportItemId}/data`);
    const csv = await page.evaluate(
      async (href) => (await fetch(href, { credentials: 'same-origin' })).status,
      (await download.getAttribute('href'))!,
    );
    expect(csv).toBe(200);
    expect(await seriousViolations(page)).toEqual([]);
    // The item page lists the same export in its history.
    await page.goto(`${svc.url.replace(/\/arcgis\/rest\/services\/.*$/, '')}/sharing/rest/content/items/${svc.itemId}?f=html`);
    expect(await page.locator(`.export-jobs tr[data-job="${job.jobId}"]`).getAttribute('data-status')).toBe('completed');
  }, 90_000);
});
