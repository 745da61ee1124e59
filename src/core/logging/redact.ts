import { unescape as unescapeQuery } from 'node:querystring';

/**
 * Names of parameters whose values are secrets: tokens of every kind, passwords (new/old), OAuth codes and client
 * secrets, API keys, signatures. Matched on the decoded name, so any spelling the server would read as one is covered.
 */
const SECRET_NAME = /token|passw|pwd|secret|api_?key|credential|signature|session|^auth|^code$/i;

/**
 * The name as the server's query parser reads it ('simple' parser: querystring, which tolerates bad escapes); decoded
 * up to three times so a name a proxy or another parser would decode once more is covered too.
 */
function decodeName(raw: string): string {
  let name = raw.replace(/\+/g, ' ');
  for (let i = 0; i < 3; i++) {
    const next = unescapeQuery(name);
    if (next === name) break;
    name = next;
  }
  return name.trim();
}

/** Tokens travel in query strings (the client does that for GET); they must never reach the logs, however encoded. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = decodeName(eq < 0 ? part : part.slice(0, eq));
      if (!SECRET_NAME.test(name)) return part;
      return eq < 0 ? '[redacted]' : `${part.slice(0, eq)}=[redacted]`;
    });
  return `${url.slice(0, q)}?${query.join('&')}`;
}

/** Fields of an error that describe it without repeating what was sent: no SQL, no bound values, no row detail. */
const SAFE_FIELDS = [
  'code',
  'messageCode',
  'status',
  'statusCode',
  'type',
  'severity',
  'constraint',
  'table',
  'column',
  'schema',
  'routine',
] as const;

/**
 * The err serializer of every log line (API and worker) and of start-up failures. A whitelist, because TypeORM's
 * QueryFailedError carries `query` and `parameters` (a racing createUser's parameters include the scrypt hash) and
 * pg's error carries `detail` with row values; pino's standard serializer would print every one of them. pino-http
 * hands custom serializers the standard serializer's plain copy, so Errors and plain objects are read alike.
 */
export function errorForLog(err: unknown, depth = 0): unknown {
  if (typeof err !== 'object' || err === null) return err;
  const source = err as Record<string, unknown>;
  const type = err instanceof Error ? err.constructor.name : typeof source.type === 'string' ? source.type : 'Object';
  const out: Record<string, unknown> = { type, message: source.message, stack: source.stack };
  const driver =
    typeof source.driverError === 'object' && source.driverError !== null ? (source.driverError as Record<string, unknown>) : undefined;
  for (const field of SAFE_FIELDS) {
    if (field === 'type') continue;
    const value = source[field] ?? driver?.[field];
    if (typeof value === 'string' || typeof value === 'number') out[field] = value;
  }
  if (source.cause !== undefined && depth < 3) out.cause = errorForLog(source.cause, depth + 1);
  return out;
}
