import { SqlParams } from '../database/sql-params';

/** Pieces of SQL shared by the searches over items, groups and users (`q` parsed by search-query.ts). */

/** A term as a LIKE pattern: `*` is the client's wildcard; LIKE's own wildcards in the value are escaped. */
export function likePattern(value: string): string {
  return value.replace(/[\\%_]/g, '\\$&').replace(/\*/g, '%');
}

/**
 * Any of `values` anywhere in a text, as one regular expression for `~*`: `*` is the client's wildcard, every other
 * character is literal. PostgreSQL's regex engine reads the text once for all alternatives, where LIKE reads it once
 * per pattern.
 */
export function anyOfPattern(values: string[]): string {
  return values
    .map((v) =>
      v
        .split('*')
        .map((part) => part.replace(/[^\p{L}\p{N}\s]/gu, '\\$&'))
        .join('.*'),
    )
    .join('|');
}

/** The leaves of a chain of ORs, in order: `a OR (b OR c)` and `(a OR b) OR c` both give a, b, c. */
export function orBranches<N extends { kind: string }>(node: N): N[] {
  const or = node as N & { kind: 'or'; left: N; right: N };
  return node.kind === 'or' ? [...orBranches(or.left), ...orBranches(or.right)] : [node];
}

/** A date range term on a timestamp column: epoch milliseconds, either end open (null), each end in or out. */
export function rangeSql(
  column: string,
  r: { from: number | null; to: number | null; inclusive: [boolean, boolean] },
  p: SqlParams,
): string {
  const ends = [
    r.from === null ? null : `${column} ${r.inclusive[0] ? '>=' : '>'} to_timestamp(${p.add(r.from)}::float8 / 1000)`,
    r.to === null ? null : `${column} ${r.inclusive[1] ? '<=' : '<'} to_timestamp(${p.add(r.to)}::float8 / 1000)`,
  ].filter((e) => e !== null);
  return ends.length ? `(${ends.join(' AND ')})` : 'TRUE';
}
