/** Every queue, job name and payload in one place. Payloads carry ids only; workers reload rows themselves. */
export enum QueueName {
  Export = 'export',
  Publish = 'publish',
}

export enum JobName {
  ExportItem = 'export-item',
  PublishItem = 'publish-item',
}

export interface JobPayloads {
  [JobName.ExportItem]: { jobId: string };
  [JobName.PublishItem]: { jobId: string };
}

/** Which queue carries each job; a missing entry fails to compile. */
export const JOB_QUEUE: Record<JobName, QueueName> = {
  [JobName.ExportItem]: QueueName.Export,
  [JobName.PublishItem]: QueueName.Publish,
};

export type JobItem = { [N in JobName]: { name: N; data: JobPayloads[N] } }[JobName];
export type JobOf<N extends JobName> = JobPayloads[N];

/** The kinds of job rows (jobs.type) and the jobType values of the status route. */
export type JobType = 'export' | 'publish';

export const JOB_TYPE: Record<JobName, JobType> = {
  [JobName.ExportItem]: 'export',
  [JobName.PublishItem]: 'publish',
};

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
