import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Periodic } from '../core/periodic';
import { IdentityRepository } from './identity.repository';

const BATCH = 1000;
/** Per run: a backlog larger than this (a year of tokens, say) is worked off over several intervals, not in one go. */
const MAX_BATCHES = 50;

/**
 * Deletes expired tokens every TOKEN_PURGE_INTERVAL_S in each API process. Expired tokens are already refused;
 * this keeps the table (and its unique index, probed on every request) from growing without end.
 */
@Injectable()
export class TokenPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TokenPurger.name);
  private readonly periodic = new Periodic(
    () => this.run(),
    (e) => this.logger.warn(`token purge failed: ${e.message}`),
  );

  constructor(
    private readonly repo: IdentityRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.periodic.start(this.config.tokenPurgeIntervalS * 1000);
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  /** Returns how many tokens were deleted; a run still going is joined rather than doubled. */
  purge(): Promise<number> {
    return this.periodic.run();
  }

  private async run(): Promise<number> {
    let total = 0;
    try {
      for (let i = 0; i < MAX_BATCHES; i++) {
        const n = await this.repo.purgeExpiredTokens(BATCH);
        total += n;
        if (n < BATCH) break;
      }
      if (total) this.logger.log(`purged ${total} expired tokens`);
    } catch (e) {
      this.logger.warn(`token purge failed, will retry next interval: ${(e as Error).message}`);
    }
    return total;
  }
}
