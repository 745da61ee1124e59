import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Gauge, Histogram, Metric, MetricValueWithName, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { JobQueueService } from '../core/jobs/job-queue.service';
import { WorkerRegistry } from '../core/jobs/worker-heartbeat';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
/** Seconds; exports of small layers take about a second, large File Geodatabases and publishes many minutes. */
const JOB_BUCKETS = [1, 5, 15, 60, 300, 900, 3600];
/** The database aggregates are recomputed at most this often, however many scrapers (or admins) ask. */
const DB_CACHE_MS = 10_000;

/** Seconds from an event's write to its receiver's answer. */
const WEBHOOK_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];
type WebhookStats = {
  outbox: number;
  deactivated: number;
  by_status: Record<string, number>;
  buckets: number[];
  count: number;
  sum: number;
};
type JobRow = { kind: string; format: string; status: string; count: number; sum: number; buckets: number[] };
type BytesRow = { format: string; bytes: string; count: number };

/**
 * The label for a request: Express's matched route pattern (`/sharing/rest/content/items/:id`), never the URL, so ids
 * do not grow the label set without bound. Requests no route took (404s, bodies refused before routing) share one.
 */
function routeOf(req: Request): string {
  const path = req.route?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}` : 'unmatched';
}

/**
 * Prometheus metrics of this API process, on a registry of its own (several apps may share a process in tests).
 * Job durations and export sizes happen in the workers, which Prometheus does not scrape (they have no HTTP): they
 * are read from the database at scrape time rather than counted in Redis, because the job rows are the source of
 * truth already (a worker killed between finishing a job and incrementing a counter cannot skew them), every API
 * replica reports the same figures, and no worker code has to change. They are deployment-wide: aggregate replicas
 * with max(), not sum().
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly http: Histogram<'method' | 'route' | 'status_code'>;
  private dbCache?: { at: number; jobs: Promise<JobRow[]>; bytes: Promise<BytesRow[]> };

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly queues: JobQueueService,
    private readonly workers: WorkerRegistry,
  ) {
    collectDefaultMetrics({ register: this.registry });
    this.http = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, Express route pattern and status code, from the first byte in to the last byte out.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.queueGauge();
    this.workersGauge();
    this.registry.registerMetric(this.jobDurations() as unknown as Metric);
    this.exportBytesGauge();
    this.webhookMetrics();
  }

  /** Express middleware timing every request; the route is read when the reply has been sent, after routing. */
  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      const end = this.http.startTimer();
      res.once('finish', () => end({ method: req.method, route: routeOf(req), status_code: String(res.statusCode) }));
      next();
    };
  }

  private queueGauge() {
    const queues = this.queues;
    new Gauge({
      name: 'arcgis_queue_jobs',
      help: 'BullMQ jobs per queue and state.',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        await Promise.all(
          queues.allQueues().map(async (q) => {
            const counts = await q.getJobCounts(...QUEUE_STATES).catch(() => undefined);
            if (!counts) return;
            for (const state of QUEUE_STATES) this.set({ queue: q.name, state }, counts[state] ?? 0);
          }),
        );
      },
    });
  }

  private workersGauge() {
    const workers = this.workers;
    new Gauge({
      name: 'arcgis_workers_alive',
      help: 'Worker processes whose heartbeat has not run out.',
      registers: [this.registry],
      async collect() {
        this.reset();
        const alive = await workers.alive().catch(() => undefined);
        if (alive !== undefined) this.set(alive);
      },
    });
  }

  private exportBytesGauge() {
    const rows = () => this.fromDb().bytes;
    new Gauge({
      name: 'arcgis_export_bytes',
      help: 'Bytes of completed export results still stored, by format (deleting an export item lowers it).',
      labelNames: ['format'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const r of await rows()) this.set({ format: r.format }, Number(r.bytes));
      },
    });
  }

  /**
   * A histogram whose buckets are counted by PostgreSQL: prom-client's Histogram only grows by observe(), one value at
   * a time, so this is a metric object of its own in the shape the registry prints.
   */
  private jobDurations() {
    const name = 'arcgis_job_duration_seconds';
    const help = 'Finished jobs by kind, format and outcome: seconds from first start to finish (retries included).';
    return {
      name,
      help,
      type: 'histogram',
      reset: () => undefined,
      get: async () => {
        const values: MetricValueWithName<string>[] = [];
        for (const r of await this.fromDb().jobs) {
          const labels = { kind: r.kind, format: r.format, status: r.status };
          JOB_BUCKETS.forEach((le, i) => values.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: r.buckets[i] }));
          values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: r.count });
          values.push({ metricName: `${name}_sum`, labels, value: r.sum });
          values.push({ metricName: `${name}_count`, labels, value: r.count });
        }
        return { name, help, type: 'histogram', values, aggregator: 'max' };
      },
    };
  }

  /**
   * Webhooks, from the tables like the job metrics: deliveries in the kept history by outcome, the outbox's depth,
   * deactivated webhooks, and seconds from the event's write to the receiver's answer of delivered ones.
   */
  private webhookMetrics() {
    let cache: { at: number; rows: Promise<WebhookStats | null> } | undefined;
    const stats = () => {
      if (cache && Date.now() - cache.at < DB_CACHE_MS) return cache.rows;
      const buckets = WEBHOOK_BUCKETS.map((s) => `count(*) FILTER (WHERE status = 'delivered' AND d <= ${s})::int`).join(', ');
      const rows = this.db
        .query(
          `SELECT (SELECT count(*)::int FROM events) AS outbox, (SELECT count(*)::int FROM webhooks WHERE NOT is_active) AS deactivated,
                  (SELECT coalesce(jsonb_object_agg(status, n), '{}') FROM (SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status) s) AS by_status,
                  ARRAY[${buckets}] AS buckets, count(*) FILTER (WHERE status = 'delivered')::int AS count,
                  coalesce(sum(d) FILTER (WHERE status = 'delivered'), 0)::float8 AS sum
             FROM (SELECT status, extract(epoch FROM invoked - occurred)::float8 AS d FROM webhook_deliveries) d`,
        )
        .then(
          (r: WebhookStats[]) => r[0],
          () => ((cache = undefined), null),
        );
      cache = { at: Date.now(), rows };
      return rows;
    };
    const gauge = (name: string, help: string, read: (s: WebhookStats) => [Record<string, string>, number][]) =>
      new Gauge({
        name,
        help,
        labelNames: ['status'],
        registers: [this.registry],
        async collect() {
          this.reset();
          const s = await stats();
          if (s) for (const [labels, v] of read(s)) this.set(labels, v);
        },
      });
    gauge('arcgis_webhook_deliveries', 'Webhook deliveries in the kept history by outcome: delivered, failed, pending.', (s) =>
      Object.entries(s.by_status).map(([status, n]) => [{ status }, n]),
    );
    gauge('arcgis_webhook_outbox_events', 'Committed events not yet moved to deliveries.', (s) => [[{}, s.outbox]]);
    gauge('arcgis_webhooks_deactivated', 'Webhooks that are inactive (deactivated by their policy or by an administrator).', (s) => [
      [{}, s.deactivated],
    ]);
    const name = 'arcgis_webhook_latency_seconds';
    const help = 'Delivered webhook events: seconds from the event written with its change to the receiver answering.';
    this.registry.registerMetric({
      name,
      help,
      type: 'histogram',
      reset: () => undefined,
      get: async () => {
        const s = await stats();
        const values: MetricValueWithName<string>[] = [];
        if (s) {
          WEBHOOK_BUCKETS.forEach((le, i) => values.push({ metricName: `${name}_bucket`, labels: { le }, value: s.buckets[i] }));
          values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf' }, value: s.count });
          values.push({ metricName: `${name}_sum`, labels: {}, value: s.sum });
          values.push({ metricName: `${name}_count`, labels: {}, value: s.count });
        }
        return { name, help, type: 'histogram', values, aggregator: 'max' };
      },
    } as unknown as Metric);
  }

  /** A source that does not answer leaves its series out of the scrape rather than failing it (/health says which). */
  private fromDb() {
    if (this.dbCache && Date.now() - this.dbCache.at < DB_CACHE_MS) return this.dbCache;
    const buckets = JOB_BUCKETS.map((s) => `count(*) FILTER (WHERE d <= ${s})::int`).join(', ');
    const cache = {
      at: Date.now(),
      jobs: this.db.query(
        `SELECT kind, format, status, count(*)::int AS count, coalesce(sum(d), 0)::float8 AS sum, ARRAY[${buckets}] AS buckets
           FROM (SELECT type AS kind, coalesce(params->>'format', params->>'fileType', '') AS format, status,
                        extract(epoch FROM finished - started)::float8 AS d
                   FROM jobs WHERE finished IS NOT NULL AND started IS NOT NULL) j
          GROUP BY kind, format, status ORDER BY kind, format, status`,
      ) as Promise<JobRow[]>,
      bytes: this.db.query(
        `SELECT j.params->>'format' AS format, sum(i.size)::text AS bytes, count(*)::int AS count
           FROM jobs j JOIN items i ON i.id = j.result_item_id
          WHERE j.type = 'export' AND j.status = 'completed' GROUP BY 1 ORDER BY 1`,
      ) as Promise<BytesRow[]>,
    };
    // A failed query is not cached: the next scrape asks again.
    const forget = () => {
      if (this.dbCache === cache) this.dbCache = undefined;
      return [];
    };
    cache.jobs = cache.jobs.catch(forget);
    cache.bytes = cache.bytes.catch(forget);
    this.dbCache = cache;
    return cache;
  }

  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
