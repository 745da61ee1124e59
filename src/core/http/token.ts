import type { IncomingHttpHeaders } from 'node:http';

/**
 * The token of a Bearer header. X-Esri-Authorization comes first: it is the header ArcGIS clients move the token into,
 * while Authorization may belong to a web tier in front of the service.
 */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  for (const header of ['x-esri-authorization', 'authorization']) {
    const value = headers[header];
    const m = typeof value === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
    if (m) return m[1];
  }
  return undefined;
}

/**
 * A request's token, the ways ArcGIS clients send it: the `token` parameter (query string or body) first, then a
 * Bearer header. Every route that authenticates (the API's guard, the body parser's early check, the dashboards)
 * reads it here, so they agree on which token a request carries.
 */
export function requestToken(params: Record<string, unknown> | undefined, headers: IncomingHttpHeaders): string | undefined {
  const param = params?.token;
  if (typeof param === 'string' && param) return param;
  return bearerToken(headers);
}
