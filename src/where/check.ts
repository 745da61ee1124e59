/**
 * Semantic pass: resolves field names against the layer, assigns a ValueType to every node and rejects
 * combinations Postgres would fail on at run time. Returns a new tree; the input is not modified.
 *
 * Type rules (the point is that compiled SQL never raises a Postgres type error):
 * - Comparisons, BETWEEN and IN need comparable sides: number~number, string~string, date/time~date/time,
 *   GUID~GUID and GUID~string (compared as text). Anything else, e.g. a string field against a number, is rejected.
 * - A string *literal* meeting a number, date or GUID is converted when it is one ('5' → 5, '2020-01-01' → DATE,
 *   '{...}' → GUID); a string literal that is not a GUID stays a string and is compared as text.
 * - LIKE needs a string (or GUID, as text) on the left and a string pattern. With ESCAPE the pattern must be a
 *   literal, checked so it cannot end in the escape character.
 * - Arithmetic needs numbers, except date/time ± INTERVAL. Conditions cannot be used as values and vice versa.
 * - NULL only appears in IS [NOT] NULL (the parser enforces it), so no untyped NULL ever reaches Postgres.
 */
import { CompareOp, FieldNode, StringNode, ValueType, WhereField, WhereNode } from './ast';
import { show, whereError } from './errors';
import { canonicalNumber, canonicalUuid, parseTemporal } from './literals';

const FIELD_TYPES: Record<WhereField['type'], ValueType> = {
  esriFieldTypeOID: 'int',
  esriFieldTypeSmallInteger: 'int',
  esriFieldTypeInteger: 'int',
  esriFieldTypeBigInteger: 'int',
  esriFieldTypeSingle: 'float',
  esriFieldTypeDouble: 'float',
  esriFieldTypeString: 'text',
  esriFieldTypeDate: 'timestamptz',
  esriFieldTypeGUID: 'uuid',
  esriFieldTypeGlobalID: 'uuid',
};

export const isNumeric = (t?: ValueType) => t === 'int' || t === 'float';
export const isTemporal = (t?: ValueType) => t === 'date' || t === 'timestamp' || t === 'timestamptz';
const isStringy = (t?: ValueType) => t === 'text' || t === 'uuid';

const DESCRIBE: Record<ValueType, string> = {
  int: 'a number',
  float: 'a number',
  text: 'a string',
  date: 'a date',
  timestamp: 'a date',
  timestamptz: 'a date',
  uuid: 'a GUID',
  interval: 'an interval',
  bool: 'a condition',
};

/**
 * Field values the string functions of one clause may copy per row, all together. CONCAT of CONCATs multiplies what a
 * row costs: a clause of a few thousand characters can build megabytes per row and burn minutes of CPU on a large
 * layer. 64 leaves room for any real expression while a clause at the bound costs a public layer's readers little.
 */
export const MAX_TEXT_COPIES = 64;

export function checkTree(root: WhereNode, fields: WhereField[]): WhereNode {
  const checked = new Checker(fields).node(root);
  if (checked.type !== 'bool') throw whereError(`Expected a condition but found ${DESCRIBE[checked.type!]}`, root.pos);
  const copies = textCopies(checked);
  if (copies > MAX_TEXT_COPIES)
    throw whereError(
      `The clause's string functions copy field values ${copies} times per row (at most ${MAX_TEXT_COPIES}); simplify its CONCATs`,
      root.pos,
    );
  return checked;
}

/** The nodes directly under `n`. */
function children(n: WhereNode): WhereNode[] {
  const out: WhereNode[] = [];
  for (const v of Object.values(n)) {
    if (Array.isArray(v)) out.push(...v.filter(isNode));
    else if (isNode(v)) out.push(v);
  }
  return out;
}
const isNode = (v: unknown): v is WhereNode => typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string';

/** Whether `n` builds a new string per row (its cost is the width of what it builds). */
const buildsText = (n: WhereNode) =>
  (n.kind === 'call' && ['CONCAT', 'UPPER', 'LOWER'].includes(n.fn)) ||
  n.kind === 'substring' ||
  n.kind === 'trim' ||
  (n.kind === 'cast' && n.to === 'VARCHAR');

