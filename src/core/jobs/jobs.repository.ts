import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { eventKeys, Outbox } from '../events/outbox.repository';
import { JOB_KINDS, JobKind, kindOf } from './job-contract';
import { RESULT_ITEMS, ResultItems, SettledItem } from './result-items';

export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';

export interface NewJobRow {
  id: string;
  type: string;
  ownerId: string;
  sourceItemId: string | null;
  resultItemId: string | null;
  params: object;
}

export interface JobRow {
  id: string;
  type: string;
  owner_id: string;
  source_item_id: string | null;
  result_item_id: string | null;
  status: JobStatus;
  status_message: string;
  params: Record<string, unknown>;
  attempts: number;
}

@Injectable()
export class JobsRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(RESULT_ITEMS) private readonly items: ResultItems,
    @Inject(JOB_KINDS) private readonly kinds: readonly JobKind[],
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Runs `first` (the writes of the job's result item) and inserts the queued job row in ONE transaction, so an
   * item never exists without the job that is meant to finish it (the reconciler only sees job rows).
   */
  async createWith(j: NewJobRow, first: (m: EntityManager) => Promise<void>): Promise<void> {
    await this.db.transaction(async (m) => {
      await first(m);
      await m.query(
        `INSERT INTO jobs (id, type, owner_id, source_item_id, result_item_id, status, status_message, params) VALUES ($1, $2, $3, $4, $5, 'queued', 'queued', $6)`,
        [j.id, j.type, j.ownerId, j.sourceItemId, j.resultItemId, JSON.stringify(j.params)],
      );
    });
  }

  async find(id: string): Promise<JobRow | null> {
    const rows: JobRow[] = await this.db.query(`SELECT * FROM jobs WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /**
   * A signal that aborts once the job's row is cancelled or gone (its item was deleted), checked every `everyMs`; a
   * failed check is skipped, not fatal. Call `stop` when the job ends.
   */
  watchCancellation(id: string, everyMs: number): { signal: AbortSignal; stop: () => void } {
    const abort = new AbortController();
    const poll = setInterval(() => {
      this.find(id).then(
        (r) => (!r || r.status === 'cancelled') && abort.abort(),
        () => undefined,
      );
    }, everyMs);
    return { signal: abort.signal, stop: () => clearInterval(poll) };
  }

  /** A job of the given type that produced or consumed the item. */
  async findForItem(id: string, type: string, itemId: string): Promise<JobRow | null> {
    const rows: JobRow[] = await this.db.query(
      `SELECT * FROM jobs WHERE id = $1 AND type = $2 AND (result_item_id = $3 OR source_item_id = $3)`,
      [id, type, itemId],
    );
    return rows[0] ?? null;
  }

  /** Unfinished jobs older than a few seconds (younger ones may still be on their way into Redis). */
  async unfinished(): Promise<JobRow[]> {
    return this.db.query(
      `SELECT * FROM jobs WHERE status IN ('queued','processing') AND created < now() - interval '5 seconds' ORDER BY created LIMIT 1000`,
    );
  }

  async activeForItem(itemId: string, m?: EntityManager): Promise<JobRow[]> {
    // Jobs producing the item, and jobs reading it (an export of a service being deleted).
    return (m ?? this.db).query(
      `SELECT * FROM jobs WHERE (result_item_id = $1 OR source_item_id = $1) AND status IN ('queued','processing')`,
      [itemId],
    );
  }

  /** Moves a queued (or re-delivered processing) job to processing; returns null if it is finished or gone. */
  async start(id: string): Promise<JobRow | null> {
    const [rows]: [JobRow[], number] = await this.db.query(
      `UPDATE jobs SET status = 'processing', started = coalesce(started, now()), attempts = attempts + 1, status_message = 'processing'
        WHERE id = $1 AND status IN ('queued','processing') RETURNING *`,
      [id],
    );
    return rows[0] ?? null;
  }

  async progress(id: string, message: string): Promise<void> {
    await this.db.query(`UPDATE jobs SET status_message = $2 WHERE id = $1 AND status = 'processing'`, [id, message]);
  }

  /**
   * Final states also move the result item, in the same transaction (the caller's `within`, else one of its own), so
   * the two never disagree. Returns the finished row, or null when the job was already finished (by another
   * delivery, a cancel, a stall...).
   */
  async finish(
    id: string,
    status: 'completed' | 'failed' | 'cancelled',
    message: string,
    file?: SettledItem['file'],
    within?: EntityManager,
  ): Promise<JobRow | null> {
    const run = <T>(fn: (m: EntityManager) => Promise<T>) => (within ? fn(within) : this.db.transaction(fn));
    return run(async (m) => {
      const [rows]: [JobRow[], number] = await m.query(
        `UPDATE jobs SET status = $2, status_message = $3, finished = now() WHERE id = $1 AND status IN ('queued','processing') RETURNING *`,
        [id, status, message],
      );
      const job = rows[0];
      if (!job) return null;
      if (job.result_item_id)
        await this.items.settle(m, job.result_item_id, { status: status === 'completed' ? 'completed' : 'failed', message, file });
      if (status !== 'cancelled') await this.raiseEnd(m, job, message, file);
      return job;
    });
  }

  /** The kind's `/items/<id>/<type>` event, when it raises one, in the transaction that ends the row. */
  private async raiseEnd(m: EntityManager, job: JobRow, message: string, file?: SettledItem['file']): Promise<void> {
    if (!job.source_item_id || !kindOf(this.kinds, job.type)?.itemEvent) return;
    const [owner]: { org_id: string; username: string }[] = await m.query(`SELECT org_id, username FROM users WHERE id = $1`, [
      job.owner_id,
    ]);
    if (!owner) return;
    const url =
      job.result_item_id && job.status === 'completed'
        ? `${this.config.publicUrl ?? ''}${this.config.restBase}/content/items/${job.result_item_id}/data`
        : null;
    await Outbox.raise(m, {
      orgId: owner.org_id,
      user: { userId: job.owner_id, username: owner.username },
      operation: job.type,
      source: 'item',
      id: job.source_item_id,
      keys: eventKeys('item', job.type, [job.source_item_id]),
      properties: {
        jobId: job.id,
        jobType: job.type,
        status: job.status,
        statusMessage: message,
        resultItemId: job.result_item_id,
        ...(typeof job.params.format === 'string' ? { format: job.params.format } : {}),
        ...(file ? { size: file.size } : {}),
        ...(url ? { url } : {}),
      },
    });
  }

  /** Whether the database answers now (used to tell a lost connection from a bad file). */
  async ping(): Promise<boolean> {
    try {
      await this.db.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Ends every database session of the job (named with jobSessionName), so a cancelled job releases its locks at
   * once instead of when it next checks its row: a delete's DROP SCHEMA then does not wait behind a long COPY.
   */
  async endSessions(jobId: string): Promise<number> {
    if (!/^[0-9a-f]{32}$/.test(jobId)) return 0;
    const rows: { n: number }[] = await this.db.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid()`,
      [`job-${jobId}-%`],
    );
    return rows[0]?.n ?? 0;
  }
}
