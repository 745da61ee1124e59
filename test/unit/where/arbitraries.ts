/**
 * fast-check generators of well-typed where trees over FIELDS (fixtures.ts), and of hostile-ish text.
 * Trees use only canonical literals, so printWhere(tree) parses back to a tree that prints identically.
 */
import fc from 'fast-check';
import { ArithOp, CompareOp, WhereNode } from '../../../src/where/ast';
import { floatText } from '../../../src/where/literals';

type Kind = 'int' | 'float' | 'text' | 'temporal' | 'uuid' | 'bool';
type Arb = fc.Arbitrary<WhereNode>;

const pos = 0;
const field = (name: string): WhereNode => ({ kind: 'field', name, pos });
const call = (fn: Extract<WhereNode, { kind: 'call' }>['fn'], ...args: WhereNode[]): WhereNode => ({ kind: 'call', fn, args, pos });

/** Characters that stress quoting and escaping, plus ordinary ones. */
const textChar = fc.oneof(
  fc.constantFrom("'", "''", '"', '\\', '%', '_', '!', '-', '--', '/*', ';', ' ', '\t', '\n', '’', 'ü', '中', '😀', '$1', ':'),
  fc.constantFrom(...'abcXYZ0129 '.split('')),
);
export const textValue = fc.string({ unit: textChar, maxLength: 6 });

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const day = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
const ymd = (d: Date) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;

const LEAVES: Record<Exclude<Kind, 'bool'>, Arb> = {
  int: fc.oneof(
    {
      weight: 3,
      arbitrary: fc.integer({ min: 0, max: 2000 }).map((n): WhereNode => ({ kind: 'number', text: String(n), numType: 'int', pos })),
    },
    {
      weight: 1,
      arbitrary: fc
        .bigInt({ min: 0n, max: 2n ** 63n - 1n })
        .map((n): WhereNode => ({ kind: 'number', text: n.toString(), numType: 'int', pos })),
    },
    { weight: 4, arbitrary: fc.constantFrom('OBJECTID', 'POP', 'SMALL', 'BIG').map(field) },
  ),
  float: fc.oneof(
    fc
      .double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true })
      .map((x): WhereNode => ({ kind: 'number', text: floatText(x === 0 ? 0 : x), numType: 'float', pos })),
    fc.constantFrom('RATIO', 'SINGLE').map(field),
  ),
  text: fc.oneof(
    textValue.map((value): WhereNode => ({ kind: 'string', value, pos })),
    fc.constantFrom('NAME', 'Odd "Name"', 'DATE').map(field),
  ),
  temporal: fc.oneof(
    day.map((d): WhereNode => ({ kind: 'date', value: ymd(d), pos })),
    fc.tuple(day, fc.integer({ min: 0, max: 86399 }), fc.option(fc.integer({ min: 0, max: 999999 }))).map(([d, s, us]): WhereNode => ({
      kind: 'timestamp',
      value: `${ymd(d)} ${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}${us === null ? '' : `.${pad(us, 6)}`}`,
      pos,
    })),
    fc.constant(field('CREATED')),
    fc.constantFrom<WhereNode>({ kind: 'current', which: 'CURRENT_DATE', pos }, { kind: 'current', which: 'CURRENT_TIMESTAMP', pos }),
  ),
  uuid: fc.constantFrom('GLOBALID', 'OWNER_GUID').map(field),
};

const interval: Arb = fc
  .tuple(
    fc.oneof(fc.integer({ min: 0, max: 1000 }).map(String), fc.constantFrom('1.5', '0.25')),
    fc.constantFrom('DAY', 'HOUR', 'MINUTE', 'SECOND') as fc.Arbitrary<'DAY'>,
  )
  .map(([value, unit]) => ({ kind: 'interval', value, unit, pos }));

const memo = new Map<string, Arb>();

/** A well-typed tree of `kind`, at most `depth` operator levels deep. */
export function typed(kind: Kind, depth: number): Arb {
  const key = `${kind}/${depth}`;
  if (!memo.has(key)) memo.set(key, build(kind, Math.max(depth, 0)));
  return memo.get(key)!;
}

/** A random well-typed where clause tree. */
export const whereTree = (depth = 3) => typed('bool', depth);

