import { ArcgisError, Errors } from '../core/errors/arcgis-error';
import { whereRuntimeError } from '../where/compile';

/** pg-pool's message when no connection came free within connectionTimeoutMillis. */
const POOL_WAIT = /timeout exceeded when trying to connect/i;

/**
 * Maps what Postgres (or the feature pool) raises while running caller-shaped SQL to an envelope the caller can act
 * on, so a slow or oversized query never ends as a 500 with the SQL in the log. Returns undefined for anything
 * else (a compiler or server fault), which the filter logs and answers as a 500.
 */
export function featureDbError(err: unknown, timeoutMs: number, what: 'query' | 'edit'): ArcgisError | undefined {
  if (err instanceof ArcgisError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const message = String((err as { message?: unknown } | null)?.message ?? '');
  // 57014: statement_timeout (or a cancel); the caller's query, not a server fault.
  if (code === '57014')
    return Errors.badRequest('Unable to complete operation.', [`The ${what} took longer than ${timeoutMs} ms (the server's limit).`]);
  // Class 22 in a query is the where clause meeting the data; in an edit it is a value, which the filter reports.
  if (what === 'query' && typeof code === 'string' && code.startsWith('22')) return whereRuntimeError(err);
  // 54xxx: program limits (too many arguments, stack depth, too many columns); the request is too big to run.
  if (typeof code === 'string' && code.startsWith('54'))
    return Errors.badRequest('Unable to complete operation.', ['The query is too complex for the database; simplify the where clause.']);
  // PostGIS's reprojection refusing a coordinate (XX000 "transform: Invalid coordinate", "...exceeded limits"): data
  // stored far outside its spatial reference, which the caller asked to see in another; the request's, not a fault.
  if (code === 'XX000' && /^transform: /.test(message))
    return Errors.badRequest('Unable to complete operation.', [
      `Features cannot be projected to the requested spatial reference (${message.slice('transform: '.length, 120)}).`,
    ]);
  // 53xxx (out of memory, disk, connections) and a full feature pool: the server is busy, try again.
  if ((typeof code === 'string' && code.startsWith('53')) || POOL_WAIT.test(message)) {
    return new ArcgisError(503, 'Unable to complete operation.', ['The server is too busy to run this query now; try again shortly.']);
  }
  return undefined;
}
