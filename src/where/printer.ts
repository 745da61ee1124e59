/**
 * Prints a tree back as ArcGIS standardized SQL. Parentheses are added only where precedence needs them, so
 * print → parse → print is stable (the round-trip property tests rely on it).
 */
import { WhereNode } from './ast';

/** Binding strength, loosest first; a child printed where a stronger one is required gets parentheses. */
const Prec = { Or: 1, And: 2, Not: 3, Predicate: 4, Sum: 5, Product: 6, Unary: 7, Atom: 8 } as const;
type Prec = (typeof Prec)[keyof typeof Prec];

/** Words a bare identifier must not be printed as: quoting them keeps the printed text unambiguous. */
const KEYWORDS = new Set([
  'AND',
  'OR',
  'NOT',
  'IN',
  'IS',
  'NULL',
  'LIKE',
  'BETWEEN',
  'ESCAPE',
  'FROM',
  'FOR',
  'AS',
  'SELECT',
  'DATE',
  'TIMESTAMP',
  'INTERVAL',
  'CURRENT_DATE',
  'CURRENT_TIMESTAMP',
  'BOTH',
  'LEADING',
  'TRAILING',
]);

const str = (v: string) => `'${v.replace(/'/g, "''")}'`;

function ident(name: string): string {
  const bare = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !KEYWORDS.has(name.toUpperCase());
  return bare ? name : `"${name.replace(/"/g, '""')}"`;
}

function prec(n: WhereNode): Prec {
  switch (n.kind) {
    case 'or':
      return Prec.Or;
    case 'and':
      return Prec.And;
    case 'not':
      return Prec.Not;
    case 'compare':
    case 'between':
    case 'in':
    case 'like':
    case 'isNull':
      return Prec.Predicate;
    case 'arith':
      return n.op === '+' || n.op === '-' ? Prec.Sum : Prec.Product;
    case 'neg':
      return Prec.Unary;
    case 'number':
      return n.text.startsWith('-') ? Prec.Unary : Prec.Atom;
    default:
      return Prec.Atom;
  }
}

export function printWhere(node: WhereNode): string {
  return p(node, Prec.Or);
}

/** Prints `n` in a position that needs at least `min` binding strength. */
function p(n: WhereNode, min: Prec): string {
  const s = text(n);
  return prec(n) < min ? `(${s})` : s;
}

/** Value operands of predicates and function arguments are parsed as sums. */
const v = (n: WhereNode) => p(n, Prec.Sum);
const not = (negated: boolean) => (negated ? 'NOT ' : '');

function text(n: WhereNode): string {
  switch (n.kind) {
    case 'or':
    case 'and': {
      const min = n.kind === 'or' ? Prec.And : Prec.Not;
      return n.args.map((a) => p(a, min)).join(n.kind === 'or' ? ' OR ' : ' AND ');
    }
    case 'not':
      return `NOT ${p(n.arg, Prec.Not)}`;
    case 'compare':
      return `${v(n.left)} ${n.op} ${v(n.right)}`;
    case 'between':
      return `${v(n.expr)} ${not(n.negated)}BETWEEN ${v(n.low)} AND ${v(n.high)}`;
    case 'in':
      return `${v(n.expr)} ${not(n.negated)}IN (${n.list.map(v).join(', ')})`;
    case 'like':
      return `${v(n.expr)} ${not(n.negated)}LIKE ${v(n.pattern)}${n.escape === undefined ? '' : ` ESCAPE ${str(n.escape)}`}`;
    case 'isNull':
      return `${v(n.expr)} IS ${not(n.negated)}NULL`;
    case 'arith': {
      // Left-associative: the right operand needs a strictly stronger binding.
      const own = prec(n);
      return `${p(n.left, own)} ${n.op} ${p(n.right, (own + 1) as Prec)}`;
    }
    case 'neg': {
      // Never print "--": it would start a comment.
      const arg = p(n.arg, Prec.Unary);
      return arg.startsWith('-') ? `-(${arg})` : `-${arg}`;
    }
    case 'field':
      return ident(n.name);
    case 'number':
      return n.text;
    case 'string':
    case 'guid':
      return str(n.value);
    case 'date':
      return `DATE ${str(n.value)}`;
    case 'timestamp':
      return `TIMESTAMP ${str(n.value)}`;
    case 'interval':
      return `INTERVAL ${str(n.value)} ${n.unit}`;
    case 'current':
      return n.which;
    case 'call':
      return `${n.fn}(${n.args.map(v).join(', ')})`;
    case 'extract':
      return `EXTRACT(${n.part} FROM ${v(n.arg)})`;
    case 'substring':
      return `SUBSTRING(${v(n.arg)} FROM ${v(n.start)}${n.length ? ` FOR ${v(n.length)}` : ''})`;
    case 'trim':
      if (!n.side && !n.chars) return `TRIM(${v(n.arg)})`;
      return `TRIM(${n.side ? n.side + ' ' : ''}${n.chars ? v(n.chars) + ' ' : ''}FROM ${v(n.arg)})`;
    case 'position':
      return `POSITION(${v(n.sub)} IN ${v(n.arg)})`;
    case 'cast':
      return `CAST(${v(n.arg)} AS ${n.to}${n.length ? `(${n.length})` : ''})`;
  }
}
