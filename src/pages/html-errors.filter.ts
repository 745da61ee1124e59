import { ArgumentsHost, Catch, ExceptionFilter, Inject } from '@nestjs/common';
import type { Response } from 'express';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisError, Errors } from '../core/errors/arcgis-error';
import { InvalidInputError } from '../core/errors/invalid-input';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { ERROR_REPLY } from '../core/http/cache';
import { HTML_HEADERS } from '../core/http/html-reply';
import { sendErrorReply } from '../core/errors/arcgis-exception.filter';
import { pageContext } from './page-context';
import { errorBox, page } from './layout';

/**
 * A directory page's errors as a page, as ArcGIS's directory shows them: the same messages the JSON routes give
 * (a private service to an anonymous visitor asks for a token; to a signed-in one it does not exist), HTTP 200 like
 * the envelope. Anything other than a domain error goes on to the API's filter, which logs it.
 */
@Catch(ArcgisError, InvalidInputError)
export class HtmlErrorsFilter implements ExceptionFilter {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  catch(exception: ArcgisError | InvalidInputError, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<ArcgisRequest>();
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const e = exception instanceof ArcgisError ? exception : Errors.badRequest(exception.summary, exception.details);
    if (!this.wantsHtml(req)) return sendErrorReply(req, res, e);
    const ctx = pageContext(req, this.config);
    const reply = page(ctx, {
      title: `Error: ${e.message}`,
      crumbs: [],
      json: false,
      body: errorBox(e),
      errorCode: e.code,
    });
    res.locals[ERROR_REPLY] = true;
    res.status(200).set(HTML_HEADERS).send(reply.html);
  }

  /** Routes that only ever answer pages. */
  protected wantsHtml(_req: ArcgisRequest): boolean {
    return true;
  }
}

/** Routes that answer JSON unless asked for `f=html` (the catalog). */
@Catch(ArcgisError, InvalidInputError)
export class HtmlWhenAskedErrorsFilter extends HtmlErrorsFilter {
  protected override wantsHtml(req: ArcgisRequest): boolean {
    return req.arcParams?.f === 'html';
  }
}
