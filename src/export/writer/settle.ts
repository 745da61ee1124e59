/**
 * Waits for every promise, then throws the first failure (in the order given), if any. Unlike Promise.all, nothing
 * is still running when the caller goes on to clean up after a failure (closing the sessions, removing the files
 * the others are writing).
 */
export async function allSettledOrThrow(promises: Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
}
