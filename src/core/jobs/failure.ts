/**
 * Whether a failed job attempt is worth another try. The default is NO: retrying a bad file, a bug or a refused
 * argument five times only delays the user's answer by half a minute. A failure is transient only when it is
 * recognisably the infrastructure's (the database or Redis unreachable or restarting, a lock or deadlock, the disk
 * or memory full) or, for anything unrecognised, when the database cannot be reached right now (GDAL reports a lost
 * connection in words of its own).
 */
import { InvalidInputError } from '../errors/invalid-input';

/** An error that retrying cannot fix: the job is failed at once with this message. */
export class PermanentJobError extends Error {}

/** PostgreSQL SQLSTATEs of faults that go away: connection (08), resources (53), operator intervention (57P0x), system (58), locks. */
const PG_TRANSIENT = /^(08|53|58)|^(40001|40P01|55P03|55006|57014|57P01|57P02|57P03)$/;
const NODE_TRANSIENT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOSPC',
  'EMFILE',
  'ENFILE',
  'EBUSY',
  'EAGAIN',
  // The item storage (core/storage StorageUnavailableError): the S3 server down, failing or throttling.
  'ESTORAGEUNAVAILABLE',
]);
const MESSAGE_TRANSIENT =
  /connection refused|could not connect|server closed the connection|terminating connection|connection (is |was )?(closed|terminated|reset|lost)|no connection to the server|the database system is (starting up|shutting down|in recovery)|too many clients|timeout expired|deadlock detected|could not serialize|lock timeout|No space left on device|could not extend file|out of memory|ECONNREFUSED|ECONNRESET|MaxRetriesPerRequest/i;

type Failure = { code?: unknown; driverError?: unknown; cause?: unknown; message?: unknown };

export type Verdict = 'permanent' | 'transient' | 'unknown';

/** What the error itself says; 'unknown' leaves the decision to a check of the database (see jobFailureIsTransient). */
export function classifyFailure(e: unknown): Verdict {
  if (e instanceof PermanentJobError || e instanceof InvalidInputError) return 'permanent';
  const seen = new Set<unknown>();
  for (let cur: unknown = e; cur && typeof cur === 'object' && !seen.has(cur);) {
    seen.add(cur);
    const f = cur as Failure;
    const code = typeof f.code === 'string' ? f.code : '';
    if (code && (PG_TRANSIENT.test(code) || NODE_TRANSIENT.has(code))) return 'transient';
    if (typeof f.message === 'string' && MESSAGE_TRANSIENT.test(f.message)) return 'transient';
    cur = f.driverError ?? f.cause;
  }
  if (e instanceof AggregateError) return e.errors.some((x) => classifyFailure(x) === 'transient') ? 'transient' : 'unknown';
  return 'unknown';
}

/** The message a user sees on the failed item: one line, bounded, never a connection password. */
export function failureMessage(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  return (
    raw
      .replace(/\s+/g, ' ')
      .replace(/(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)/gi, '$1***')
      .replace(/(\/\/[^:/@\s]*:)[^@\s]*@/g, '$1***@')
      .trim()
      .slice(0, 500) || 'The job failed.'
  );
}
