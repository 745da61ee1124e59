/**
 * Public entry points of the where-clause compiler (ArcGIS standardized SQL → Postgres).
 *
 * text ─tokenize─▶ tokens ─parse─▶ tree ─check─▶ typed tree ─render─▶ SQL (bound parameters or inline literals)
 *
 * Any problem with the clause throws ArcgisError 400 "Cannot perform query. Invalid query parameters." with one
 * detail line naming the problem and its 1-based position.
 */
import { SqlParams } from '../core/database/sql-params';
import { children, WhereField, WhereNode } from './ast';
import { checkTree } from './check';
import { whereError } from './errors';
import { tokenize } from './lexer';
import { isCanonicalUuid, isDateText, isTimestampText } from './literals';
import { parseTokens } from './parser';
import { LiteralSink, renderSql } from './sql';

export type { EsriFieldType, WhereField, WhereNode } from './ast';
export { printWhere } from './printer';
export { whereRuntimeError, WHERE_ERROR_MESSAGE } from './errors';

export interface WhereOptions {
  /** Longest accepted clause, in characters (default 10,000). */
  maxLength?: number;
  /** Table alias to prefix columns with, e.g. 't' → "t"."col". */
  alias?: string;
  /** Deepest accepted nesting of parentheses, operators and calls (default 100; keep it in the hundreds, the passes recurse). */
  maxDepth?: number;
  /** Most values in one IN list (default 1,000); a function call takes at most 100 arguments whatever this says. */
  maxInList?: number;
  /** Told each field the SQL reads (compileWhere), so a caller can tell a clause that reads no column. */
  onField?: (f: WhereField) => void;
  /** Told when the SQL reads the clock (CURRENT_DATE, CURRENT_TIMESTAMP): the rows it selects change with no edit. */
  onClock?: () => void;
}

export const WHERE_LIMITS = { maxLength: 10_000, maxDepth: 100, maxInList: 1_000 } as const;

/**
 * Parses a clause without looking at any layer: the tree a job stores, so what runs later is what was validated
 * (checkTree resolves its fields against the layer as it is then).
 */
export function parseWhereTree(where: string, opts: WhereOptions = {}): WhereNode {
  if (typeof where !== 'string') throw whereError('The where clause must be text');
  const maxLength = opts.maxLength ?? WHERE_LIMITS.maxLength;
  // Checked before anything else looks at the text, so huge inputs cost nothing.
  if (where.length > maxLength) throw whereError(`The where clause is longer than ${maxLength} characters`);
  return parseTokens(tokenize(where), {
    maxDepth: opts.maxDepth ?? WHERE_LIMITS.maxDepth,
    maxInList: opts.maxInList ?? WHERE_LIMITS.maxInList,
  });
}

/**
 * Whether a clause reads the clock (CURRENT_DATE, CURRENT_TIMESTAMP), so that the rows it selects change with no edit:
 * such a selection has no validator. A clause that does not parse is taken to read it, which only costs a validator.
 */
export function whereReadsClock(where: string): boolean {
  // The lexer needs the word, so a clause without it cannot read the clock and is not parsed.
  if (!/current_(date|timestamp)/i.test(where)) return false;
  let tree: WhereNode;
  try {
    tree = parseWhereTree(where);
  } catch {
    return true;
  }
  const walk = (n: WhereNode): boolean => n.kind === 'current' || children(n).some(walk);
  return walk(tree);
}

/** Parses and checks a clause against the layer's fields; returns the typed tree. */
export function parseWhere(where: string, fields: WhereField[], opts: WhereOptions = {}): WhereNode {
  return checkTree(parseWhereTree(where, opts), fields);
}

/** A Postgres boolean expression; every literal is bound through `p.add()` with an explicit cast. */
export function compileWhere(where: string, fields: WhereField[], p: SqlParams, opts: WhereOptions = {}): string {
  const tree = parseWhere(where, fields, opts);
  const sink: LiteralSink = {
    // bigint travels as text so values beyond 2^53 stay exact; the others as JS numbers.
    number: (text, type) => `${p.add(type === 'bigint' ? text : Number(text))}::${type}`,
    text: (v) => `${p.add(v)}::text`,
    date: (v) => `${p.add(v)}::date`,
    timestamp: (v) => `${p.add(v)}::timestamp`,
    uuid: (v) => `${p.add(v)}::uuid`,
  };
  return renderSql(tree, sink, opts.alias, opts.onField, opts.onClock);
}

/**
 * The same expression as compileWhere with literals written inline, for GDAL's -sql / -where, which cannot take
 * parameters. The inline forms re-validate every value (an internal Error, not a 400, means a compiler bug).
 */
export function renderWhereSql(where: string, fields: WhereField[], opts: WhereOptions = {}): string {
  return renderSql(parseWhere(where, fields, opts), inlineSink, opts.alias);
}

/** renderWhereSql for a tree from parseWhereTree, checked against the fields now. */
export function renderWhereTreeSql(tree: WhereNode, fields: WhereField[], alias?: string): string {
  return renderSql(checkTree(tree, fields), inlineSink, alias);
}

const SAFE_NUMBER = /^-?\d+(\.\d+)?(e[+-]\d+)?$/;

function unsafe(kind: string): never {
  throw new Error(`where compiler: refusing to inline an invalid ${kind} literal`);
}

const inlineSink: LiteralSink = {
  number: (text, type) => (SAFE_NUMBER.test(text) ? `(${text})::${type}` : unsafe('number')),
  /**
   * E'' strings read backslash escapes whatever standard_conforming_strings says, so doubling backslashes and
   * quotes is always exact. Tab/LF/CR are written as escapes to keep the SQL on one line; other control
   * characters were rejected by the lexer.
   */
  text: (v) => {
    // eslint-disable-next-line no-control-regex -- control characters are what this refuses
    if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(v)) unsafe('string');
    const body = v.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    return `E'${body}'::text`;
  },
  date: (v) => (isDateText(v) ? `DATE '${v}'` : unsafe('date')),
  timestamp: (v) => (isTimestampText(v) ? `TIMESTAMP '${v}'` : unsafe('timestamp')),
  uuid: (v) => (isCanonicalUuid(v) ? `'${v}'::uuid` : unsafe('uuid')),
};
