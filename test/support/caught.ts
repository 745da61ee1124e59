/** Runs `fn` and returns what it threw; fails the test if it did not throw. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the client's error classes carry fields of their own
export async function caught(fn: () => Promise<unknown>): Promise<any> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to reject, but it resolved');
}
