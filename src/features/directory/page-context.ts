import { AppConfig } from '../../core/config/env';
import { ArcgisRequest } from '../../core/http/arcgis-request';
import { Links } from './html';
import { PageContext } from './layout';

/**
 * Links, user and own path of the page a request asks for. Only a `token` parameter is carried into links: a token
 * sent in a header belongs to a client that sends it again, and copying it into URLs would spread it.
 */
export function pageContext(req: ArcgisRequest, config: Pick<AppConfig, 'contextPath' | 'publicUrl'>): PageContext {
  const publicPath = config.publicUrl ? new URL(config.publicUrl).pathname.replace(/\/+$/, '') : '';
  const token = req.caller && typeof req.arcParams?.token === 'string' ? req.arcParams.token : undefined;
  const url = req.originalUrl ?? req.url;
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).slice(config.contextPath.length) || '/';
  return { links: new Links(publicPath + config.contextPath, token || undefined), username: req.caller?.username, path };
}
