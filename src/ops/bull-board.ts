import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { pinoHttp } from 'pino-http';
import { isFullAdmin } from '../core/auth/caller';
import { AppConfig } from '../core/config/env';
import { ArcgisError } from '../core/errors/arcgis-error';
import { JobQueueService } from '../core/jobs/job-queue.service';
import { requestLogOptions } from '../core/logging/logging.module';
import { originOf } from '../identity/token-binding';
import { TokenService } from '../identity/token.service';
import { bearerToken } from '../core/http/token';

const COOKIE = 'board_token';

/** A malformed escape is a cookie we did not set: no token, rather than a URIError and a 500. */
function decodeCookie(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

function tokenOf(req: Request): { token?: string; fromQuery: boolean } {
  const q = typeof req.query.token === 'string' ? req.query.token : undefined;
  if (q) return { token: q, fromQuery: true };
  const bearer = bearerToken(req.headers);
  const cookie = req.headers.cookie
    ?.split(';')
    .map((c) => c.trim().split('='))
    .find(([k]) => k === COOKIE)?.[1];
  return { token: bearer ?? (cookie ? decodeCookie(cookie) : undefined), fromQuery: false };
}

/**
 * The board is an operator's page that acts on every job with a click: no other site may frame it (clickjacking).
 * Only frame-ancestors is set, so the board's own scripts and styles load as its release ships them.
 */
function frameOut(_req: Request, res: Response, next: NextFunction) {
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
  next();
}

/**
 * Bull Board for organisation administrators, in the API process only (the worker has no HTTP). Open it once as
 * `<path>?token=<admin token>`; the token is then kept in an HttpOnly cookie scoped to the board's path. Express
 * answers it before the Nest routes and their request log, so it gets a request log of its own with the same options.
 */
export function mountBullBoard(app: INestApplication, config: AppConfig): void {
  const path = `${config.contextPath}/admin/queues`;
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(path);
  createBullBoard({
    queues: app
      .get(JobQueueService)
      .allQueues()
      .map((q) => new BullMQAdapter(q)),
    serverAdapter,
  });
  const tokens = app.get(TokenService);
  const guard = async (req: Request, res: Response, next: NextFunction) => {
    const { token, fromQuery } = tokenOf(req);
    const deny = (status: number, message: string) =>
      res.status(status).json({ error: { code: status === 401 ? 499 : 403, message, details: [] } });
    if (!token) return deny(401, 'Token Required');
    try {
      const caller = await tokens.resolve(token, originOf(req));
      // The board retries, removes and cleans every user's jobs: full administration, not any one admin privilege.
      if (!isFullAdmin(caller)) return deny(403, 'Only organisation administrators may open the queue dashboard.');
      if (fromQuery) res.cookie(COOKIE, token, { httpOnly: true, sameSite: 'strict', path, secure: req.secure });
      next();
    } catch (e) {
      if (e instanceof ArcgisError) return deny(401, e.message);
      next(e);
    }
  };
  app.use(path, pinoHttp(requestLogOptions(config)), frameOut, guard, serverAdapter.getRouter());
}
