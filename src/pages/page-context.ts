import { can, isFullAdmin, Privilege } from '../core/auth/caller';
import { AppConfig } from '../core/config/env';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { Links } from './html';
import { PageContext } from './layout';

/** The public path of {CONTEXT_PATH}, where every page's URL starts: PUBLIC_URL's path, then CONTEXT_PATH. */
export function pagesBase(config: Pick<AppConfig, 'contextPath' | 'publicUrl'>): string {
  const publicPath = config.publicUrl ? new URL(config.publicUrl).pathname.replace(/\/+$/, '') : '';
  return publicPath + config.contextPath;
}

/**
 * Links, user and own path of the page a request asks for. A page opened with `?token=` is drawn for that token, but
 * nothing carries it on: links, forms and scripts act only through the page session of the pages' own sign-in.
 */
export function pageContext(req: ArcgisRequest, config: Pick<AppConfig, 'contextPath' | 'publicUrl'>): PageContext {
  const url = req.originalUrl ?? req.url;
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).slice(config.contextPath.length) || '/';
  return {
    links: new Links(pagesBase(config)),
    username: req.caller?.username,
    csrf: req.pageSession?.csrf,
    admin: can(req.caller, Privilege.AdminViewUsers),
    fullAdmin: !!req.caller && isFullAdmin(req.caller),
    path,
  };
}
