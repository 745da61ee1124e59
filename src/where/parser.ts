/**
 * Recursive-descent parser: tokens → syntax tree (unchecked: fields unresolved, no types).
 *
 * Grammar, lowest precedence first:
 *   or        := and (OR and)*
 *   and       := not (AND not)*
 *   not       := NOT not | predicate
 *   predicate := sum [ compareOp sum | [NOT] BETWEEN sum AND sum | [NOT] IN '(' sum, ... ')'
 *                    | [NOT] LIKE sum [ESCAPE 'c'] | IS [NOT] NULL ]
 *   sum       := product (('+' | '-') product)*
 *   product   := unary (('*' | '/') unary)*
 *   unary     := '-' unary | '+' unary | primary
 *   primary   := number | 'string' | DATE 'x' | TIMESTAMP 'x' | INTERVAL 'n' unit | CURRENT_DATE | CURRENT_TIMESTAMP
 *              | field | "field" | function '(' ... ')' | '(' or ')'
 * Value positions (operands, function arguments) parse `sum`, so a condition can only appear there in parentheses,
 * where the checker rejects it.
 */
import { CastType, CompareOp, ExtractPart, FUNCTION_ARITY, FunctionName, IntervalUnit, TrimSide, WhereNode, children } from './ast';
import { show, whereError } from './errors';
import { MAX_INTERVAL_SECONDS, UNIT_SECONDS, canonicalNumber, parseTemporal } from './literals';
import { OpToken, Token } from './lexer';

export interface ParseLimits {
  maxDepth: number;
  maxInList: number;
}

