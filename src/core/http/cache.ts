import type { NextFunction, Request, Response } from 'express';
import { ArcgisRequest } from './arcgis-request';

/** Set by the error filter (and body refusals): ArcGIS errors are HTTP 200, so the status alone does not tell. */
export const ERROR_REPLY = 'arcgisErrorReply';

const KEEP_VALIDATORS = 'arcgisKeepValidators';

/**
 * A file download keeps its ETag even when the request is signed in: nothing may store it, but a client resuming a
 * large download sends If-Range with that ETag, and the route has already checked that the caller may read the item.
 */
export function keepValidators(res: Response): void {
  res.locals[KEEP_VALIDATORS] = true;
}

/** Whether the request carries anything that can make its answer personal: a token, an auth header, a cookie. */
export function presentsCredentials(req: Request): boolean {
  const h = req.headers;
  if (h.authorization || h['x-esri-authorization'] || h.cookie) return true;
  const params = (req as ArcgisRequest).arcParams;
  if (params?.token) return true;
  // Before the body parser ran (Bull Board, refused bodies): the raw query string.
  return /[?&](?:token|%74oken)=/i.test(req.originalUrl ?? req.url);
}

function decide(req: Request, res: Response): void {
  const error = res.locals?.[ERROR_REPLY] === true || res.statusCode >= 400;
  const personal = presentsCredentials(req);
  if (error || personal) {
    // A cached 499 served to a later signed-in open, or private features to an anonymous layer (QGIS keys its cache
    // by URL alone): such replies are stored nowhere, and their ETag would only invite a revalidation.
    res.setHeader('Cache-Control', personal ? 'private, no-store' : 'no-store');
    if (error || res.locals?.[KEEP_VALIDATORS] !== true) res.removeHeader('ETag');
    return;
  }
  if (!res.getHeader('Cache-Control')) {
    // Anonymous public data: a cache may keep it but must ask every time; the ETag makes that a 304 when unchanged,
    // and the answer is computed for whoever asks, so a signed-in revalidation never gets an anonymous body it lacks.
    res.setHeader('Cache-Control', 'no-cache');
  }
  res.vary('Authorization');
  res.vary('X-Esri-Authorization');
}

/**
 * Decides Cache-Control when the headers go out, whichever code path wrote the reply (handlers, the error filter,
 * streamed files, Bull Board), so no path can forget it. Node has no hook at that moment besides writeHead.
 */
export function cachePolicy() {
  return (req: Request, res: Response, next: NextFunction) => {
    const writeHead = res.writeHead;
    res.writeHead = function (this: Response, ...args: unknown[]) {
      if (typeof args[0] === 'number') res.statusCode = args[0];
      if (res.statusCode !== 304) decide(req, res);
      return (writeHead as (...a: unknown[]) => Response).apply(this, args);
    } as typeof res.writeHead;
    next();
  };
}

/** What a handler returns when the client's copy is current (publicReply): the format interceptor sends a bodiless 304. */
export class NotModified {}

/** Lets a handler of public data give shared caches (a CDN, nginx's proxy_cache) a lifetime and a validator. */
export interface PublicReply {
  /**
   * Marks the reply cacheable by anyone for `maxAgeS` seconds (0: each use revalidated) with the strong validator
   * `etag`; true when the request's If-None-Match already names it, so the handler answers NotModified unbuilt.
   */
  validate(etag: string | undefined, maxAgeS: number): boolean;
}

/**
 * A PublicReply for an anonymous read whose answer the URL alone decides (GET or HEAD, no credentials, no body); else
 * undefined, and the reply stays as decide() makes it. Caches key on the URL, so only such a request may set one.
 */
export function publicReply(req: Request, res: Response): PublicReply | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  if (presentsCredentials(req) || req.headers['transfer-encoding'] || Number(req.headers['content-length'] ?? 0) > 0) return undefined;
  return {
    validate(etag, maxAgeS) {
      res.setHeader('Cache-Control', maxAgeS > 0 ? `public, max-age=${maxAgeS}` : 'no-cache');
      // decide() adds these to a 200; a 304 carries the headers the 200 would have (RFC 9110 15.4.5).
      res.vary('Authorization');
      res.vary('X-Esri-Authorization');
      if (!etag) return false;
      res.setHeader('ETag', etag);
      // Express's own test against the ETag just set: If-None-Match, and no-cache in the request forcing a full reply.
      return req.fresh;
    },
  };
}
