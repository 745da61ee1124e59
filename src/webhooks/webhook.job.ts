import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { InvalidInputError } from '../core/errors/invalid-input';
import { defineJob, JobContext, JobHandler } from '../core/jobs/job-contract';
import { JobQueueService } from '../core/jobs/job-queue.service';
import { Periodic } from '../core/periodic';
import { delivery } from './webhook-payload';
import { sendWebhook, WebhookRefused } from './webhook-sender';
import { DeliveryRow, WebhookRow, WebhooksRepository } from './webhooks.repository';

export interface WebhookJobParams {
  webhookId: string;
}

function webhookJobParams(raw: unknown): WebhookJobParams {
  const id = (raw as { webhookId?: unknown } | null)?.webhookId;
  if (typeof id !== 'string' || !/^[0-9a-f]{32}$/.test(id)) throw new InvalidInputError('webhookId must be a webhook id.');
  return { webhookId: id };
}

/** One round of a webhook's deliveries: its pending ones, oldest first, one at a time, so each item's events keep their order. */
export const WebhookJob = defineJob<WebhookJobParams>({
  type: 'webhook',
  queue: 'webhooks',
  params: webhookJobParams,
  cancelPollMs: 5000,
  permanent: (e) => e instanceof InvalidInputError,
  handler: () => WebhookJobHandler,
});

const DISPATCH_BATCH = 500;
const PURGE_EVERY_MS = 3600_000;

@Injectable()
export class WebhookJobHandler implements JobHandler<WebhookJobParams>, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  /**
   * Aborted as the worker shuts down, before the job runner waits for its running jobs: a round stops between
   * attempts instead of holding the shutdown through its retry delays, and the deliveries it left pending get the
   * next round (the dispatcher queues one for a webhook with pending deliveries and none queued).
   */
  private readonly stopping = new AbortController();

  onModuleDestroy(): void {
    this.stopping.abort();
  }

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: WebhooksRepository,
  ) {}

  async run({ webhookId }: WebhookJobParams, ctx: JobContext): Promise<void> {
    const signal = AbortSignal.any([ctx.signal, this.stopping.signal]);
    for (;;) {
      const w = await this.repo.byId(webhookId);
      if (!w || !w.is_active || signal.aborted) return;
      const d = await this.repo.nextPending(webhookId);
      if (!d) return;
      await this.deliver(w, d, signal);
    }
  }

  /**
   * Tries up to notificationAttempts times (at least once), waiting notificationElapsedTimeInSeconds, then twice
   * that, and so on; a delivery that never succeeds is marked failed and may deactivate the webhook.
   */
  private async deliver(w: WebhookRow, d: DeliveryRow, signal: AbortSignal): Promise<void> {
    const s = await this.repo.settings(w.org_id);
    const tries = Math.max(1, s.notificationAttempts);
    for (let attempt = 1; attempt <= tries; attempt++) {
      const { body, headers } = delivery(this.config, w, [d.event], d.event_id, d.delivery_id);
      let status: number | null = null;
      let text: string;
      let ok = false;
      try {
        const r = await sendWebhook(w.payload_url, body, headers, this.config.webhooks, s.notificationTimeOutInSeconds * 1000);
        ({ status, text, ok } = r);
      } catch (e) {
        text = (e as Error).message;
        if (e instanceof WebhookRefused) attempt = tries;
      }
      const last = ok || attempt >= tries;
      await this.repo.attempted(d.id, ok ? 'delivered' : last ? 'failed' : 'pending', status, text);
      if (ok) return;
      if (last) break;
      await sleep(s.notificationElapsedTimeInSeconds * 1000 * 2 ** (attempt - 1), signal);
      if (signal.aborted) return;
    }
    await this.maybeDeactivate(w);
  }

  private async maybeDeactivate(w: WebhookRow): Promise<void> {
    const policy = w.config.deactivationPolicy;
    if (!policy) return;
    if ((await this.repo.failuresSince(w.id, policy.daysInPast)) < policy.numberOfFailures) return;
    if (await this.repo.setActive(null, w.id, false))
      this.logger.warn(
        `webhook ${w.id} (${w.name}) deactivated: ${policy.numberOfFailures} failed deliveries within ${policy.daysInPast} days`,
      );
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

/**
 * In every worker: moves committed outbox events to deliveries and queues a delivery job per webhook with pending
 * ones. Polling the outbox (not a notification from the API) is what delivers an event whose API died right after
 * committing it.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly pass = new Periodic(
    () => this.dispatch(),
    (e) => this.logger.warn(`dispatch failed: ${e.message}`),
  );
  private readonly purge = new Periodic(
    () => this.repo.purge(this.config.webhooks.historyDays, WebhookJob.type),
    (e) => this.logger.warn(`purge failed: ${e.message}`),
  );

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: WebhooksRepository,
    private readonly queue: JobQueueService,
  ) {}

  onApplicationBootstrap(): void {
    this.pass.start(this.config.webhooks.dispatchMs);
    this.purge.start(PURGE_EVERY_MS, 60_000);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.pass.stop(), this.purge.stop()]);
  }

  async dispatch(): Promise<void> {
    while ((await this.repo.dispatch(DISPATCH_BATCH)) === DISPATCH_BATCH);
    for (const id of await this.repo.newDeliveryJobs(WebhookJob.type)) await this.queue.enqueue(WebhookJob, id, { attempts: 1 });
  }
}
