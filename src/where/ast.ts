/**
 * Syntax tree of an ArcGIS standardized-SQL where clause.
 *
 * The parser builds it from text, the checker (check.ts) resolves fields and sets `type` on every node, and the
 * renderers turn a checked tree into Postgres SQL. `pos` is the 1-based character offset of the node in the clause,
 * used only for error details (generated trees may use 0).
 */

export type EsriFieldType =
  | 'esriFieldTypeOID'
  | 'esriFieldTypeSmallInteger'
  | 'esriFieldTypeInteger'
  | 'esriFieldTypeBigInteger'
  | 'esriFieldTypeSingle'
  | 'esriFieldTypeDouble'
  | 'esriFieldTypeString'
  | 'esriFieldTypeDate'
  | 'esriFieldTypeGUID'
  | 'esriFieldTypeGlobalID';

/** A queryable layer field; `column` is the Postgres column name. */
export interface WhereField {
  name: string;
  type: EsriFieldType;
  column: string;
}

/**
 * Value types the checker assigns. They decide which operators are allowed and which casts the SQL needs:
 * int = smallint/integer/bigint, float = real/double precision, timestamp = a UTC wall-clock time without zone,
 * timestamptz = date fields and CURRENT_TIMESTAMP, bool = a condition.
 */
export type ValueType = 'int' | 'float' | 'text' | 'date' | 'timestamp' | 'timestamptz' | 'uuid' | 'interval' | 'bool';

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';
export type ArithOp = '+' | '-' | '*' | '/';
export type ExtractPart = 'YEAR' | 'MONTH' | 'DAY' | 'HOUR' | 'MINUTE' | 'SECOND';
export type IntervalUnit = 'DAY' | 'HOUR' | 'MINUTE' | 'SECOND';
export type TrimSide = 'BOTH' | 'LEADING' | 'TRAILING';
/** INTEGER and DOUBLE PRECISION are normalised to INT and DOUBLE by the parser. */
export type CastType = 'INT' | 'SMALLINT' | 'FLOAT' | 'REAL' | 'DOUBLE' | 'VARCHAR' | 'DATE' | 'TIMESTAMP';
export type FunctionName =
  'UPPER' | 'LOWER' | 'CHAR_LENGTH' | 'ABS' | 'CEILING' | 'FLOOR' | 'ROUND' | 'MOD' | 'POWER' | 'LOG' | 'LOG10' | 'CONCAT';

/** [min, max] argument counts of the plain functions (max Infinity = variadic). */
export const FUNCTION_ARITY: Record<FunctionName, [number, number]> = {
  UPPER: [1, 1],
  LOWER: [1, 1],
  CHAR_LENGTH: [1, 1],
  ABS: [1, 1],
  CEILING: [1, 1],
  FLOOR: [1, 1],
  ROUND: [1, 2],
  MOD: [2, 2],
  POWER: [2, 2],
  LOG: [1, 1],
  LOG10: [1, 1],
  CONCAT: [2, Infinity],
};

interface Base {
  pos: number;
  type?: ValueType;
}

