import { Type } from '@nestjs/common';

/**
 * A job kind, declared once in the feature that owns it (`export.job.ts`, `publish.job.ts`) and listed in
 * `src/jobs.ts`. The API uses the declaration to validate and enqueue; only the worker resolves its handler, so
 * the API process never loads what a job runs (GDAL, the writers).
 */
export interface JobKind<P extends object = object> {
  /** The jobs.type of its rows, the BullMQ job name and the `jobType` of the status route. */
  readonly type: string;
  /** The BullMQ queue that carries it; kinds may share a queue. */
  readonly queue: string;
  /**
   * The one parameter spec: the API runs it before storing the row, the worker runs it again on what it reads
   * back, so both sides hold the same typed value. Throws InvalidInputError on anything else.
   */
  readonly params: (raw: unknown) => P;
  /** How often a running job looks at its row for a cancellation (a delete also ends its database sessions). */
  readonly cancelPollMs: number;
  /** Errors of this kind the user can act on: the job fails at once with their message, without retries. */
  readonly permanent: (e: unknown) => boolean;
  /**
   * Raise `/items/<source item>/<type>` (webhooks) when a job of this kind completes or fails, in the transaction
   * that ends its row.
   */
  readonly itemEvent?: boolean;
  /** The worker-side class that runs it (a thunk: the class is declared below the kind in the same file). */
  readonly handler: () => Type<JobHandler<P>>;
}

export interface JobHandler<P extends object> {
  run(params: P, ctx: JobContext): Promise<JobOutcome>;
}

/** What a handler gets from the runner. */
export interface JobContext {
  readonly jobId: string;
  /** The result item the job's row points at (the export's file item, the published service). */
  readonly resultItemId: string | null;
  /** 1 on the first delivery; a retried or re-delivered job starts over and must tolerate its own leftovers. */
  readonly attempt: number;
  /** Aborts when the job's row is cancelled or deleted. */
  readonly signal: AbortSignal;
  /**
   * Reports progress (0..1, with an optional detail). Cheap to call per row: the runner writes the row's status
   * message and BullMQ's progress at most once a second.
   */
  progress(fraction: number, detail?: string): void;
  /** The PostgreSQL application_name for the job's sessions, so a cancel can end them at once. */
  sessionName(role: string): string;
  /** A private folder under DATA_DIR/tmp/jobs, created on first call and removed by the runner when the job ends. */
  workDir(): Promise<string>;
  /**
   * Says that `path` (in workDir) is being written and will be returned as the job's file named `fileName`: a
   * remote store starts uploading it now instead of after the handler returns. What the writer changes after it
   * was sent is sent again once the file is finished, so the stored object is always the returned file.
   */
  storeWhileWriting(path: string, fileName: string): void;
}

/** A completed job's file (inside workDir): the runner moves it to the result item before the row says completed. */
export interface JobFile {
  path: string;
  fileName: string;
  contentType: string;
  size: number;
}

export type JobOutcome = {
  file?: JobFile;
  /**
   * Asked once the file is stored and before the row says completed, the last moment before the hand-over: a throw
   * drops the stored file and fails the job as the handler's own error would.
   */
  confirm?: () => Promise<void>;
} | void;

/** The kinds of this deployment, given by the composition roots (src/jobs.ts), so core imports no feature. */
export const JOB_KINDS = Symbol('JOB_KINDS');

export function defineJob<P extends object>(kind: JobKind<P>): JobKind<P> {
  if (!/^[a-z][a-z0-9-]{0,30}$/.test(kind.type)) throw new Error(`job type '${kind.type}' must be lower-case letters, digits and '-'`);
  return kind;
}

/** The kind of a row, by type; undefined for a type this deployment no longer knows. */
export function kindOf(kinds: readonly JobKind[], type: string): JobKind | undefined {
  return kinds.find((k) => k.type === type);
}

/** Every queue a set of kinds uses, once. */
export function queuesOf(kinds: readonly JobKind[]): string[] {
  return [...new Set(kinds.map((k) => k.queue))];
}

/**
 * The PostgreSQL application_name of a job's database sessions (at most 63 characters: role up to 25), which
 * JobsRepository.endSessions matches when the job is cancelled.
 */
export function jobSessionName(jobId: string, role: string): string {
  return `job-${jobId}-${role.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 25)}`;
}

/** Retry transient faults with backoff; bad input is failed with UnrecoverableError and never retried. */
export const DEFAULT_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 5000 },
} as const;
