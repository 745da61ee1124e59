import { Errors } from '../errors/arcgis-error';

/**
 * The portal search `q` (item, user and group search share its grammar): terms and date ranges joined by AND / OR /
 * NOT (or `-`) with parentheses. Each search names its own fields in a `QuerySchema`; the parsed tree names only those.
 */
export type QueryNode<F extends string, R extends string> =
  | { kind: 'term'; field: F | null; value: string }
  | { kind: 'range'; field: R; from: number | null; to: number | null; inclusive: [boolean, boolean] }
  | { kind: 'and' | 'or'; left: QueryNode<F, R>; right: QueryNode<F, R> }
  | { kind: 'not'; node: QueryNode<F, R> };

/** What one search may make the database do, bounded before it runs. */
export interface QueryBounds {
  terms: number;
  patternChars: number;
  wildcards: number;
}

export interface QuerySchema<F extends string, R extends string> {
  /** Fields a term may name (`field:value`), lower case. */
  fields: readonly F[];
  /** Fields that take `[a TO b]` (inclusive) or `{a TO b}` (exclusive) ranges, in epoch milliseconds; `*` leaves an end open. */
  rangeFields: readonly R[];
  bounds: QueryBounds;
}

type Token =
  | { t: 'word'; v: string; quoted: boolean }
  | { t: 'range'; lo: string; hi: string; inclusive: [boolean, boolean] }
  | { t: 'colon' | 'lp' | 'rp' | 'neg' };

const MAX_Q = 2048;

function tokenize(q: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < q.length) {
    const c = q[i];
    if (/\s/.test(c)) i++;
    else if (c === ':') {
      out.push({ t: 'colon' });
      i++;
    } else if (c === '(') {
      out.push({ t: 'lp' });
      i++;
    } else if (c === ')') {
      out.push({ t: 'rp' });
      i++;
    } else if (c === '-' && /\S/.test(q[i + 1] ?? ' ') && (i === 0 || /[\s(]/.test(q[i - 1]))) {
      // Lucene's prohibit operator, as SearchQueryBuilder users and people type it: `-type:"Web Map"`.
      out.push({ t: 'neg' });
      i++;
    } else if (c === '[' || c === '{') {
      const close = q.slice(i + 1).search(/[\]}]/);
      if (close < 0) throw invalid(`Unterminated range at position ${i + 1}.`);
      const end = i + 1 + close;
      const m = /^\s*(\S+)\s+TO\s+(\S+)\s*$/i.exec(q.slice(i + 1, end));
      if (!m) throw invalid(`A range is written [from TO to] (at position ${i + 1}).`);
      out.push({ t: 'range', lo: m[1], hi: m[2], inclusive: [c === '[', q[end] === ']'] });
      i = end + 1;
    } else if (c === '"') {
      const end = q.indexOf('"', i + 1);
      if (end < 0) throw invalid(`Unterminated quote at position ${i + 1}.`);
      out.push({ t: 'word', v: q.slice(i + 1, end), quoted: true });
      i = end + 1;
    } else {
      let j = i;
      while (j < q.length && !/[\s:()"[\]{}]/.test(q[j])) j++;
      out.push({ t: 'word', v: q.slice(i, j), quoted: false });
      i = j;
    }
  }
  return out;
}

/** One end of a date range: epoch milliseconds (what SearchQueryBuilder sends for dates), or `*` for an open end. */
function epoch(v: string): number | null {
  if (v === '*') return null;
  if (!/^-?\d{1,15}$/.test(v)) throw invalid(`'${v.slice(0, 32)}' is not a date in epoch milliseconds.`);
  return Number(v);
}

function invalid(detail: string) {
  return Errors.badRequest("Invalid value for parameter 'q'.", [detail]);
}

const isOp = (tok: Token | undefined, op: string) => tok?.t === 'word' && !tok.quoted && tok.v.toUpperCase() === op;

