import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

/**
 * axe-core's own build, evaluated in the page through the DevTools protocol (which the page's CSP does not govern, where
 * a script tag would be refused) with no network: the same engine its browser extensions run.
 */
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** axe-core's WCAG 2.x A/AA rules on the page as it stands; the findings of impact serious or critical. */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(AXE);
  const found: AxeFinding[] = await page.evaluate(async () => {
    /* eslint-disable @typescript-eslint/no-explicit-any -- axe's global and results, in the browser */
    const axe = (globalThis as any).axe;
    const r = await axe.run((globalThis as any).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n: any) => String(n.target)) }));
    /* eslint-enable @typescript-eslint/no-explicit-any */
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
