import type { IncomingHttpHeaders } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The directory pages' session: the token of the pages' own sign-in, in an HttpOnly, SameSite=Strict cookie. API
 * clients never use it (a `token` parameter or Bearer header always wins), and it authenticates only what the rules
 * below let through, so no other origin, not even a CORS_CREDENTIAL_ORIGINS one, can act or read with it.
 */
export const SESSION_COOKIE = 'arcgis_page_session';
/** The header the pages' scripts send their session's CSRF value in; another origin cannot set it without a preflight. */
export const CSRF_HEADER = 'x-csrf-token';

/**
 * The cookie's value, or undefined; a malformed escape is a cookie we did not set, and so are two of that name (one
 * planted by another port of the host or a sibling domain with a longer path): no session then.
 */
export function sessionCookie(headers: IncomingHttpHeaders): string | undefined {
  let found: string | undefined;
  for (const part of (headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    if (found !== undefined) return undefined;
    try {
      found = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return undefined;
    }
  }
  return found || undefined;
}

/**
 * The session's CSRF value: an HMAC keyed by the session's token, so it needs no storage, dies with the token, and
 * reveals nothing of it (the page carries it; the database keeps the token's plain SHA-256, which differs).
 */
export function csrfOf(token: string): string {
  return createHmac('sha256', token).update('arcgis-page-csrf').digest('base64url');
}

export function csrfMatches(token: string, sent: unknown): boolean {
  if (typeof sent !== 'string' || !sent) return false;
  const want = Buffer.from(csrfOf(token));
  const got = Buffer.from(sent);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** What a request with the session cookie is, for the rules of {@link cookieMayAuthenticate}. */
export interface SessionUse {
  method: string;
  headers: IncomingHttpHeaders;
  /** The origin browsers see this deployment at (PUBLIC_URL's, else the request's own). */
  ownOrigin: string;
  /** A directory page (f=html): read-only by construction. */
  page: boolean;
  /** A route the pages link to for a download or a JSON view (@PageLink): read-only. */
  pageLink: boolean;
}

/**
 * Whether the browser says the request comes from our own pages. Fetch Metadata (`Sec-Fetch-Site`) when it is sent
 * (every current browser does); without it, an Origin header must be ours. `none` is a navigation the user started
 * (typed, bookmarked), allowed only where `allowNone` says.
 */
export function fromOwnPages(headers: IncomingHttpHeaders, ownOrigin: string, allowNone: boolean): boolean {
  const site = headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin' || (allowNone && site === 'none');
  const origin = headers.origin;
  return origin === undefined || origin === ownOrigin;
}

/**
 * When the cookie may stand for a token:
 * - never for a request another site or origin made (SameSite=Strict keeps the cookie off cross-site requests, but
 *   another port or a sibling subdomain is the same site and gets it; Fetch Metadata and Origin tell them apart);
 * - a page read (GET or HEAD with f=html), which changes nothing and whose answer only the browser's own tab sees;
 * - a link of a page (an item's data, the query form asked for JSON) when it is a top-level navigation from our pages
 *   or the user: never a fetch, an image or a script, which another page could make;
 * - anything else (export, status, a query from the map preview) only with the session's CSRF value in X-CSRF-Token,
 *   checked by the caller, which has the token.
 */
export function cookieMayAuthenticate(use: SessionUse): 'read' | 'csrf' | false {
  const read = use.method === 'GET' || use.method === 'HEAD';
  if (read && use.page && fromOwnPages(use.headers, use.ownOrigin, true)) return 'read';
  const navigation = use.headers['sec-fetch-mode'] === 'navigate';
  if (read && use.pageLink && navigation && ['same-origin', 'none'].includes(String(use.headers['sec-fetch-site']))) return 'read';
  if (use.headers[CSRF_HEADER] !== undefined && fromOwnPages(use.headers, use.ownOrigin, false)) return 'csrf';
  return false;
}
