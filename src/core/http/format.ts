import { CallHandler, ExecutionContext, Injectable, NestInterceptor, StreamableFile } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { Errors } from '../errors/arcgis-error';
import { ALLOWED_F, ArcgisRequest, isPretty } from './arcgis-request';
import { NotModified, presentsCredentials } from './cache';
import { NOT_ARCGIS_KEY, RAW_KEY } from './decorators';
import { HTML_HEADERS, HtmlReply } from './html-reply';
import { JsonText } from './json-text';

function flag(reflector: Reflector, key: string, ctx: ExecutionContext): boolean {
  return !!reflector.getAllAndOverride<boolean>(key, [ctx.getHandler(), ctx.getClass()]);
}

/**
 * Checks what every ArcGIS operation shares: GET or POST, and `f` json or pjson (missing means json: only the client's
 * raw-file calls leave it out). Called first by the request guard so a bad `f` is reported before anything else.
 */
export function assertArcgisRequest(req: ArcgisRequest, allowed: readonly string[] = ALLOWED_F): void {
  if (req.bodyError) throw req.bodyError;
  if (!['GET', 'POST', 'HEAD'].includes(req.method)) {
    throw Errors.badRequest(`Method ${req.method} is not supported.`, ['Use GET or POST.']);
  }
  const f = req.arcParams?.f;
  if (f !== undefined && f !== '' && !allowed.includes(f)) {
    throw Errors.badRequest(`Invalid value for parameter 'f': '${f}'.`, [`Allowed values of 'f': ${allowed.join(', ')}.`]);
  }
}

/** Writes replies compactly for f=json and indented for f=pjson; a page (f=html, where a route allows it) as HTML. */
@Injectable()
export class FormatInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (flag(this.reflector, RAW_KEY, ctx) || flag(this.reflector, NOT_ARCGIS_KEY, ctx)) return next.handle();
    const req = ctx.switchToHttp().getRequest<ArcgisRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((body) => {
        // A binary reply (f=pbf) carries its own type and length; Nest writes it as it is.
        if (body instanceof StreamableFile) return body;
        if (body instanceof NotModified) {
          res.status(304);
          return undefined;
        }
        if (body instanceof HtmlReply) {
          res.status(200).set(HTML_HEADERS);
          return body.html;
        }
        res.status(200).type('application/json');
        if (body instanceof JsonText) {
          // f=pjson of a prebuilt reply is rare (people reading it): parsing it back is simpler than re-indenting text.
          if (isPretty(req)) return JSON.stringify(JSON.parse(body.text), null, 2);
          // A personal reply keeps no ETag (cache.ts), so the hash Express's send would take of a page of features is
          // skipped: the bytes go out as they are, with their length.
          if (presentsCredentials(req)) return new StreamableFile(body.bytes());
          return body.text;
        }
        return JSON.stringify(body, null, isPretty(req) ? 2 : undefined);
      }),
    );
  }
}
