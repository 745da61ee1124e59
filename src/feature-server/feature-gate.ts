import { Inject, Injectable } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ConnectionGate } from '../core/database/connection-gate';
import { currentClient } from '../core/http/request-client';

/**
 * Every read of layer data (queries, layer info with its extent scans) goes through `run`, which holds one of the
 * feature pool's connections for the request: no user holds more than QUERY_CLIENT_SHARE of them, no anonymous
 * network more than one, and anonymous requests together hold at most all but two, so a flood of slow public
 * requests from one address leaves room for other readers and always for signed-in callers. Beyond that a request
 * waits as long as a query may run, then gets a 503 envelope. Edits come here too (signed-in only: they are refused
 * without a caller before the feature pool is touched), so one editor's deletes by a slow where clause wait their turn.
 */
@Injectable()
export class FeatureGate {
  private readonly gate: ConnectionGate;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { poolSize, clientShare, timeoutMs } = config.query;
    // An anonymous network runs one query at a time: a public map's page is quick, and a network's slow clauses then
    // take one core, not QUERY_CLIENT_SHARE of them, while sign-in and the other readers share the rest.
    const anonymous = { capacity: Math.max(1, poolSize - 2), share: 1 };
    this.gate = new ConnectionGate({ capacity: poolSize, share: clientShare, waitMs: timeoutMs, anonymous });
  }

  run<T>(caller: Caller | undefined, fn: () => Promise<T>): Promise<T> {
    return this.gate.run(currentClient(), fn, !caller);
  }
}
