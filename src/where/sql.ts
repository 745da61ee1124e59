/**
 * Renders a *checked* tree as a Postgres boolean expression.
 *
 * User text reaches the SQL only through a LiteralSink (bound parameters, or the strict inline escaper); every
 * other piece of SQL text below is a constant of this file, and identifiers come from the layer's field list.
 * Every subexpression is emitted exactly once (guards use NULLIF/GREATEST/LEAST rather than CASE), so the SQL
 * grows linearly with the tree even under deep nesting.
 *
 * Time semantics: date fields are timestamptz; DATE/TIMESTAMP literals, CURRENT_DATE, EXTRACT and casts are all
 * read in UTC, never in the session's TimeZone. A field is never wrapped when compared with a literal, so
 * indexes on it stay usable: the literal is converted instead.
 */
import { ValueType, WhereField, WhereNode } from './ast';
import { isNumeric } from './check';
import { UNIT_SECONDS, floatText, intSqlType } from './literals';

export type NumberSqlType = 'integer' | 'bigint' | 'double precision';

/** Turns validated literal values into SQL; see compile.ts for the bound and the inline implementations. */
export interface LiteralSink {
  /** `text` is canonical: -?digits for integer/bigint, floatText() output for double precision. */
  number(text: string, type: NumberSqlType): string;
  text(value: string): string;
  /** yyyy-mm-dd */
  date(value: string): string;
  /** yyyy-mm-dd hh:mm:ss[.ffffff], UTC wall-clock time */
  timestamp(value: string): string;
  /** canonical lower-case uuid */
  uuid(value: string): string;
}

/** "column" with embedded quotes doubled; the alias (from our own code, but quoted all the same) is prefixed. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const UTC = "AT TIME ZONE 'UTC'";
const INT_RANGE = { INT: ['-2147483648', '2147483647', 'integer'], SMALLINT: ['-32768', '32767', 'smallint'] } as const;
/**
 * Text → number casts read only what these patterns capture (substring() returns the first group, or NULL when
 * there is no match), so non-numbers become NULL instead of failing, and the bounded digit counts keep every match
 * in range of the target type. No backslashes, so the constants mean the same under any standard_conforming_strings.
 */
const NUMBER_PATTERNS = {
  INT: "'^[[:space:]]*([+-]?0*[0-9]{1,9})[[:space:]]*$'",
  SMALLINT: "'^[[:space:]]*([+-]?0*[0-9]{1,4})[[:space:]]*$'",
  DOUBLE: "'^[[:space:]]*([+-]?0*([0-9]{1,20}([.][0-9]{0,20})?|[.][0-9]{1,20})([eE][+-]?[0-9]{1,2})?)[[:space:]]*$'",
};

