/** Polls check every `every` ms until it holds; fails naming `what` after `ms`. */
export async function waitFor(what: string, check: () => Promise<boolean>, ms = 90000, every = 100): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/**
 * Waits until `n` sessions of the test's database wait on a lock: requests held at a row that a transaction of the
 * test locked, so that releasing it lets them race exactly where the test means them to.
 */
export function lockWaiters(db: { query(sql: string): Promise<{ n: number }[]> }, n: number): Promise<void> {
  return waitFor(
    `${n} sessions waiting on a lock`,
    async () => {
      const [{ n: waiting }] = await db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return waiting >= n;
    },
    30_000,
    20,
  );
}
