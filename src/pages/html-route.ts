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

/**
 * `f=html` on a service, a layer, a layer's query, an item, a group, a user's content or generateToken is the same URL
 * as its JSON, and Express picks a route by path alone; this sends such requests to the directory's routes before
 * routing. The JSON controllers stay as they are, and a request without `f=html` costs one comparison. Runs after the
 * body parser, so a POSTed form's `f` counts too.
 */
export function htmlRouting(contextPath: string) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    if (homePage(req as ArcgisRequest, contextPath, path, q)) return next();
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

/** `{CONTEXT_PATH}/home/<name>.html`: the portal's own pages (group, webhooks, users), which have no JSON twin. */
const HOME_PAGE = /^\/home\/([a-z]{1,32})\.html$/;

/**
 * A home page read (GET or HEAD) is a page whatever `f` says: it is served from the pages' routes as `f=html`, so the
 * page session's read rule (page-session.ts) applies to it as to every other page.
 */
function homePage(req: ArcgisRequest, contextPath: string, path: string, q: number): boolean {
  if (!path.startsWith(contextPath) || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  const m = HOME_PAGE.exec(path.slice(contextPath.length));
  if (!m || !req.arcParams) return false;
  req.arcParams.f = 'html';
  req.url = `${contextPath}/${PORTAL_HTML_ROUTES}/home/${m[1]}${q < 0 ? '' : req.url.slice(q)}`;
  return true;
}
