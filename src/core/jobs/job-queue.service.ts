import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { JobsOptions, Queue } from 'bullmq';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { DEFAULT_JOB_OPTIONS, JOB_KINDS, JobKind, queuesOf } from './job-contract';

/** BullMQ needs its own connections (blocking commands); these follow REDIS_URL. */
export function bullConnection(config: AppConfig) {
  const u = new URL(config.redisUrl);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username || undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/** The producer side: the API enqueues through here only; processors live in the worker (JobRunner). */
@Injectable()
export class JobQueueService implements OnApplicationShutdown {
  private readonly queues = new Map<string, Queue>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_KINDS) private readonly kinds: readonly JobKind[],
  ) {}

  queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, {
        connection: bullConnection(this.config),
        prefix: this.config.queuePrefix,
        defaultJobOptions: DEFAULT_JOB_OPTIONS,
      });
      this.queues.set(name, q);
    }
    return q;
  }

  allQueues(): Queue[] {
    return queuesOf(this.kinds).map((n) => this.queue(n));
  }

  /**
   * The payload is the row's id only: the worker reads the row. The BullMQ job id is that id too, so a repeated
   * enqueue of the same row is a no-op.
   */
  async enqueue(kind: JobKind, jobId: string, opts: JobsOptions = {}): Promise<void> {
    await this.queue(kind.queue).add(kind.type, { jobId }, { jobId, ...opts });
  }

  async remove(queue: string, jobId: string): Promise<void> {
    const job = await this.queue(queue).getJob(jobId);
    // An active job is locked by its worker; the worker sees the cancelled row and stops.
    await job?.remove().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