/** Words that can never be a bare field name. */
const RESERVED = new Set(['AND', 'OR', 'NOT', 'IN', 'IS', 'NULL', 'LIKE', 'BETWEEN', 'ESCAPE', 'FROM', 'FOR', 'AS', 'SELECT']);
const COMPARE_OPS: Partial<Record<OpToken, CompareOp>> = { '=': '=', '<>': '<>', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
const EXTRACT_PARTS = new Set<string>(['YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND']);
const TRIM_SIDES = new Set<string>(['BOTH', 'LEADING', 'TRAILING']);
/** Postgres' own maximum for varchar(n). */
const MAX_VARCHAR = 10485760;
/**
 * Postgres' FUNC_MAX_ARGS: a call with more arguments fails in Postgres (SQLSTATE 54023). Every function the SQL
 * emitter writes takes as many arguments as the clause gave it (or fewer), so bounding calls here bounds them all.
 */
export const PG_MAX_FUNCTION_ARGS = 100;

export function parseTokens(toks: Token[], limits: ParseLimits): WhereNode {
  const tree = new Parser(toks, limits).parse();
  checkDepth(tree, limits.maxDepth);
  return tree;
}

class Parser {
  private i = 0;
  private depth = 0;

  constructor(
    private readonly toks: Token[],
    private readonly limits: ParseLimits,
  ) {}

  parse(): WhereNode {
    if (this.peek().t === 'eof') throw whereError('The where clause is empty', undefined);
    const tree = this.or();
    const t = this.peek();
    if (t.t !== 'eof') throw this.unexpected(t);
    return tree;
  }

  // ---- token helpers -------------------------------------------------------------------------------------------

  private peek(ahead = 0): Token {
    return this.toks[Math.min(this.i + ahead, this.toks.length - 1)];
  }

  private next(): Token {
    const t = this.peek();
    if (t.t !== 'eof') this.i++;
    return t;
  }

  private isOp(v: OpToken, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.t === 'op' && t.v === v;
  }

  private isWord(w: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.t === 'ident' && t.upper === w;
  }

  private eatWord(w: string): boolean {
    if (!this.isWord(w)) return false;
    this.i++;
    return true;
  }

  private expectOp(v: OpToken): void {
    if (!this.isOp(v)) throw this.unexpected(this.peek(), `'${v}'`);
    this.i++;
  }

  private expectWord(w: string): void {
    if (!this.eatWord(w)) throw this.unexpected(this.peek(), w);
  }

  private unexpected(t: Token, expected?: string) {
    const want = expected ? `Expected ${expected} but found ` : 'Unexpected ';
    if (t.t === 'eof') return whereError(`${expected ? want : 'Unexpected '}the end of the where clause`, t.pos);
    const what = t.t === 'str' ? `string ${show(t.v)}` : t.t === 'num' ? `number ${t.v}` : t.t === 'qident' ? show(t.v, '"') : show(t.v);
    return whereError(`${want}${what}`, t.pos);
  }

  /** Every construct that can nest (parentheses, NOT, unary minus, function calls) goes through here. */
  private nested<T>(pos: number, body: () => T): T {
    if (++this.depth > this.limits.maxDepth) throw whereError(`Nesting is deeper than ${this.limits.maxDepth} levels`, pos);
    try {
      return body();
    } finally {
      this.depth--;
    }
  }

  // ---- conditions ----------------------------------------------------------------------------------------------

  private or(): WhereNode {
    const first = this.and();
    const args = [first];
    while (this.eatWord('OR')) args.push(this.and());
    return args.length === 1 ? first : { kind: 'or', args, pos: first.pos };
  }

  private and(): WhereNode {
    const first = this.not();
    const args = [first];
    while (this.eatWord('AND')) args.push(this.not());
    return args.length === 1 ? first : { kind: 'and', args, pos: first.pos };
  }

  private not(): WhereNode {
    const t = this.peek();
    if (!this.isWord('NOT')) return this.predicate();
    this.i++;
    return this.nested(t.pos, () => ({ kind: 'not', arg: this.not(), pos: t.pos }));
  }

  private predicate(): WhereNode {
    const expr = this.sum();
    const t = this.peek();
    const op = t.t === 'op' ? COMPARE_OPS[t.v] : undefined;
    if (op) {
      this.i++;
      return { kind: 'compare', op, left: expr, right: this.sum(), pos: t.pos };
    }
    if (this.isWord('IS')) {
      this.i++;
      const negated = this.eatWord('NOT');
      this.expectWord('NULL');
      return { kind: 'isNull', negated, expr, pos: t.pos };
    }
    const negated = this.isWord('NOT') && ['IN', 'BETWEEN', 'LIKE'].some((w) => this.isWord(w, 1));
    if (negated) this.i++;
    if (this.eatWord('BETWEEN')) {
      const low = this.sum();
      this.expectWord('AND');
      return { kind: 'between', negated, expr, low, high: this.sum(), pos: t.pos };
    }
    if (this.eatWord('IN')) return { kind: 'in', negated, expr, list: this.inList(), pos: t.pos };
    if (this.eatWord('LIKE')) {
      const pattern = this.sum();
      if (!this.eatWord('ESCAPE')) return { kind: 'like', negated, expr, pattern, pos: t.pos };
      const e = this.next();
      if (e.t !== 'str' || [...e.v].length !== 1) throw whereError('ESCAPE needs a one-character string', e.pos);
      return { kind: 'like', negated, expr, pattern, escape: e.v, pos: t.pos };
    }
    return expr;
  }

  private inList(): WhereNode[] {
    const open = this.peek();
    this.expectOp('(');
    if (this.isOp(')')) throw whereError('The IN list is empty', open.pos);
    const list = [this.sum()];
    while (this.isOp(',')) {
      this.i++;
      if (list.length >= this.limits.maxInList) throw whereError(`The IN list has more than ${this.limits.maxInList} values`, open.pos);
      list.push(this.sum());
    }
    this.expectOp(')');
    return list;
  }

  // ---- values --------------------------------------------------------------------------------------------------

  private sum(): WhereNode {
    let left = this.product();
    for (let t = this.peek(); t.t === 'op' && (t.v === '+' || t.v === '-'); t = this.peek()) {
      this.i++;
      left = { kind: 'arith', op: t.v, left, right: this.product(), pos: t.pos };
    }
    return left;
  }

  private product(): WhereNode {
    let left = this.unary();
    for (let t = this.peek(); t.t === 'op' && (t.v === '*' || t.v === '/'); t = this.peek()) {
      this.i++;
      left = { kind: 'arith', op: t.v, left, right: this.unary(), pos: t.pos };
    }
    return left;
  }

  private unary(): WhereNode {
    const t = this.peek();
    if (this.isOp('-')) {
      this.i++;
      return this.nested(t.pos, () => ({ kind: 'neg', arg: this.unary(), pos: t.pos }));
    }
    if (this.isOp('+')) {
      this.i++;
      return this.nested(t.pos, () => this.unary());
    }
    return this.primary();
  }

  private primary(): WhereNode {
    const t = this.next();
    switch (t.t) {
      case 'num': {
        const n = canonicalNumber(t.v);
        if (!n) throw whereError(`Number ${show(t.v)} is out of range`, t.pos);
        return { kind: 'number', ...n, pos: t.pos };
      }
      case 'str':
        return { kind: 'string', value: t.v, pos: t.pos };
      case 'qident':
        return { kind: 'field', name: t.v, quoted: true, pos: t.pos };
      case 'op':
        if (t.v !== '(') throw this.unexpected(t);
        return this.nested(t.pos, () => {
          const inner = this.or();
          this.expectOp(')');
          return inner;
        });
      case 'ident':
        return this.word(t);
      default:
        throw this.unexpected(t);
    }
  }

  /** A bare word in value position: typed literal, niladic function, function call or field name. */
  private word(t: Extract<Token, { t: 'ident' }>): WhereNode {
    const w = t.upper;
    if (w === 'SELECT') throw whereError('Subqueries are not allowed (SELECT)', t.pos);
    if (w === 'NULL') throw whereError('NULL is only allowed in IS NULL and IS NOT NULL', t.pos);
    if (RESERVED.has(w)) throw whereError(`Unexpected keyword ${show(t.v)}`, t.pos);
    const after = this.peek();
    if ((w === 'DATE' || w === 'TIMESTAMP') && after.t === 'str') {
      this.i++;
      const lit = parseTemporal(after.v);
      // DATE 'yyyy-mm-dd hh:mm:ss' is accepted too (ArcGIS documents both spellings); it is a timestamp.
      if (!lit) throw whereError(`Invalid ${w} literal ${show(after.v)} (use 'yyyy-mm-dd' or 'yyyy-mm-dd hh:mm:ss')`, after.pos);
      if (w === 'TIMESTAMP' && lit.kind === 'date') return { kind: 'timestamp', value: `${lit.value} 00:00:00`, pos: t.pos };
      return { kind: lit.kind, value: lit.value, pos: t.pos };
    }
    if (w === 'INTERVAL' && after.t === 'str') return this.interval(t.pos);
    if (w === 'CURRENT_DATE' || w === 'CURRENT_TIMESTAMP') {
      if (this.isOp('(') && this.isOp(')', 1)) this.i += 2;
      return { kind: 'current', which: w, pos: t.pos };
    }
    if (!this.isOp('(')) return { kind: 'field', name: t.v, pos: t.pos };
    this.i++;
    return this.nested(t.pos, () => {
      const node = this.call(t);
      this.expectOp(')');
      return node;
    });
  }

  private interval(pos: number): WhereNode {
    const s = this.next() as Extract<Token, { t: 'str' }>;
    const n = canonicalNumber(s.v.trim());
    const u = this.next();
    if (u.t !== 'ident' || !(u.upper in UNIT_SECONDS)) throw this.unexpected(u, 'DAY, HOUR, MINUTE or SECOND');
    const unit = u.upper as IntervalUnit;
    if (!n || Math.abs(Number(n.text) * UNIT_SECONDS[unit]) > MAX_INTERVAL_SECONDS)
      throw whereError(`Invalid INTERVAL value ${show(s.v)}`, s.pos);
    return { kind: 'interval', value: n.text, unit, pos };
  }

  /** After `name(`; the caller consumes the closing parenthesis. */
  private call(t: Extract<Token, { t: 'ident' }>): WhereNode {
    const pos = t.pos;
    switch (t.upper) {
      case 'EXTRACT': {
        const p = this.next();
        if (p.t !== 'ident' || !EXTRACT_PARTS.has(p.upper)) throw this.unexpected(p, 'YEAR, MONTH, DAY, HOUR, MINUTE or SECOND');
        this.expectWord('FROM');
        return { kind: 'extract', part: p.upper as ExtractPart, arg: this.sum(), pos };
      }
      case 'CAST': {
        const arg = this.sum();
        this.expectWord('AS');
        return { kind: 'cast', arg, ...this.castType(), pos };
      }
      case 'SUBSTRING': {
        const arg = this.sum();
        // SUBSTRING(s, start[, len]) is the comma spelling some clients send; it means the same.
        const comma = this.isOp(',');
        if (comma) this.i++;
        else this.expectWord('FROM');
        const start = this.sum();
        const more = comma ? this.isOp(',') : this.isWord('FOR');
        if (!more) return { kind: 'substring', arg, start, pos };
        this.i++;
        return { kind: 'substring', arg, start, length: this.sum(), pos };
      }
      case 'POSITION': {
        const sub = this.sum();
        this.expectWord('IN');
        return { kind: 'position', sub, arg: this.sum(), pos };
      }
      case 'TRIM':
        return this.trim(pos);
      default:
        return this.plainCall(t);
    }
  }

  private castType(): { to: CastType; length?: number } {
    const t = this.next();
    const w = t.t === 'ident' ? t.upper : '';
    switch (w) {
      case 'INT':
      case 'INTEGER':
        return { to: 'INT' };
      case 'DOUBLE':
        this.eatWord('PRECISION');
        return { to: 'DOUBLE' };
      case 'SMALLINT':
      case 'FLOAT':
      case 'REAL':
      case 'DATE':
      case 'TIMESTAMP':
        return { to: w };
      case 'VARCHAR': {
        if (!this.isOp('(')) return { to: 'VARCHAR' };
        this.i++;
        const n = this.next();
        const len = n.t === 'num' && /^\d+$/.test(n.v) ? Number(n.v) : NaN;
        if (!(len >= 1 && len <= MAX_VARCHAR)) throw whereError(`VARCHAR length must be between 1 and ${MAX_VARCHAR}`, n.pos);
        this.expectOp(')');
        return { to: 'VARCHAR', length: len };
      }
      default:
        throw whereError(
          `Unknown type ${t.t === 'eof' ? 'at the end' : show('v' in t ? t.v : '')} in CAST (use INT, SMALLINT, FLOAT, REAL, DOUBLE, VARCHAR(n), DATE or TIMESTAMP)`,
          t.pos,
        );
    }
  }

  /** TRIM(s) | TRIM([BOTH|LEADING|TRAILING] [chars] FROM s) */
  private trim(pos: number): WhereNode {
    const sideTok = this.peek();
    const side = sideTok.t === 'ident' && TRIM_SIDES.has(sideTok.upper) ? (sideTok.upper as TrimSide) : undefined;
    if (side) this.i++;
    if (this.eatWord('FROM')) return { kind: 'trim', side, arg: this.sum(), pos };
    const first = this.sum();
    if (this.eatWord('FROM')) return { kind: 'trim', side, chars: first, arg: this.sum(), pos };
    if (side) throw this.unexpected(this.peek(), 'FROM');
    return { kind: 'trim', arg: first, pos };
  }

  private plainCall(t: Extract<Token, { t: 'ident' }>): WhereNode {
    if (!(t.upper in FUNCTION_ARITY)) throw whereError(`Unknown function ${show(t.v)}`, t.pos);
    const fn = t.upper as FunctionName;
    const args: WhereNode[] = [];
    if (!this.isOp(')')) {
      args.push(this.sum());
      while (this.isOp(',')) {
        this.i++;
        const most = Math.min(this.limits.maxInList, PG_MAX_FUNCTION_ARGS);
        if (args.length >= most) throw whereError(`${fn} has too many arguments (at most ${most})`, t.pos);
        args.push(this.sum());
      }
    }
    const [min, max] = FUNCTION_ARITY[fn];
    if (args.length < min || args.length > max) {
      const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} or ${max}`;
      throw whereError(`${fn} takes ${want} argument${min === 1 && max === 1 ? '' : 's'}, not ${args.length}`, t.pos);
    }
    return { kind: 'call', fn, args, pos: t.pos };
  }
}

/**
 * Left-associative chains (a + b + c ...) are built in loops, so the parser's nesting counter does not see them.
 * This iterative pass bounds the tree depth too, so the recursive checker and renderers stay far from stack limits.
 */
function checkDepth(root: WhereNode, max: number): void {
  const stack: [WhereNode, number][] = [[root, 1]];
  while (stack.length) {
    const [n, d] = stack.pop()!;
    if (d > max) throw whereError(`Nesting is deeper than ${max} levels`, n.pos);
    for (const c of children(n)) stack.push([c, d + 1]);
  }
}