function build(kind: Kind, d: number): Arb {
  const sub = (k: Kind) => typed(k, d - 1);
  if (kind === 'bool') return bool(d);
  if (d === 0) return LEAVES[kind];
  const num = fc.oneof(sub('int'), sub('float'));
  const arith = (ops: ArithOp[], l: Arb, r: Arb): Arb =>
    fc.tuple(fc.constantFrom(...ops), l, r).map(([op, left, right]) => ({ kind: 'arith', op, left, right, pos }));
  const cast = (to: string[], arg: Arb): Arb =>
    fc.tuple(fc.constantFrom(...to), arg).map(([t, a]): WhereNode => {
      const [name, len] = t.split(':');
      return { kind: 'cast', arg: a, to: name as 'INT', ...(len ? { length: Number(len) } : {}), pos };
    });
  const extract = (parts: string[]): Arb =>
    fc.tuple(fc.constantFrom(...parts), sub('temporal')).map(([part, arg]) => ({ kind: 'extract', part: part as 'YEAR', arg, pos }));
  const compound: Record<Exclude<Kind, 'bool'>, Arb[]> = {
    int: [
      arith(['+', '-', '*'], sub('int'), sub('int')),
      sub('int').map((arg): WhereNode => ({ kind: 'neg', arg, pos })),
      sub('int').map((a) => call('ABS', a)),
      fc.tuple(sub('int'), sub('int')).map(([a, b]) => call('MOD', a, b)),
      sub('text').map((a) => call('CHAR_LENGTH', a)),
      fc.tuple(sub('text'), sub('text')).map(([s, a]): WhereNode => ({ kind: 'position', sub: s, arg: a, pos })),
      extract(['YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE']),
      cast(['INT', 'SMALLINT'], fc.oneof(num, sub('text'))),
    ],
    float: [
      arith(['/'], num, num),
      arith(['+', '-', '*'], sub('float'), num),
      sub('float').map((arg): WhereNode => ({ kind: 'neg', arg, pos })),
      fc
        .tuple(fc.constantFrom('ABS', 'CEILING', 'FLOOR', 'ROUND', 'LOG', 'LOG10') as fc.Arbitrary<'ABS'>, sub('float'))
        .map(([fn, a]) => call(fn, a)),
      fc.tuple(num, num).map(([a, b]) => call('ROUND', a, b)),
      fc.tuple(num, num).map(([a, b]) => call('POWER', a, b)),
      fc.tuple(sub('float'), num).map(([a, b]) => call('MOD', a, b)),
      extract(['SECOND']),
      cast(['FLOAT', 'REAL', 'DOUBLE'], fc.oneof(num, sub('text'))),
    ],
    text: [
      fc.tuple(fc.constantFrom('UPPER', 'LOWER') as fc.Arbitrary<'UPPER'>, sub('text')).map(([fn, a]) => call(fn, a)),
      fc
        .tuple(fc.option(fc.constantFrom('BOTH', 'LEADING', 'TRAILING') as fc.Arbitrary<'BOTH'>), fc.option(sub('text')), sub('text'))
        .map(([side, chars, arg]): WhereNode => ({ kind: 'trim', ...(side ? { side } : {}), ...(chars ? { chars } : {}), arg, pos })),
      fc
        .tuple(sub('text'), num, fc.option(num))
        .map(([arg, start, length]): WhereNode => ({ kind: 'substring', arg, start, ...(length ? { length } : {}), pos })),
      fc.array(fc.oneof(sub('text'), num, sub('uuid')), { minLength: 2, maxLength: 3 }).map((args) => call('CONCAT', ...args)),
      cast(['VARCHAR', 'VARCHAR:1', 'VARCHAR:12'], fc.oneof(sub('text'), num, sub('temporal'), sub('uuid'))),
    ],
    temporal: [
      fc
        .tuple(fc.constantFrom('+', '-') as fc.Arbitrary<ArithOp>, sub('temporal'), interval)
        .map(([op, left, right]): WhereNode => ({ kind: 'arith', op, left, right, pos })),
      fc.tuple(interval, sub('temporal')).map(([left, right]): WhereNode => ({ kind: 'arith', op: '+', left, right, pos })),
      cast(['DATE', 'TIMESTAMP'], sub('temporal')),
    ],
    uuid: [],
  };
  return fc.oneof({ weight: 2, arbitrary: LEAVES[kind] }, ...compound[kind].map((arbitrary) => ({ weight: 1, arbitrary })));
}

const COMPARE_OPS: CompareOp[] = ['=', '<>', '<', '<=', '>', '>='];

