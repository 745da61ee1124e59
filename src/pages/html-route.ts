import type { NextFunction, Request, Response } from 'express';
import { ArcgisRequest } from '../core/http/arcgis-request';

/** Where the pages of the JSON resources live inside the app; the public URLs stay ArcGIS's own. */
export const HTML_ROUTES = 'arcgis/rest/html/services';
export const PORTAL_HTML_ROUTES = 'sharing/rest/html';

/** Public path (after CONTEXT_PATH) of a resource that has a page, and the internal path of that page. */
const PAGES: [RegExp, (m: RegExpExecArray) => string][] = [
  [
    /^\/arcgis\/rest\/services\/([^/]+)\/FeatureServer(\/\d{1,9}(?:\/query)?)?\/?$/,
    (m) => `/${HTML_ROUTES}/${m[1]}/FeatureServer${m[2] ?? ''}`,
  ],
  [/^\/sharing\/rest\/content\/items\/([^/]+)\/?$/, (m) => `/${PORTAL_HTML_ROUTES}/items/${m[1]}`],
  [/^\/sharing\/rest\/content\/users\/([^/]+)\/?$/, (m) => `/${PORTAL_HTML_ROUTES}/users/${m[1]}`],
  [/^\/sharing\/rest\/community\/groups\/([^/]+)\/?$/, (m) => `/${PORTAL_HTML_ROUTES}/groups/${m[1]}`],
  [/^\/sharing\/rest\/generateToken\/?$/, () => `/${PORTAL_HTML_ROUTES}/signin`],
];

/** The landing page's public paths (after CONTEXT_PATH), where ArcGIS shows its portal directory. */
const LANDING = new Set(['', '/', '/sharing/rest', '/sharing/rest/']);
/** Pages with no JSON of their own: {CONTEXT_PATH}/home/<name>.html. */
const HOME_PAGE = /^\/home\/([a-z]+)\.html$/;

/** A browser's navigation: GET or HEAD, without `f`, asking for HTML by Accept (API clients send `f` or accept JSON). */
function browserAsksHtml(req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if ((req as ArcgisRequest).arcParams?.f !== undefined) return false;
  return /\btext\/html\b/i.test(req.headers.accept ?? '');
}

/**
 * Where a page-only URL goes: the landing page (for a browser; `/` outside CONTEXT_PATH too), the services directory
 * for a browser at the catalog (as ArcGIS's), and the home pages, which are pages whatever the client. Each becomes an
 * `f=html` request, so the page session authenticates it as it does every other page.
 */
function pageOnly(req: Request, res: Response, contextPath: string, path: string): string | undefined {
  const rest = path.startsWith(contextPath) ? path.slice(contextPath.length) : undefined;
  const home = rest === undefined ? null : HOME_PAGE.exec(rest);
  if (home && (req.method === 'GET' || req.method === 'HEAD')) return `${contextPath}/${PORTAL_HTML_ROUTES}/home/${home[1]}`;
  const landing = (rest !== undefined && LANDING.has(rest)) || path === '/';
  const catalog = rest === '/arcgis/rest/services' || rest === '/arcgis/rest/services/';
  if (!landing && !catalog) return undefined;
  // The same URL answers JSON or a page by Accept: caches must keep them apart.
  res.vary('Accept');
  const asked = (req as ArcgisRequest).arcParams?.f === 'html' && landing;
  if (!asked && !browserAsksHtml(req)) return undefined;
  return landing ? `${contextPath}/${PORTAL_HTML_ROUTES}/home/index` : `${contextPath}/arcgis/rest/services`;
}

/**
 * `f=html` on a service, a layer, a layer's query, an item, a group, a user's content or generateToken is the same URL
 * as its JSON, and Express picks a route by path alone; this sends such requests to the directory's routes before
 * routing, as it sends the page-only URLs above. The JSON controllers stay as they are, and any other request costs a
 * few comparisons. Runs after the body parser, so a POSTed form's `f` counts too.
 */
export function htmlRouting(contextPath: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    const target = pageOnly(req, res, contextPath, path);
    if (target) {
      (req as ArcgisRequest).arcParams = { ...(req as ArcgisRequest).arcParams, f: 'html' };
      req.url = `${target}${q < 0 ? '' : req.url.slice(q)}`;
      return next();
    }
    if ((req as ArcgisRequest).arcParams?.f !== 'html') return next();
    if (!path.startsWith(contextPath)) return next();
    const rest = path.slice(contextPath.length);
    for (const [pattern, target] of PAGES) {
      const m = pattern.exec(rest);
      if (m) {
        req.url = `${contextPath}${target(m)}${q < 0 ? '' : req.url.slice(q)}`;
        break;
      }
    }
    next();
  };
}
