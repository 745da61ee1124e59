import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Observable } from 'rxjs';
import { ArcgisRequest } from './arcgis-request';
import { clientNetwork } from './client-network';

const current = new AsyncLocalStorage<string>();

/** Who a per-client limit counts: the signed-in user, or for anonymous callers their address's network (IPv6 /64). */
export function clientKey(userId: string | undefined, ip: string | undefined): string {
  return userId ? `user:${userId}` : `net:${clientNetwork(ip ?? 'unknown')}`;
}

/** The client the running request acts for; work outside a request (start-up, timers) counts as one 'internal' client. */
export function currentClient(): string {
  return current.getStore() ?? 'internal';
}

/**
 * Runs every handler inside its client's context, so the connection gates (core/database) can count a request's
 * connections against its client without each service passing the client down. Registered after the request guard
 * has resolved the caller.
 */
@Injectable()
export class RequestClientInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<ArcgisRequest>();
    const key = clientKey(req.caller?.userId, req.ip);
    // The handler runs when the stream is subscribed, so the subscription is what must happen inside the context.
    return new Observable((sub) => current.run(key, () => next.handle().subscribe(sub)));
  }
}
