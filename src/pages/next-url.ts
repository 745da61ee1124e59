/** Longer than any page's path; a longer `next` is not one of ours. */
const MAX_NEXT = 2048;

/**
 * Where the sign-in sends the browser: `next` parsed by the WHATWG URL parser (the browser's) against the deployment's
 * public root, then compared: the same origin and under the root's path, or nothing (the caller goes home). A string
 * check before parsing is what failed: the parser drops tabs and newlines and reads `\` as `/`, so `/\t/evil` passed
 * a "starts with one slash" test and became `//evil`. Such characters are refused outright rather than cleaned, as is
 * any `next` the parser turns into another scheme, host or port (`javascript:`, `//host`, `http://host`), and any
 * relative reference.
 * The answer is a path on our origin (never `//`), always a page (f=html: a page changes nothing, so a `next` cannot
 * aim a signed-in navigation at an operation), and without a `token`, so a link cannot plant one.
 */
export function signInTarget(next: unknown, root: string): string | null {
  if (typeof next !== 'string' || !next || next.length > MAX_NEXT) return null;
  // C0 controls, space and DEL, C1 controls, any Unicode space, and the backslash.
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u0020\u007f-\u009f\\\s]/.test(next)) return null;
  // Only a path or an absolute http(s) URL: the pages' links send a path, and a relative reference (`x`, `http:x`)
  // would resolve against wherever the parser decides. Refusing more is safe; this check alone allows nothing.
  if (!next.startsWith('/') && !/^https?:\/\//i.test(next)) return null;
  const base = new URL(root.endsWith('/') ? root : `${root}/`);
  if (!URL.canParse(next, base.href)) return null;
  const url = new URL(next, base);
  if (url.origin !== base.origin || url.username || url.password) return null;
  const prefix = base.pathname.replace(/\/$/, '');
  if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return null;
  if (url.pathname.startsWith('//')) return null;
  url.searchParams.delete('token');
  url.searchParams.set('f', 'html');
  return `${url.pathname}${url.search}`;
}
