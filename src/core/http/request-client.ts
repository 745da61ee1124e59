import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Observable } from 'rxjs';
import { ArcgisRequest } from './arcgis-request';
import { clientNetwork } from './client-network';

const current = new AsyncLocalStorage<{ key: string; closed: AbortSignal }>();

/** Who a per-client limit counts: the signed-in user, or for anonymous callers their address's network (IPv6 /64). */
export function clientKey(userId: string | undefined, ip: string | undefined): string {
  return userId ? `user:${userId}` : `net:${clientNetwork(ip ?? 'unknown')}`;
}

/** Whether a client key is an anonymous caller's network rather than a signed-in user. */
export function isAnonymousClient(key: string): boolean {
  return key.startsWith('net:');
}

/** The client the running request acts for; work outside a request (start-up, timers) counts as one 'internal' client. */
export function currentClient(): string {
  return current.getStore()?.key ?? 'internal';
}

/** Aborted when the running request's client closes its connection before the answer is sent; none outside requests. */
export function requestClosed(): AbortSignal | undefined {
  return current.getStore()?.closed;
}

/**
 * Runs every handler inside its client's context, so the connection gates (core/database) can count a request's
 * connections against its client without each service passing the client down, and drop its turn when the client
 * has gone. Registered after the request guard has resolved the caller.
 */
@Injectable()
export class RequestClientInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<ArcgisRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const key = clientKey(req.caller?.userId, req.ip);
    const closed = new AbortController();
    res.once('close', () => res.writableFinished || closed.abort());
    // The handler runs when the stream is subscribed, so the subscription is what must happen inside the context.
    return new Observable((sub) => current.run({ key, closed: closed.signal }, () => next.handle().subscribe(sub)));
  }
}
