import { existsSync } from 'node:fs';
import { Browser, chromium, Page } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core (which downloads no browser of its own). CHROMIUM_PATH overrides the
 * place; without a browser the suite fails, naming the package, rather than passing without having looked.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
  if (!executablePath) throw new Error('No Chromium: install Debian\'s "chromium" package or set CHROMIUM_PATH.');
  // Root in a container has no user namespace for Chromium's sandbox.
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/**
 * Every request a page makes, and the ones that would leave this machine, which are aborted: a page of ours must
 * work with nothing but the server it came from.
 */
export async function watchRequests(page: Page): Promise<{ all: string[]; outside: string[]; cspViolations: string[] }> {
  const seen = { all: [] as string[], outside: [] as string[], cspViolations: [] as string[] };
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    seen.all.push(url.href);
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1') return route.continue();
    seen.outside.push(url.href);
    return route.abort();
  });
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) seen.cspViolations.push(m.text());
  });
  return seen;
}