export function renderSql(
  root: WhereNode,
  sink: LiteralSink,
  alias?: string,
  onField?: (f: WhereField) => void,
  onClock?: () => void,
): string {
  const prefix = alias ? `${quoteIdent(alias)}.` : '';

  /** Converts `sql` of type `from` to `to` for comparisons (temporal kinds, and uuid read as text). */
  const convert = (sql: string, from: ValueType, to: ValueType): string => {
    if (from === to) return sql;
    if (to === 'text' && from === 'uuid') return `(${sql})::text`;
    if (to === 'timestamp' && from === 'date') return `(${sql})::timestamp`;
    if (to === 'timestamptz' && from === 'date') return `((${sql})::timestamp ${UTC})`;
    if (to === 'timestamptz' && from === 'timestamp') return `((${sql}) ${UTC})`;
    return sql; // int/float mixes: Postgres resolves them itself
  };

  /** The common type of values that are compared with each other (checked beforehand to be comparable). */
  const common = (types: ValueType[]): ValueType => {
    const order: ValueType[] = ['text', 'timestamptz', 'timestamp', 'date', 'uuid'];
    return order.find((t) => types.includes(t)) ?? types[0];
  };

  /** Values of a comparison, rendered and converted to their common type. */
  const unified = (nodes: WhereNode[]): string[] => {
    const to = common(nodes.map((n) => n.type!));
    return nodes.map((n) => convert(r(n), n.type!, to));
  };

  /** A naive UTC timestamp for EXTRACT and CAST. */
  const naive = (n: WhereNode): string => {
    if (n.type === 'timestamptz') return `(${r(n)} ${UTC})`;
    if (n.type === 'date') return `(${r(n)})::timestamp`;
    return r(n);
  };

  /** Clamps a number into int4/int2 and casts it: rounds like Postgres, never overflows (NaN → the maximum). */
  const clampInt = (n: WhereNode, to: 'INT' | 'SMALLINT'): string => {
    const [min, max, type] = INT_RANGE[to];
    const int4Literal = n.kind === 'number' && n.numType === 'int' && intSqlType(n.text) === 'integer';
    return int4Literal && to === 'INT' ? r(n) : `(LEAST(GREATEST(${r(n)}, ${min}), ${max}))::${type}`;
  };

  const dbl = (n: WhereNode) => `(${r(n)})::double precision`;

  const r = (n: WhereNode): string => {
    switch (n.kind) {
      case 'and':
      case 'or':
        return `(${n.args.map(r).join(n.kind === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return `(NOT ${r(n.arg)})`;
      case 'compare': {
        const [a, b] = unified([n.left, n.right]);
        return `(${a} ${n.op} ${b})`;
      }
      case 'between': {
        const [e, lo, hi] = unified([n.expr, n.low, n.high]);
        return `(${e} ${n.negated ? 'NOT ' : ''}BETWEEN ${lo} AND ${hi})`;
      }
      case 'in': {
        const [e, ...items] = unified([n.expr, ...n.list]);
        return `(${e} ${n.negated ? 'NOT ' : ''}IN (${items.join(', ')}))`;
      }
      case 'like': {
        const expr = convert(r(n.expr), n.expr.type!, 'text');
        const pattern = r(n.pattern);
        // Without ESCAPE, ArcGIS LIKE has no escape character; Postgres' default would be backslash.
        const esc = n.escape === undefined ? "''" : sink.text(n.escape);
        return `(${expr} ${n.negated ? 'NOT ' : ''}LIKE ${pattern} ESCAPE ${esc})`;
      }
      case 'isNull':
        return `(${r(n.expr)} IS ${n.negated ? 'NOT ' : ''}NULL)`;
      case 'arith':
        return arith(n);
      case 'neg':
        // Integers are negated as bigint so -(-2147483648) cannot overflow.
        return n.type === 'int' ? `(-((${r(n.arg)})::bigint))` : `(-(${r(n.arg)}))`;
      case 'field':
        onField?.(n.field!);
        return `${prefix}${quoteIdent(n.field!.column)}`;
      case 'number':
        return sink.number(n.text, n.numType === 'int' ? intSqlType(n.text) : 'double precision');
      case 'string':
        return sink.text(n.value);
      case 'date':
        return sink.date(n.value);
      case 'timestamp':
        return sink.timestamp(n.value);
      case 'guid':
        return sink.uuid(n.value);
      case 'interval':
        return interval(n.value, n.unit);
      case 'current':
        onClock?.();
        return n.which === 'CURRENT_DATE' ? `((CURRENT_TIMESTAMP ${UTC})::date)` : 'CURRENT_TIMESTAMP';
      case 'call':
        return call(n);
      case 'extract':
        return `(EXTRACT(${n.part} FROM ${naive(n.arg)}))::${n.part === 'SECOND' ? 'double precision' : 'integer'}`;
      case 'substring': {
        const [arg, start] = [r(n.arg), clampInt(n.start, 'INT')];
        // Negative lengths raise an error in Postgres; clamp them to 0.
        const len = n.length ? ` FOR GREATEST(${clampInt(n.length, 'INT')}, 0)` : '';
        return `substring(${arg} FROM ${start}${len})`;
      }
      case 'trim':
        return `trim(${n.side ?? 'BOTH'} ${n.chars ? r(n.chars) + ' ' : ''}FROM ${r(n.arg)})`; // chars come first in both
      case 'position':
        return `position(${r(n.sub)} IN ${r(n.arg)})`;
      case 'cast':
        return cast(n);
    }
  };

  const interval = (value: string, unit: keyof typeof UNIT_SECONDS): string => {
    // Exact seconds, never '1 day', so adding to a timestamptz does not depend on the session's time zone (DST).
    const secs = UNIT_SECONDS[unit];
    return `(${sink.number(floatText(Number(value)), 'double precision')} * interval '${secs} seconds')`;
  };

  const arith = (n: Extract<WhereNode, { kind: 'arith' }>): string => {
    const [l, rt] = [n.left, n.right];
    if (!isNumeric(l.type) || !isNumeric(rt.type)) {
      // date/time ± interval: a date is read as midnight (timestamp); timestamptz stays timestamptz.
      const tempo = l.type === 'interval' ? rt : l;
      const iv = l.type === 'interval' ? l : rt;
      const base = tempo.type === 'date' ? `(${r(tempo)})::timestamp` : r(tempo);
      return l.type === 'interval' ? `(${r(iv)} + ${base})` : `(${base} ${n.op} ${r(iv)})`;
    }
    // True division in double precision; dividing by zero gives NULL instead of an error.
    if (n.op === '/') return `(${dbl(l)} / NULLIF(${dbl(rt)}, 0))`;
    // Integer arithmetic in bigint, so sums and products of integer columns do not overflow.
    if (n.type === 'int') return `((${r(l)})::bigint ${n.op} (${r(rt)})::bigint)`;
    return `(${dbl(l)} ${n.op} ${dbl(rt)})`;
  };

  const call = (n: Extract<WhereNode, { kind: 'call' }>): string => {
    const [a, b] = n.args;
    switch (n.fn) {
      case 'UPPER':
      case 'LOWER':
      case 'CHAR_LENGTH':
        return `${n.fn.toLowerCase()}(${r(a)})`;
      case 'ABS':
        // In bigint for integers: abs(-2147483648::integer) overflows.
        return a.type === 'int' ? `abs((${r(a)})::bigint)` : `abs(${r(a)})`;
      case 'CONCAT':
        return `concat(${n.args.map((x) => (x.type === 'uuid' ? `(${r(x)})::text` : r(x))).join(', ')})`;
      case 'CEILING':
        return `ceil(${dbl(a)})`;
      case 'FLOOR':
        return `floor(${dbl(a)})`;
      case 'ROUND':
        // round(x, places) exists only for numeric in Postgres.
        return b ? `(round((${r(a)})::numeric, ${clampInt(b, 'INT')}))::double precision` : `round(${dbl(a)})`;
      case 'MOD':
        // mod() exists for integers and numeric, not double precision; a zero divisor gives NULL.
        return n.type === 'int'
          ? `mod(${r(a)}, NULLIF(${r(b)}, 0))`
          : `(mod((${r(a)})::numeric, NULLIF((${r(b)})::numeric, 0)))::double precision`;
      case 'POWER':
        return `power(${dbl(a)}, ${dbl(b)})`;
      case 'LOG':
      case 'LOG10':
        // Logarithms of zero or negative numbers raise errors in Postgres; they give NULL here.
        return `${n.fn === 'LOG' ? 'ln' : 'log'}(NULLIF(GREATEST(${dbl(a)}, 0), 0))`;
    }
  };

  const cast = (n: Extract<WhereNode, { kind: 'cast' }>): string => {
    const a = n.arg;
    switch (n.to) {
      case 'INT':
      case 'SMALLINT':
        if (a.type === 'text') return `(substring(${r(a)} FROM ${NUMBER_PATTERNS[n.to]}))::${INT_RANGE[n.to][2]}`;
        return clampInt(a, n.to);
      case 'FLOAT':
      case 'REAL':
      case 'DOUBLE':
        // REAL and FLOAT are evaluated in double precision too: float4 conversions can overflow at run time.
        if (a.type === 'text') return `(substring(${r(a)} FROM ${NUMBER_PATTERNS.DOUBLE}))::double precision`;
        return dbl(a);
      case 'VARCHAR': {
        const to = n.length ? `varchar(${n.length})` : 'text';
        // Fixed formats: the default text form of dates depends on DateStyle and TimeZone.
        if (a.type === 'date') return `(to_char(${r(a)}, 'YYYY-MM-DD'))::${to}`;
        if (a.type === 'timestamp' || a.type === 'timestamptz') return `(to_char(${naive(a)}, 'YYYY-MM-DD HH24:MI:SS'))::${to}`;
        return `(${r(a)})::${to}`;
      }
      case 'DATE':
        return a.type === 'date' ? r(a) : `(${naive(a)})::date`;
      case 'TIMESTAMP':
        return naive(a);
    }
  };

  return r(root);
}
