import type { NextFunction, Request, Response } from 'express';
import { ArcgisRequest } from '../../core/http/arcgis-request';

/** Where the pages of the JSON resources live inside the app; the public URLs stay ArcGIS's own. */
export const HTML_ROUTES = 'arcgis/rest/html/services';

const RESOURCE = /^\/arcgis\/rest\/services\/([^/]+)\/FeatureServer(\/\d{1,9}(?:\/query)?)?\/?$/;

/**
 * `f=html` on a service, a layer or a layer's query is the same URL as its JSON, and Express picks a route by path
 * alone; this sends such requests to the directory's routes before routing. The JSON controllers stay as they are,
 * and a request without `f=html` costs one comparison. Runs after the body parser, so a POSTed form's `f` counts too.
 */
export function htmlRouting(contextPath: string) {
  return (req: Request, _res: Response, next: NextFunction) => {
    if ((req as ArcgisRequest).arcParams?.f !== 'html') return next();
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    if (!path.startsWith(contextPath)) return next();
    const m = RESOURCE.exec(path.slice(contextPath.length));
    if (m) req.url = `${contextPath}/${HTML_ROUTES}/${m[1]}/FeatureServer${m[2] ?? ''}${q < 0 ? '' : req.url.slice(q)}`;
    next();
  };
}
