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
    if ((req as ArcgisRequest).arcParams?.f !== 'html') return next();
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
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
