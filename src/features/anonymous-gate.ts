import { Inject, Injectable } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisError } from '../core/errors/arcgis-error';
import { ByteBudget } from '../core/http/byte-budget';

/**
 * Anonymous requests may hold all but two of the feature pool's connections, so a flood of slow public requests (queries,
 * layer info with its extent scans) always leaves signed-in callers room. Every anonymous use of FeatureDataRepository
 * goes through `run`; edits need not, as they are refused without a caller before the feature pool is touched
 * (FeaturesService.writable). A weighted budget of one unit per request serves as the counting semaphore.
 */
@Injectable()
export class AnonymousGate {
  private readonly slots: ByteBudget;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.slots = new ByteBudget(Math.max(1, config.query.poolSize - 2));
  }

  /** Signed-in callers pass straight through; anonymous ones wait as long as a pool connection may be waited for. */
  async run<T>(caller: Caller | undefined, fn: () => Promise<T>): Promise<T> {
    if (caller) return fn();
    let slot;
    try {
      slot = await this.slots.acquire(1, AbortSignal.timeout(this.config.query.timeoutMs));
    } catch {
      throw new ArcgisError(503, 'Unable to complete operation.', [
        'The server is too busy to answer this request now; try again shortly, or sign in.',
      ]);
    }
    try {
      return await fn();
    } finally {
      slot.release();
    }
  }
}