function bool(d: number): Arb {
  const v = (k: Exclude<Kind, 'bool'>) => typed(k, d - 1);
  const num = fc.oneof(v('int'), v('float'));
  const stringy = fc.oneof({ weight: 3, arbitrary: v('text') }, { weight: 1, arbitrary: v('uuid') });
  const pairs: fc.Arbitrary<[WhereNode, WhereNode]>[] = [
    fc.tuple(num, num),
    fc.tuple(v('text'), v('text')),
    fc.tuple(v('temporal'), v('temporal')),
    fc.tuple(stringy, stringy),
  ];
  const anyValue = fc.oneof(num, v('text'), v('temporal'), v('uuid'));
  const leaves: Arb[] = [
    fc.tuple(fc.oneof(...pairs), fc.constantFrom(...COMPARE_OPS)).map(([[left, right], op]) => ({ kind: 'compare', op, left, right, pos })),
    fc
      .tuple(fc.boolean(), fc.oneof(fc.tuple(num, num, num), fc.tuple(v('temporal'), v('temporal'), v('temporal'))))
      .map(([negated, [expr, low, high]]): WhereNode => ({ kind: 'between', negated, expr, low, high, pos })),
    fc
      .tuple(
        fc.boolean(),
        fc.oneof(
          fc.tuple(num, fc.array(num, { minLength: 1, maxLength: 4 })),
          fc.tuple(v('text'), fc.array(v('text'), { minLength: 1, maxLength: 4 })),
        ),
      )
      .map(([negated, [expr, list]]): WhereNode => ({ kind: 'in', negated, expr, list, pos })),
    fc
      .tuple(fc.boolean(), stringy, v('text'))
      .map(([negated, expr, pattern]): WhereNode => ({ kind: 'like', negated, expr, pattern, pos })),
    fc.tuple(fc.boolean(), stringy, textValue, fc.constantFrom('!', '\\', '#', '%')).map(([negated, expr, raw, escape]): WhereNode => {
      // A pattern must not end in a lone escape character: drop escape characters, then end with an escaped '%'.
      const value = [...raw].filter((c) => c !== escape).join('') + `${escape}%`;
      return { kind: 'like', negated, expr, pattern: { kind: 'string', value, pos }, escape, pos };
    }),
    fc.tuple(fc.boolean(), anyValue).map(([negated, expr]): WhereNode => ({ kind: 'isNull', negated, expr, pos })),
  ];
  if (d <= 1) return fc.oneof(...leaves);
  const cond = typed('bool', d - 1);
  return fc.oneof(
    { weight: 3, arbitrary: fc.oneof(...leaves) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('and', 'or') as fc.Arbitrary<'and'>, fc.array(cond, { minLength: 2, maxLength: 3 }))
        .map(([kind, args]): WhereNode => ({ kind, args, pos })),
    },
    { weight: 1, arbitrary: cond.map((arg): WhereNode => ({ kind: 'not', arg, pos })) },
  );
}

/** Token soup: mostly grammar words and symbols in random order, to reach deep parser and checker paths. */
export const tokenSoup = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'pop',
        'name',
        'ratio',
        'created',
        'globalid',
        '"NAME"',
        '"x"',
        '=',
        '<>',
        '<',
        '>=',
        '(',
        ')',
        ',',
        '+',
        '-',
        '*',
        '/',
        'AND',
        'OR',
        'NOT',
        'IN',
        'BETWEEN',
        'LIKE',
        'ESCAPE',
        'IS',
        'NULL',
        "'x'",
        "'!'",
        "'5'",
        "'2020-01-01'",
        '1',
        '2.5',
        '1e3',
        'CAST',
        'AS',
        'INT',
        'VARCHAR',
        '(10)',
        'DATE',
        'TIMESTAMP',
        'INTERVAL',
        "'3'",
        'DAY',
        'CURRENT_DATE',
        'CURRENT_TIMESTAMP',
        'EXTRACT',
        'YEAR',
        'FROM',
        'FOR',
        'TRIM',
        'BOTH',
        'SUBSTRING',
        'POSITION',
        'CONCAT',
        'UPPER',
        'ROUND',
        'MOD',
        'LOG',
        'SELECT',
        ';',
        '--',
        '/*',
        "'",
        '"',
        '\\',
        '’',
        '\u0000',
      ),
      fc.string({ maxLength: 3 }),
    ),
    { maxLength: 25 },
  )
  .map((parts) => parts.join(' '));