/** Field values a string expression carries: CONCAT adds its arguments up; the other string functions pass theirs on. */
function width(n: WhereNode): number {
  if (n.kind === 'field') return 1;
  if (n.kind === 'call' && n.fn === 'CONCAT') return n.args.reduce((sum, a) => sum + width(a), 0);
  if (buildsText(n)) return width((n as { arg?: WhereNode; args?: WhereNode[] }).arg ?? (n as { args: WhereNode[] }).args[0]);
  return 0;
}

/** Every string built in the tree, by width: nested CONCATs count at each level, since each level is built. */
function textCopies(n: WhereNode): number {
  return (buildsText(n) ? width(n) : 0) + children(n).reduce((sum, c) => sum + textCopies(c), 0);
}

class Checker {
  private readonly byLower = new Map<string, WhereField[]>();

  constructor(private readonly fields: WhereField[]) {
    for (const f of fields) {
      const k = f.name.toLowerCase();
      this.byLower.set(k, [...(this.byLower.get(k) ?? []), f]);
    }
  }

  /** Any node; sets `type`. */
  node(n: WhereNode): WhereNode {
    switch (n.kind) {
      case 'and':
      case 'or':
        return { ...n, args: n.args.map((a) => this.cond(a)), type: 'bool' };
      case 'not':
        return { ...n, arg: this.cond(n.arg), type: 'bool' };
      case 'compare': {
        const [left, right] = this.comparable(this.value(n.left), this.value(n.right), n.pos, n.op);
        return { ...n, left, right, type: 'bool' };
      }
      case 'between': {
        const [expr, [low, high]] = this.comparableList(
          this.value(n.expr),
          [n.low, n.high].map((x) => this.value(x)),
          n.pos,
        );
        return { ...n, expr, low, high, type: 'bool' };
      }
      case 'in': {
        const [expr, list] = this.comparableList(
          this.value(n.expr),
          n.list.map((x) => this.value(x)),
          n.pos,
        );
        return { ...n, expr, list, type: 'bool' };
      }
      case 'like':
        return this.like(n);
      case 'isNull':
        return { ...n, expr: this.value(n.expr), type: 'bool' };
      case 'arith':
        return this.arith(n);
      case 'neg': {
        const arg = this.value(n.arg);
        if (!isNumeric(arg.type)) throw whereError(`Unary minus needs a number, not ${DESCRIBE[arg.type!]}`, n.pos);
        return { ...n, arg, type: arg.type };
      }
      case 'field':
        return this.field(n);
      case 'number':
        return { ...n, type: n.numType };
      case 'string':
        return { ...n, type: 'text' };
      case 'date':
      case 'timestamp':
        return { ...n, type: n.kind };
      case 'guid':
        return { ...n, type: 'uuid' };
      case 'interval':
        return { ...n, type: 'interval' };
      case 'current':
        return { ...n, type: n.which === 'CURRENT_DATE' ? 'date' : 'timestamptz' };
      case 'call':
        return this.call(n);
      case 'extract': {
        const arg = this.value(n.arg);
        if (!isTemporal(arg.type)) throw whereError(`EXTRACT needs a date, not ${DESCRIBE[arg.type!]}`, n.pos);
        return { ...n, arg, type: n.part === 'SECOND' ? 'float' : 'int' };
      }
      case 'substring': {
        const arg = this.expect(n.arg, 'text', 'SUBSTRING');
        const start = this.expect(n.start, 'number', 'SUBSTRING');
        const length = n.length && this.expect(n.length, 'number', 'SUBSTRING');
        return { ...n, arg, start, ...(length ? { length } : {}), type: 'text' };
      }
      case 'trim': {
        const chars = n.chars && this.expect(n.chars, 'text', 'TRIM');
        return { ...n, ...(chars ? { chars } : {}), arg: this.expect(n.arg, 'text', 'TRIM'), type: 'text' };
      }
      case 'position':
        return { ...n, sub: this.expect(n.sub, 'text', 'POSITION'), arg: this.expect(n.arg, 'text', 'POSITION'), type: 'int' };
      case 'cast':
        return this.cast(n);
    }
  }

  private cond(n: WhereNode): WhereNode {
    const c = this.node(n);
    if (c.type !== 'bool') throw whereError(`Expected a condition but found ${DESCRIBE[c.type!]}`, n.pos);
    return c;
  }

  private value(n: WhereNode): WhereNode {
    const v = this.node(n);
    if (v.type === 'bool') throw whereError('Expected a value but found a condition', n.pos);
    return v;
  }

