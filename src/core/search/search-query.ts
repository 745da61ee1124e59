import { Errors } from '../errors/arcgis-error';

/**
 * Parsed form of a portal search `q` (items, groups): terms and date ranges joined by AND / OR / NOT (or `-`) with
 * parentheses. `F` are the fields a term may name, `R` those that take ranges.
 */
export type SearchNode<F extends string, R extends string> =
  | { kind: 'term'; field: F | null; value: string }
  | { kind: 'range'; field: R; from: number | null; to: number | null; inclusive: [boolean, boolean] }
  | { kind: 'and' | 'or'; left: SearchNode<F, R>; right: SearchNode<F, R> }
  | { kind: 'not'; node: SearchNode<F, R> };

/**
 * What one kind of search understands: `fields` for `field:value` terms, `ranges` for `[a TO b]` (inclusive) or
 * `{a TO b}` (exclusive) ranges in epoch milliseconds, where `*` leaves an end open.
 */
export interface SearchSchema<F extends string, R extends string> {
  fields: readonly F[];
  ranges: readonly R[];
}

type Token =
  | { t: 'word'; v: string; quoted: boolean }
  | { t: 'range'; lo: string; hi: string; inclusive: [boolean, boolean] }
  | { t: 'colon' | 'lp' | 'rp' | 'neg' };

const MAX_Q = 2048;
/**
 * What one search may make the database do, bounded before it runs: each term is a pattern matched against, for
 * items, every visible item's title, snippet, description (up to 64,000 characters) and tags that the trigram indexes cannot rule
 * out, so the work grows with the terms (OR'd ones share one pass over the text), their length and their wildcards.
 */
export const SEARCH_BOUNDS = { terms: 32, patternChars: 512, wildcards: 8 } as const;

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
export function parseSearchQuery<F extends string, R extends string>(q: string, schema: SearchSchema<F, R>): SearchNode<F, R> {
  type Node = SearchNode<F, R>;
  const fields: readonly string[] = schema.fields;
  const ranges: readonly string[] = schema.ranges;
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
    if (tok.t === 'range') throw invalid(`A range needs a field: ${ranges.map((r) => `${r}:[from TO to]`).join(' or ')}.`);
    if (tok.t !== 'word') throw invalid(`Unexpected '${tok.t === 'colon' ? ':' : ')'}'.`);
    if (++terms > SEARCH_BOUNDS.terms) throw invalid(`More than ${SEARCH_BOUNDS.terms} search terms.`);
    pos++;
    if (toks[pos]?.t === 'colon' && !tok.quoted) {
      const field = tok.v.toLowerCase();
      const next = toks[pos + 1];
      if (next?.t === 'range') {
        if (!ranges.includes(field))
          throw invalid(`'${tok.v}' takes no range; ranges apply to ${ranges.join(' and ')} (epoch milliseconds).`);
        pos += 2;
        return { kind: 'range', field: field as R, from: epoch(next.lo), to: epoch(next.hi), inclusive: next.inclusive };
      }
      if (!fields.includes(field)) {
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
    if (patternChars > SEARCH_BOUNDS.patternChars)
      throw invalid(`The search terms are longer than ${SEARCH_BOUNDS.patternChars} characters together.`);
    if (wildcards > SEARCH_BOUNDS.wildcards) throw invalid(`More than ${SEARCH_BOUNDS.wildcards} '*' wildcards.`);
    return { kind: 'term', field, value };
  };

  if (!toks.length) throw invalid("'q' is empty.");
  const node = parseOr();
  if (pos < toks.length) throw invalid(`Unexpected ')' at term ${pos + 1}.`);
  return node;
}
