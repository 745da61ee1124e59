import { ArcgisError, Errors } from '../core/errors/arcgis-error';

/** The hosted (ArcGIS Online) wording for any bad `where`, with code 400 in an HTTP 200 envelope. */
export const WHERE_ERROR_MESSAGE = 'Cannot perform query. Invalid query parameters.';

/** A 400 whose single detail line says what was wrong and, when known, where (1-based position). */
export function whereError(what: string, pos?: number): ArcgisError {
  const where = pos === undefined || pos < 1 ? '' : ` at position ${pos}`;
  return Errors.badRequest(WHERE_ERROR_MESSAGE, [`${what}${where}.`]);
}

/** User text quoted inside a detail: one line, bounded length, so details stay readable and safe to log. */
export function show(text: string, quote = "'"): string {
  const flat = text.replace(/\s/g, ' ');
  const cut = flat.length > 40 ? `${flat.slice(0, 40)}…` : flat;
  return `${quote}${cut}${quote}`;
}

/**
 * Maps a Postgres error raised while *evaluating* a compiled clause to the same 400.
 *
 * The compiler guarantees type-correct SQL and guards the common data-dependent failures (division and MOD by
 * zero give NULL, LOG of n <= 0 gives NULL, casts to INT clamp, text-to-number casts of non-numbers give NULL),
 * but arithmetic overflow or POWER(-8, 0.5) can still raise SQLSTATE class 22 (data exception) on some rows.
 * That is the caller's bad clause, not a server fault, so callers running the SQL should pass errors through this.
 */
export function whereRuntimeError(err: unknown): ArcgisError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('22')) return undefined;
  const msg = String((err as { message?: unknown }).message ?? 'data exception');
  return Errors.badRequest(WHERE_ERROR_MESSAGE, [`The where clause cannot be evaluated on this layer's data (${show(msg, '')}).`]);
}
