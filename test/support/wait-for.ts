/** Polls check every `every` ms until it holds; fails naming `what` after `ms`. */
export async function waitFor(what: string, check: () => Promise<boolean>, ms = 90000, every = 100): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