export interface AndOrNode extends Base {
  kind: 'and' | 'or';
  args: WhereNode[];
}
export interface NotNode extends Base {
  kind: 'not';
  arg: WhereNode;
}
export interface CompareNode extends Base {
  kind: 'compare';
  op: CompareOp;
  left: WhereNode;
  right: WhereNode;
}
export interface BetweenNode extends Base {
  kind: 'between';
  negated: boolean;
  expr: WhereNode;
  low: WhereNode;
  high: WhereNode;
}
export interface InNode extends Base {
  kind: 'in';
  negated: boolean;
  expr: WhereNode;
  list: WhereNode[];
}
/** `escape` is the single ESCAPE character; without it ArcGIS LIKE has no escape character at all. */
export interface LikeNode extends Base {
  kind: 'like';
  negated: boolean;
  expr: WhereNode;
  pattern: WhereNode;
  escape?: string;
}
export interface IsNullNode extends Base {
  kind: 'isNull';
  negated: boolean;
  expr: WhereNode;
}
export interface ArithNode extends Base {
  kind: 'arith';
  op: ArithOp;
  left: WhereNode;
  right: WhereNode;
}
export interface NegNode extends Base {
  kind: 'neg';
  arg: WhereNode;
}
/** `name` is as written until checked, then the layer's spelling; `field` is set by the checker. */
export interface FieldNode extends Base {
  kind: 'field';
  name: string;
  quoted?: boolean;
  field?: WhereField;
}
/** `text` is canonical (see literals.ts); int literals may be negative only after string coercion. */
export interface NumberNode extends Base {
  kind: 'number';
  text: string;
  numType: 'int' | 'float';
}
export interface StringNode extends Base {
  kind: 'string';
  value: string;
}
/** yyyy-mm-dd */
export interface DateNode extends Base {
  kind: 'date';
  value: string;
}
/** yyyy-mm-dd hh:mm:ss[.ffffff], read as UTC */
export interface TimestampNode extends Base {
  kind: 'timestamp';
  value: string;
}
/** Lower-case canonical UUID; only produced by coercing a string literal compared with a GUID field. */
export interface GuidNode extends Base {
  kind: 'guid';
  value: string;
}
/** `INTERVAL '3' DAY`; `value` is canonical number text (may be negative). */
export interface IntervalNode extends Base {
  kind: 'interval';
  value: string;
  unit: IntervalUnit;
}
export interface CurrentNode extends Base {
  kind: 'current';
  which: 'CURRENT_DATE' | 'CURRENT_TIMESTAMP';
}
export interface CallNode extends Base {
  kind: 'call';
  fn: FunctionName;
  args: WhereNode[];
}
export interface ExtractNode extends Base {
  kind: 'extract';
  part: ExtractPart;
  arg: WhereNode;
}
export interface SubstringNode extends Base {
  kind: 'substring';
  arg: WhereNode;
  start: WhereNode;
  length?: WhereNode;
}
export interface TrimNode extends Base {
  kind: 'trim';
  side?: TrimSide;
  chars?: WhereNode;
  arg: WhereNode;
}
export interface PositionNode extends Base {
  kind: 'position';
  sub: WhereNode;
  arg: WhereNode;
}
/** `length` only for VARCHAR(n). */
export interface CastNode extends Base {
  kind: 'cast';
  arg: WhereNode;
  to: CastType;
  length?: number;
}

export type WhereNode =
  | AndOrNode
  | NotNode
  | CompareNode
  | BetweenNode
  | InNode
  | LikeNode
  | IsNullNode
  | ArithNode
  | NegNode
  | FieldNode
  | NumberNode
  | StringNode
  | DateNode
  | TimestampNode
  | GuidNode
  | IntervalNode
  | CurrentNode
  | CallNode
  | ExtractNode
  | SubstringNode
  | TrimNode
  | PositionNode
  | CastNode;

/** Direct children, in source order (used for depth checks and generic walks). */
export function children(n: WhereNode): WhereNode[] {
  switch (n.kind) {
    case 'and':
    case 'or':
      return n.args;
    case 'not':
    case 'neg':
    case 'extract':
    case 'cast':
      return [n.arg];
    case 'compare':
    case 'arith':
      return [n.left, n.right];
    case 'between':
      return [n.expr, n.low, n.high];
    case 'in':
      return [n.expr, ...n.list];
    case 'like':
      return [n.expr, n.pattern];
    case 'isNull':
      return [n.expr];
    case 'call':
      return n.args;
    case 'substring':
      return n.length ? [n.arg, n.start, n.length] : [n.arg, n.start];
    case 'trim':
      return n.chars ? [n.chars, n.arg] : [n.arg];
    case 'position':
      return [n.sub, n.arg];
    default:
      return [];
  }
}
