import { Inject, Injectable } from '@nestjs/common';
import type { CookieOptions, Response } from 'express';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisError, Errors } from '../core/errors/arcgis-error';
import { ArcgisRequest, publicRoot } from '../core/http/arcgis-request';
import { validateParams } from '../core/http/params.decorator';
import { GenerateTokenDto } from './identity.dto';
import { cookieMayAuthenticate, CSRF_HEADER, csrfMatches, csrfOf, fromOwnPages, SESSION_COOKIE, sessionCookie } from './page-session';
import { originOf } from './token-binding';
import { TokenService } from './token.service';

/** The lifetimes the sign-in form offers, in minutes; anything else is the first. */
export const SIGN_IN_MINUTES = [60, 480, 1440];

/** The form's fields, as posted. */
export interface SignInForm {
  username?: string;
  password?: string;
  expiration?: string;
}

/**
 * Starts, reads and ends the pages' sessions (see page-session.ts for the rules). The token is made by the same
 * generateToken code as any client's, bound to the address as client=requestip is, so it is throttled, expires, and is
 * revoked alike; its client is `page` (PAGE_CLIENT), so it counts only as this cookie and the cookie only as it.
 */
@Injectable()
export class PageSessions {
  constructor(
    private readonly tokens: TokenService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private root(req: ArcgisRequest): URL {
    return new URL(`${publicRoot(req, this.config)}/`);
  }

  /** Path: the deployment's public path, so the cookie goes to no other application on the host. */
  private cookieOptions(req: ArcgisRequest): CookieOptions {
    const root = this.root(req);
    return { httpOnly: true, sameSite: 'strict', secure: root.protocol === 'https:', path: root.pathname.replace(/\/$/, '') || '/' };
  }

  /** Whether the browser says this form was posted by one of our pages (a sign-in or sign-out from elsewhere is not). */
  fromOwnPages(req: ArcgisRequest): boolean {
    return fromOwnPages(req.headers, this.root(req).origin, false);
  }

  /**
   * Sets `req.caller` from the cookie where the rules allow it. A session whose token no longer holds (expired,
   * revoked, another address) is dropped, and the visitor is anonymous; a stale CSRF value is a 498, so a page's script
   * says its session changed instead of acting anonymously.
   */
  async authenticate(req: ArcgisRequest, res: Response, pageLink: boolean): Promise<void> {
    const token = sessionCookie(req.headers);
    if (!token) return;
    const use = cookieMayAuthenticate({
      method: req.method,
      headers: req.headers,
      ownOrigin: this.root(req).origin,
      page: req.arcParams?.f === 'html',
      pageLink,
    });
    if (!use) return;
    if (use === 'csrf' && !csrfMatches(token, req.headers[CSRF_HEADER])) {
      throw new ArcgisError(498, 'Invalid token.', ["The page's session has ended or changed; reload the page."]);
    }
    try {
      req.caller = await this.tokens.resolve(token, originOf(req), 'page-cookie');
      req.pageSession = { csrf: csrfOf(token) };
    } catch (e) {
      if (!(e instanceof ArcgisError)) throw e;
      res.clearCookie(SESSION_COOKIE, this.cookieOptions(req));
    }
  }

  /**
   * Signs in from the page's form: a token as generateToken makes it, set as the cookie for the browser session (the
   * token's own expiry bounds it). A session the browser had before is revoked, so signing in again leaves no live
   * token behind. Refusals are generateToken's (400 envelope error, throttling included).
   */
  async signIn(req: ArcgisRequest, res: Response, form: SignInForm): Promise<void> {
    if (!this.fromOwnPages(req)) throw Errors.forbidden('Sign in from the sign-in page of this site.');
    const minutes = SIGN_IN_MINUTES.find((m) => String(m) === form.expiration) ?? SIGN_IN_MINUTES[0];
    const p = validateParams(GenerateTokenDto, {
      username: form.username ?? '',
      password: form.password ?? '',
      client: 'requestip',
      expiration: String(minutes),
    });
    const opts = this.cookieOptions(req);
    const { token } = await this.tokens.generate(p, originOf(req), opts.secure === true, undefined, true);
    await this.revokeQuietly(sessionCookie(req.headers));
    res.cookie(SESSION_COOKIE, token, opts);
  }

  /** Revokes the session's token on the server and clears the cookie; the form must carry the session's CSRF value. */
  async signOut(req: ArcgisRequest, res: Response, csrf: unknown): Promise<void> {
    const token = sessionCookie(req.headers);
    if (token && !(this.fromOwnPages(req) && csrfMatches(token, csrf))) throw Errors.forbidden('Sign out from a page of this site.');
    await this.revokeQuietly(token);
    res.clearCookie(SESSION_COOKIE, this.cookieOptions(req));
  }

  /** Revokes the session's token wherever the browser now is; a token that is no page session's is left be. */
  private async revokeQuietly(token: string | undefined): Promise<void> {
    if (token) await this.tokens.revokePageToken(token);
  }
}
