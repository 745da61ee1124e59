import { Errors } from '../core/errors/arcgis-error';

/** Parsed form of the portal search `q`: terms joined by AND / OR / NOT with parentheses. */
export type SearchNode =
  | { kind: 'term'; field: SearchField | null; value: string }
  | { kind: 'and' | 'or'; left: SearchNode; right: SearchNode }
  | { kind: 'not'; node: SearchNode };

export const SEARCH_FIELDS = [
  'id',
  'owner',
  'group',
  'type',
  'title',
  'tags',
  'typekeywords',
  'orgid',
  'access',
  'name',
  'description',
  'snippet',
] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

type Token = { t: 'word'; v: string; quoted: boolean } | { t: 'colon' | 'lp' | 'rp' };

const MAX_Q = 2048;
const MAX_TERMS = 100;

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
    } else if (c === '"') {
      const end = q.indexOf('"', i + 1);
      if (end < 0) throw invalid(`Unterminated quote at position ${i + 1}.`);
      out.push({ t: 'word', v: q.slice(i + 1, end), quoted: true });
      i = end + 1;
    } else {
      let j = i;
      while (j < q.length && !/[\s:()"]/.test(q[j])) j++;
      out.push({ t: 'word', v: q.slice(i, j), quoted: false });
      i = j;
    }
  }
  return out;
}

function invalid(detail: string) {
  return Errors.badRequest("Invalid value for parameter 'q'.", [detail]);
}

const isOp = (tok: Token | undefined, op: string) => tok?.t === 'word' && !tok.quoted && tok.v.toUpperCase() === op;

/** Grammar: or := and (OR and)* ; and := unary ((AND)? unary)* ; unary := NOT unary | ( or ) | term. */
export function parseSearchQuery(q: string): SearchNode {
  if (q.length > MAX_Q) throw invalid(`'q' is longer than ${MAX_Q} characters.`);
  const toks = tokenize(q);
  let pos = 0;
  let terms = 0;

  const parseOr = (): SearchNode => {
    let left = parseAnd();
    while (isOp(toks[pos], 'OR')) {
      pos++;
      left = { kind: 'or', left, right: parseAnd() };
    }
    return left;
  };
  const parseAnd = (): SearchNode => {
    let left = parseUnary();
    for (;;) {
      if (isOp(toks[pos], 'AND')) pos++;
      else if (!toks[pos] || toks[pos].t === 'rp' || isOp(toks[pos], 'OR')) return left;
      left = { kind: 'and', left, right: parseUnary() };
    }
  };
  const parseUnary = (): SearchNode => {
    const tok = toks[pos];
    if (!tok) throw invalid('The query ends where a search term was expected.');
    if (isOp(tok, 'NOT')) {
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
    if (tok.t !== 'word') throw invalid(`Unexpected '${tok.t === 'colon' ? ':' : ')'}'.`);
    if (++terms > MAX_TERMS) throw invalid(`More than ${MAX_TERMS} search terms.`);
    pos++;
    if (toks[pos]?.t === 'colon' && !tok.quoted) {
      const field = tok.v.toLowerCase();
      if (!(SEARCH_FIELDS as readonly string[]).includes(field)) {
        throw invalid(`Unknown search field '${tok.v}'. Supported fields: ${SEARCH_FIELDS.join(', ')}.`);
      }
      pos++;
      const value = toks[pos];
      if (value?.t !== 'word') throw invalid(`Missing value after '${tok.v}:'.`);
      pos++;
      return { kind: 'term', field: field as SearchField, value: value.v };
    }
    return { kind: 'term', field: null, value: tok.v };
  };

  if (!toks.length) throw invalid("'q' is empty.");
  const node = parseOr();
  if (pos < toks.length) throw invalid(`Unexpected ')' at term ${pos + 1}.`);
  return node;
}
