/**
 * The statements of aggregated queries (statistics.ts). Columns are read under the names "#0"…"#n", which no field
 * can have, so GROUP BY always means the table's columns and ORDER BY the reply's. Values come out as the reply
 * carries them: dates in epoch milliseconds, GUIDs braced in upper case, 64-bit integers as doubles (as feature
 * pages print them), and every count, sum and average as float8 so node-postgres hands over numbers, not text.
 */
import { SqlParams } from '../../core/database/sql-params';
import { FieldType, ident, LayerField } from '../../layers/layer-schema';
import { AggregateColumn, AggregateQuery, StatisticType } from './statistics';

const INTEGER = new Set<FieldType>(['esriFieldTypeOID', 'esriFieldTypeSmallInteger', 'esriFieldTypeInteger', 'esriFieldTypeBigInteger']);

/** PostgreSQL's functions; stddev and var are the sample statistics, as ArcGIS computes them. */
const FUNCTION: Record<Exclude<StatisticType, 'count'>, string> = {
  sum: 'sum',
  min: 'min',
  max: 'max',
  avg: 'avg',
  stddev: 'stddev_samp',
  var: 'var_samp',
};

/** A field's value (`v` is the column or an aggregate of it) as the reply carries it. */
function value(f: LayerField, v: string): string {
  switch (f.type) {
    case 'esriFieldTypeDate':
      return `(extract(epoch from ${v}) * 1000)::float8`;
    case 'esriFieldTypeBigInteger':
      return `${v}::float8`;
    case 'esriFieldTypeGUID':
    case 'esriFieldTypeGlobalID':
      return `('{' || upper(${v}::text) || '}')`;
    default:
      return v;
  }
}

function column(c: AggregateColumn): string {
  const col = c.field ? ident(c.field.column) : '';
  switch (c.op) {
    case 'value':
      return value(c.field!, col);
    case 'count':
      return `count(${col || '*'})::float8`;
    case 'min':
    case 'max':
      return value(c.field!, `${c.op}(${col})`);
    default: {
      // Integers are summed and averaged exactly (bigint, numeric) and only the result is a double; a real is
      // widened first, or its sum would be rounded to a real at every step.
      const fn = FUNCTION[c.op];
      const t = c.field!.type;
      return INTEGER.has(t) ? `${fn}(${col})::float8` : t === 'esriFieldTypeSingle' ? `${fn}(${col}::float8)` : `${fn}(${col})`;
    }
  }
}

const alias = (i: number) => `"#${i}"`;

/**
 * The caller's order, then every key column, so a page of groups or distinct rows is the same on every request;
 * NULLS as feature pages sort them (last ascending, first descending).
 */
function orderBy(a: AggregateQuery): string {
  const asked = a.order.map((o) => ({ ...o }));
  for (let i = 0; i < a.keys; i++) if (!asked.some((o) => o.column === i)) asked.push({ column: i, desc: false });
  return asked.map((o) => `${alias(o.column)} ${o.desc ? 'DESC NULLS FIRST' : 'ASC NULLS LAST'}`).join(', ');
}

/**
 * The rows of an aggregated reply. `from` is the filtered table (`FROM … WHERE …`) whose parameters are in `p`.
 * Grouped statistics and distinct values read `limit + 1` rows from `offset` so the caller can tell whether more
 * remain; statistics without groups are one row, whatever matched (none: a count of 0 and NULL for the others).
 */
export function aggregateSql(a: AggregateQuery, from: string, p: SqlParams, page: { offset: number; limit: number }): string {
  const cols = a.columns.map((c, i) => `${column(c)} AS ${alias(i)}`).join(', ');
  const keys = a.columns.slice(0, a.keys).map((c) => ident(c.field!.column));
  const head = a.kind === 'distinct' ? `SELECT DISTINCT ${cols} ${from}` : `SELECT ${cols} ${from}`;
  if (!a.keys) return head;
  const grouped = a.kind === 'statistics' ? `${head} GROUP BY ${keys.join(', ')}` : head;
  return `${grouped} ORDER BY ${orderBy(a)} LIMIT ${p.add(page.limit + 1)} OFFSET ${p.add(page.offset)}`;
}

/** The number of distinct rows of the columns (NULL counts as a value, as it is one row of the distinct list). */
export function distinctCountSql(a: AggregateQuery, from: string): string {
  const keys = a.columns.slice(0, a.keys).map((c) => ident(c.field!.column));
  return `SELECT count(*)::float8 AS n FROM (SELECT DISTINCT ${keys.join(', ')} ${from}) d`;
}