/** Grammar: or := and (OR and)* ; and := unary ((AND)? unary)* ; unary := NOT unary | ( or ) | term. */
export function parseQuery<F extends string, R extends string>(q: string, schema: QuerySchema<F, R>): QueryNode<F, R> {
  type Node = QueryNode<F, R>;
  const { fields, rangeFields, bounds } = schema;
  if (q.length > MAX_Q) throw invalid(`'q' is longer than ${MAX_Q} characters.`);
  const toks = tokenize(q);
  let pos = 0;
  let terms = 0;

  const parseOr = (): Node => {
    let left = parseAnd();
    while (isOp(toks[pos], 'OR')) {
      pos++;
      left = { kind: 'or', left, right: parseAnd() };
    }
    return left;
  };
  const parseAnd = (): Node => {
    let left = parseUnary();
    for (;;) {
      if (isOp(toks[pos], 'AND')) pos++;
      else if (!toks[pos] || toks[pos].t === 'rp' || isOp(toks[pos], 'OR')) return left;
      left = { kind: 'and', left, right: parseUnary() };
    }
  };
  const parseUnary = (): Node => {
    const tok = toks[pos];
    if (!tok) throw invalid('The query ends where a search term was expected.');
    if (isOp(tok, 'NOT') || tok.t === 'neg') {
      pos++;
      return { kind: 'not', node: parseUnary() };
    }
    if (tok.t === 'lp') {
      pos++;
      const inner = parseOr();
      if (toks[pos]?.t !== 'rp') throw invalid("Missing ')'.");
      pos++;
      return inner;
    }
    if (tok.t === 'range') throw invalid(`A range needs a field: ${rangeFields.map((f) => `${f}:[from TO to]`).join(' or ')}.`);
    if (tok.t !== 'word') throw invalid(`Unexpected '${tok.t === 'colon' ? ':' : ')'}'.`);
    if (++terms > bounds.terms) throw invalid(`More than ${bounds.terms} search terms.`);
    pos++;
    if (toks[pos]?.t === 'colon' && !tok.quoted) {
      const field = tok.v.toLowerCase();
      const next = toks[pos + 1];
      if (next?.t === 'range') {
        if (!(rangeFields as readonly string[]).includes(field))
          throw invalid(`'${tok.v}' takes no range; ranges apply to ${rangeFields.join(' and ')} (epoch milliseconds).`);
        pos += 2;
        return { kind: 'range', field: field as R, from: epoch(next.lo), to: epoch(next.hi), inclusive: next.inclusive };
      }
      if (!(fields as readonly string[]).includes(field)) {
        throw invalid(`Unknown search field '${tok.v}'. Supported fields: ${fields.join(', ')}.`);
      }
      pos++;
      const value = toks[pos];
      if (value?.t !== 'word') throw invalid(`Missing value after '${tok.v}:'.`);
      pos++;
      return term(field as F, value.v);
    }
    return term(null, tok.v);
  };
  let patternChars = 0;
  let wildcards = 0;
  const term = (field: F | null, value: string): Node => {
    patternChars += value.length;
    wildcards += value.split('*').length - 1;
    if (patternChars > bounds.patternChars) throw invalid(`The search terms are longer than ${bounds.patternChars} characters together.`);
    if (wildcards > bounds.wildcards) throw invalid(`More than ${bounds.wildcards} '*' wildcards.`);
    return { kind: 'term', field, value };
  };

  if (!toks.length) throw invalid("'q' is empty.");
  const node = parseOr();
  if (pos < toks.length) throw invalid(`Unexpected ')' at term ${pos + 1}.`);
  return node;
}

/** The leaves of a chain of ORs, in order: `a OR (b OR c)` and `(a OR b) OR c` both give a, b, c. */
export function orBranches<F extends string, R extends string>(node: QueryNode<F, R>): QueryNode<F, R>[] {
  return node.kind === 'or' ? [...orBranches(node.left), ...orBranches(node.right)] : [node];
}
