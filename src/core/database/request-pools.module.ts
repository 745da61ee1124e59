import { Global, Inject, Injectable, Module } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { Errors } from '../errors/arcgis-error';
import { clientKey, currentClient } from '../http/request-client';
import { ConnectionGate } from './connection-gate';

/** Sign-in, token checks and /health: `@InjectDataSource(AUTH_DB)`. */
export const AUTH_DB = 'auth';
/** Searches, content listings and the pages' lists: `@InjectDataSource(LISTING_DB)`. */
export const LISTING_DB = 'listing';

/** Longest a sign-in or token-check statement runs, and waits for its connection: each is one indexed lookup. */
export const AUTH_TIMEOUT_MS = 5000;

/**
 * A request pool's options: its size, and a statement timeout that is also the longest wait for a connection, sent as
 * session settings at connect so they cost no round trip per statement. No parallel workers: they are backends
 * outside the pool, so one request's scan could take more cores than its client's share. `settings` adds more.
 */
export function requestPoolOptions(config: AppConfig, name: string, max: number, timeoutMs: number, settings = ''): DataSourceOptions {
  return {
    type: 'postgres',
    name,
    url: config.databaseUrl,
    entities: [],
    synchronize: false,
    migrationsRun: false,
    extra: {
      max,
      connectionTimeoutMillis: timeoutMs,
      options: `-c statement_timeout=${timeoutMs} -c max_parallel_workers_per_gather=0${settings}`,
    },
  };
}

/**
 * The auth pool: sign-in and token checks may hold all but one of its connections (the last is /health's), one
 * address at most all but two. Nothing else runs on it, so no search, listing or feature query can take what they need.
 */
@Injectable()
export class AuthDatabase {
  private readonly gate: ConnectionGate;

  constructor(
    @InjectDataSource(AUTH_DB) readonly db: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const size = config.auth.poolSize;
    // Every request behind one address (a crowd behind a NAT, a proxy that is not trusted) checks its token here, so
    // an address's requests may all wait: its share keeps a connection for the others, the wait bounds how long.
    this.gate = new ConnectionGate({ capacity: size - 1, share: Math.max(1, size - 2), waitMs: AUTH_TIMEOUT_MS, maxWaiting: Infinity });
  }

  /** Runs `fn` (statements on `db`) within the share of the address `ip`: the caller is not known before its token is. */
  run<T>(ip: string | undefined, fn: () => Promise<T>): Promise<T> {
    return this.gate.run(clientKey(undefined, ip), fn);
  }
}

/**
 * The listing pool: statements whose cost a request chooses (search terms, a window count over every visible item),
 * cut after SEARCH_TIMEOUT_MS, with each client (user, or anonymous network) holding at most SEARCH_CLIENT_SHARE, and
 * anonymous networks together all but one connection, so signed-in users always find one however many addresses search.
 */
@Injectable()
export class ListingDatabase {
  private readonly gate: ConnectionGate;

  constructor(
    @InjectDataSource(LISTING_DB) private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const { poolSize, clientShare, timeoutMs } = config.search;
    const anonymous = { capacity: Math.max(1, poolSize - 1), share: clientShare };
    this.gate = new ConnectionGate({ capacity: poolSize, share: clientShare, waitMs: timeoutMs, anonymous });
  }

  async query<T>(sql: string, values: unknown[]): Promise<T[]> {
    try {
      return await this.gate.run(currentClient(), () => this.db.query<T[]>(sql, values));
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      // 57014: statement_timeout; the request's own cost, answered as such (never a 500 with the SQL).
      if (code === '57014') {
        throw Errors.badRequest('Unable to complete operation.', [
          `The search took longer than ${this.config.search.timeoutMs} ms (the server's limit); use fewer or longer terms.`,
        ]);
      }
      // 2201B: a pattern the regex engine refuses (too complex); the terms are escaped, so only their size can do it.
      if (code === '2201B')
        throw Errors.badRequest('Unable to complete operation.', ['The search terms are too complex; use fewer terms.']);
      throw e;
    }
  }
}

/** The API's request pools besides the main one and the feature pool (the worker loads neither); imported once, by the app. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      name: AUTH_DB,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => ({
        ...requestPoolOptions(c, AUTH_DB, c.auth.poolSize, AUTH_TIMEOUT_MS),
        retryAttempts: 3,
        retryDelay: 1000,
      }),
    }),
    TypeOrmModule.forRootAsync({
      name: LISTING_DB,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => ({
        ...requestPoolOptions(c, LISTING_DB, c.search.poolSize, c.search.timeoutMs),
        retryAttempts: 3,
        retryDelay: 1000,
      }),
    }),
  ],
  providers: [AuthDatabase, ListingDatabase],
  exports: [AuthDatabase, ListingDatabase],
})
export class RequestPoolsModule {}
