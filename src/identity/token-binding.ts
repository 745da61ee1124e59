import type { IncomingHttpHeaders } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';

/** Where a request comes from, as far as token binding cares. */
export interface RequestOrigin {
  /** Express's req.ip: the socket address, or the forwarded one when 'trust proxy' trusts the hop. */
  ip?: string;
  referer?: string;
}

export function originOf(req: { ip?: string; headers: IncomingHttpHeaders }): RequestOrigin {
  const referer = req.headers.referer;
  return { ip: req.ip, referer: typeof referer === 'string' ? referer : undefined };
}

/**
 * One spelling per address, so stored and request addresses compare as strings: IPv6 is canonicalised by the
 * WHATWG URL parser (Node core; lower case, zeros compressed), and IPv4-mapped IPv6 (`::ffff:1.2.3.4`, what a
 * dual-stack socket reports for IPv4 clients) becomes the IPv4 address. Null for anything that is not an address.
 */
export function canonicalIp(ip: string | undefined): string | null {
  if (!ip) return null;
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip) || ip.includes('%')) return null;
  const host = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!mapped) return host;
  const [a, b] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
  return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
}

function httpUrl(s: string): URL | null {
  if (!URL.canParse(s)) return null;
  const url = new URL(s);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
}

/**
 * Whether a request's Referer satisfies a token's referer:
 * - a URL referer (`https://app.example.org/maps/`) matches any Referer of the same origin (scheme, host, port).
 *   Paths are not compared: browsers send only the origin on cross-origin requests by default
 *   (strict-origin-when-cross-origin), and the origin is what separates one site from another in a browser anyway;
 * - a bare host (`app.example.org`, `app.example.org:8443`) matches a Referer URL on that host, either scheme;
 * - anything else (`@esri/arcgis-rest-js`, `cli`) must equal the Referer header exactly.
 * No Referer never matches.
 */
export function refererMatches(bound: string, header: string | undefined): boolean {
  if (!header) return false;
  if (header === bound) return true;
  const sent = httpUrl(header);
  if (!sent) return false;
  const want = httpUrl(bound);
  if (want) return want.origin === sent.origin;
  return /^[a-z0-9.-]+(:\d{1,5})?$/i.test(bound) && bound.toLowerCase() === sent.host;
}

/** Whether a token bound as (client, binding) may be used by a request from `origin`. */
export function bindingMatches(client: string, binding: string | null, origin: RequestOrigin): boolean {
  if (client === 'referer') return !!binding && refererMatches(binding, origin.referer);
  // ip and requestip: fail closed when either side is missing.
  const ip = canonicalIp(origin.ip);
  return !!binding && !!ip && binding === ip;
}