  /** A value of a kind ('number' accepts int and float), for function arguments. */
  private expect(n: WhereNode, want: 'text' | 'number', fn: string): WhereNode {
    const v = this.value(n);
    const ok = want === 'number' ? isNumeric(v.type) : v.type === 'text';
    if (!ok) throw whereError(`${fn} needs ${want === 'number' ? 'a number' : 'a string'}, not ${DESCRIBE[v.type!]}`, n.pos);
    return v;
  }

  private field(n: FieldNode): WhereNode {
    const f = this.resolve(n);
    return { kind: 'field', name: f.name, field: f, pos: n.pos, type: FIELD_TYPES[f.type] };
  }

  /** Exact spelling first, then case-insensitive; a case-insensitive tie is ambiguous. */
  private resolve(n: FieldNode): WhereField {
    const exact = this.fields.find((f) => f.name === n.name);
    if (exact) return exact;
    const found = this.byLower.get(n.name.toLowerCase()) ?? [];
    if (found.length === 1) return found[0];
    if (found.length > 1) throw whereError(`Field name ${show(n.name)} is ambiguous`, n.pos);
    if (n.quoted) throw whereError(`Quoted identifier ${show(n.name, '"')} is not a field of this layer`, n.pos);
    throw whereError(`Unknown field ${show(n.name)}`, n.pos);
  }

  /** Makes `b` comparable with `a` (converting a string literal on either side), or rejects the pair. */
  private comparable(a: WhereNode, b: WhereNode, pos: number, op?: CompareOp): [WhereNode, WhereNode] {
    if (a.kind === 'string') a = coerceLiteral(a, b.type!);
    if (b.kind === 'string') b = coerceLiteral(b, a.type!);
    const ok =
      (isNumeric(a.type) && isNumeric(b.type)) || (isTemporal(a.type) && isTemporal(b.type)) || (isStringy(a.type) && isStringy(b.type));
    if (!ok) throw whereError(`Cannot compare ${DESCRIBE[a.type!]} with ${DESCRIBE[b.type!]}${op ? ` using ${op}` : ''}`, pos);
    return [a, b];
  }

  /** BETWEEN and IN: settle the left side first (it may be a string literal that becomes a number), then each item. */
  private comparableList(expr: WhereNode, items: WhereNode[], pos: number): [WhereNode, WhereNode[]] {
    for (const x of items) expr = this.comparable(expr, x, x.pos || pos)[0];
    return [expr, items.map((x) => this.comparable(expr, x, x.pos || pos)[1])];
  }

  private like(n: Extract<WhereNode, { kind: 'like' }>): WhereNode {
    const expr = this.value(n.expr);
    if (!isStringy(expr.type)) throw whereError(`LIKE needs a string, not ${DESCRIBE[expr.type!]}`, n.pos);
    const pattern = this.value(n.pattern);
    if (pattern.type !== 'text') throw whereError(`The LIKE pattern must be a string, not ${DESCRIBE[pattern.type!]}`, n.pattern.pos);
    if (n.escape !== undefined) {
      // Postgres fails at run time on a pattern ending in the escape character, so only literal patterns are
      // allowed with ESCAPE, and they are checked here.
      if (pattern.kind !== 'string') throw whereError('With ESCAPE the LIKE pattern must be a string literal', n.pattern.pos);
      if (!escapeUseOk(pattern.value, n.escape))
        throw whereError(`The LIKE pattern ends with the escape character ${show(n.escape)}`, n.pattern.pos);
    }
    return { ...n, expr, pattern, type: 'bool' };
  }

  private arith(n: Extract<WhereNode, { kind: 'arith' }>): WhereNode {
    const left = this.value(n.left);
    const right = this.value(n.right);
    const [l, r] = [left.type!, right.type!];
    let type: ValueType | undefined;
    if (isNumeric(l) && isNumeric(r)) type = n.op === '/' || l === 'float' || r === 'float' ? 'float' : 'int';
    // date/time ± INTERVAL (and INTERVAL + date/time); a date plus an interval becomes a timestamp.
    else if (isTemporal(l) && r === 'interval' && (n.op === '+' || n.op === '-')) type = l === 'date' ? 'timestamp' : l;
    else if (l === 'interval' && isTemporal(r) && n.op === '+') type = r === 'date' ? 'timestamp' : r;
    if (!type) throw whereError(`Operator ${n.op} cannot combine ${DESCRIBE[l]} with ${DESCRIBE[r]}`, n.pos);
    return { ...n, left, right, type };
  }

