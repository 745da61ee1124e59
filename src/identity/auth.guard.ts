import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Errors } from '../core/errors/arcgis-error';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { assertArcgisRequest } from '../core/http/format';
import type { Response } from 'express';
import { FORMATS_KEY, GET_POST_KEY, NOT_ARCGIS_KEY, PAGE_LINK_KEY, PUBLIC_KEY } from '../core/http/decorators';
import { requestToken } from '../core/http/token';
import { PageSessions } from './page-sessions';
import { originOf } from './token-binding';
import { TokenService } from './token.service';

/** The token from `token` (query or body) or a Bearer header, the ways the client sends it. */
export function readToken(req: ArcgisRequest): string | undefined {
  return requestToken(req.arcParams, req.headers);
}

/**
 * A sent token must be valid everywhere (498), even on public routes, so an expired session is noticed and refreshed;
 * routes without @Public() need one (499). Without a token, the pages' session cookie may stand for one where
 * page-session.ts allows it; a sent token always wins, so API clients never meet the cookie.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenService,
    private readonly sessions: PageSessions,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(NOT_ARCGIS_KEY, targets)) return true;
    const req = ctx.switchToHttp().getRequest<ArcgisRequest>();
    if (this.reflector.getAllAndOverride<boolean>(GET_POST_KEY, targets) && !['GET', 'POST', 'HEAD'].includes(req.method)) {
      throw Errors.invalidUrl(req.path);
    }
    assertArcgisRequest(req, this.reflector.getAllAndOverride<string[]>(FORMATS_KEY, targets));
    const token = readToken(req);
    if (token) req.caller = await this.tokens.resolve(token, originOf(req));
    else {
      const pageLink = !!this.reflector.getAllAndOverride<boolean>(PAGE_LINK_KEY, targets);
      await this.sessions.authenticate(req, ctx.switchToHttp().getResponse<Response>(), pageLink);
    }
    if (!req.caller && !this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) throw Errors.tokenRequired();
    return true;
  }
}