  private call(n: Extract<WhereNode, { kind: 'call' }>): WhereNode {
    switch (n.fn) {
      case 'UPPER':
      case 'LOWER':
        return { ...n, args: [this.expect(n.args[0], 'text', n.fn)], type: 'text' };
      case 'CHAR_LENGTH':
        return { ...n, args: [this.expect(n.args[0], 'text', n.fn)], type: 'int' };
      case 'CONCAT': {
        // Dates are left out: their text form would depend on the session's DateStyle and TimeZone.
        const args = n.args.map((a) => {
          const v = this.value(a);
          if (!isNumeric(v.type) && !isStringy(v.type))
            throw whereError(`CONCAT needs strings or numbers, not ${DESCRIBE[v.type!]}`, a.pos);
          return v;
        });
        return { ...n, args, type: 'text' };
      }
      case 'ABS': {
        const a = this.expect(n.args[0], 'number', n.fn);
        return { ...n, args: [a], type: a.type };
      }
      case 'MOD': {
        const args = n.args.map((a) => this.expect(a, 'number', n.fn));
        return { ...n, args, type: args.every((a) => a.type === 'int') ? 'int' : 'float' };
      }
      default: // CEILING, FLOOR, ROUND, POWER, LOG, LOG10 are computed in double precision
        return { ...n, args: n.args.map((a) => this.expect(a, 'number', n.fn)), type: 'float' };
    }
  }

  private cast(n: Extract<WhereNode, { kind: 'cast' }>): WhereNode {
    const arg = this.value(n.arg);
    const from = arg.type!;
    const bad = () => whereError(`Cannot CAST ${DESCRIBE[from]} to ${n.to}`, n.pos);
    switch (n.to) {
      case 'VARCHAR':
        if (from === 'interval') throw bad();
        return { ...n, arg, type: 'text' };
      case 'INT':
      case 'SMALLINT':
        if (!isNumeric(from) && from !== 'text') throw bad();
        return { ...n, arg, type: 'int' };
      case 'FLOAT':
      case 'REAL':
      case 'DOUBLE':
        if (!isNumeric(from) && from !== 'text') throw bad();
        return { ...n, arg, type: 'float' };
      case 'DATE':
      case 'TIMESTAMP': {
        if (isTemporal(from)) return { ...n, arg, type: n.to === 'DATE' ? 'date' : 'timestamp' };
        // A string can only become a date when it is a literal we can validate now; '2021-02-30'::date on a
        // column value would fail at run time.
        if (arg.kind !== 'string') throw bad();
        const lit = parseTemporal(arg.value);
        if (!lit) throw whereError(`Invalid date ${show(arg.value)} in CAST`, arg.pos);
        const literal: WhereNode = { kind: lit.kind, value: lit.value, pos: arg.pos, type: lit.kind };
        return n.to === 'DATE' && lit.kind === 'date' ? literal : { ...n, arg: literal, type: n.to === 'DATE' ? 'date' : 'timestamp' };
      }
    }
  }
}

/**
 * A string literal next to a typed value becomes that type when it spells one. Numbers and dates that do not
 * parse are an error; a string that is not a GUID stays a string (GUIDs compare with strings as text).
 */
function coerceLiteral(s: StringNode, target: ValueType): WhereNode {
  if (isNumeric(target)) {
    const n = canonicalNumber(s.value);
    if (!n) throw whereError(`Cannot compare a number with the string ${show(s.value)}`, s.pos);
    return { kind: 'number', ...n, pos: s.pos, type: n.numType };
  }
  if (isTemporal(target)) {
    const d = parseTemporal(s.value);
    if (!d)
      throw whereError(
        `Cannot compare a date with the string ${show(s.value)} (use DATE 'yyyy-mm-dd' or TIMESTAMP 'yyyy-mm-dd hh:mm:ss')`,
        s.pos,
      );
    return { kind: d.kind, value: d.value, pos: s.pos, type: d.kind };
  }
  if (target === 'uuid') {
    const u = canonicalUuid(s.value);
    if (u) return { kind: 'guid', value: u, pos: s.pos, type: 'uuid' };
  }
  return { ...s, type: 'text' };
}

/** Postgres rejects a LIKE pattern that ends in an unpaired escape character. */
function escapeUseOk(pattern: string, esc: string): boolean {
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== esc) continue;
    if (i === chars.length - 1) return false;
    i++; // the escaped character
  }
  return true;
}
