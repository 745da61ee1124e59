/**
 * Tokenizer for the where clause. A single left-to-right pass with no regular-expression backtracking, so hostile
 * input costs linear time. Anything outside the small token set is rejected here, with its position.
 */
import { show, whereError } from './errors';

export type OpToken = '=' | '<>' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '(' | ')' | ',';

export type Token =
  /** Bare word: keyword, function or field name. `upper` is for case-insensitive keyword matching. */
  | { t: 'ident'; v: string; upper: string; pos: number }
  /** "Double-quoted" identifier, quotes removed and "" undoubled. */
  | { t: 'qident'; v: string; pos: number }
  | { t: 'num'; v: string; pos: number }
  /** 'String' literal, quotes removed and '' undoubled. */
  | { t: 'str'; v: string; pos: number }
  | { t: 'op'; v: OpToken; pos: number }
  | { t: 'eof'; pos: number };

const TYPOGRAPHIC_QUOTES = new Set(['‘', '’', 'ʼ', 'ʹ', '′', '＇', '“', '”', '＂', '`', '´']);

/** C0/C1 control characters other than tab, LF and CR. NUL in particular cannot be stored in Postgres text. */
export function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || (code >= 0x7f && code <= 0x9f);
}

const isDigit = (c: string) => c >= '0' && c <= '9';
// Letters beyond ASCII are allowed for field names, except apostrophe look-alikes such as ʼ (a "letter" in Unicode).
const isIdentStart = (c: string) =>
  (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c === '_' || (c > '\x7f' && /\p{L}/u.test(c) && !TYPOGRAPHIC_QUOTES.has(c));
const isIdentPart = (c: string) => isIdentStart(c) || isDigit(c) || (c > '\x7f' && /\p{N}/u.test(c));

export function tokenize(src: string): Token[] {
  // Control characters are rejected anywhere, even inside string literals.
  for (let i = 0; i < src.length; i++) {
    const code = src.charCodeAt(i);
    if (isControl(code)) throw whereError(`Control character U+${code.toString(16).toUpperCase().padStart(4, '0')} is not allowed`, i + 1);
  }
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    const pos = i + 1;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === "'" || c === '"') {
      const [v, end] = readQuoted(src, i, c);
      if (c === '"' && v === '') throw whereError('Empty quoted identifier', pos);
      out.push(c === "'" ? { t: 'str', v, pos } : { t: 'qident', v, pos });
      i = end;
    } else if (isDigit(c) || (c === '.' && isDigit(src[i + 1] ?? ''))) {
      i = readNumber(src, i, out);
    } else if (isIdentStart(c)) {
      let j = i + 1;
      while (j < src.length && isIdentPart(src[j])) j++;
      const v = src.slice(i, j);
      out.push({ t: 'ident', v, upper: v.toUpperCase(), pos });
      i = j;
    } else {
      const two = src.slice(i, i + 2);
      if (two === '--' || two === '/*') throw whereError('Comments are not allowed', pos);
      if (two === '<>' || two === '<=' || two === '>=' || two === '!=') {
        out.push({ t: 'op', v: two, pos });
        i += 2;
      } else if ('=<>+-*/(),'.includes(c)) {
        out.push({ t: 'op', v: c as OpToken, pos });
        i++;
      } else if (c === ';') {
        throw whereError('Semicolons are not allowed', pos);
      } else if (TYPOGRAPHIC_QUOTES.has(c)) {
        throw whereError(`Unexpected character ${show(c)} (strings are quoted with ')`, pos);
      } else {
        throw whereError(`Unexpected character ${show(c)}`, pos);
      }
    }
  }
  out.push({ t: 'eof', pos: src.length + 1 });
  return out;
}

/** Reads a quoted run starting at `start`; a doubled quote stands for one. Returns [content, index after]. */
function readQuoted(src: string, start: number, q: string): [string, number] {
  let v = '';
  let i = start + 1;
  for (;;) {
    const end = src.indexOf(q, i);
    if (end < 0) throw whereError(q === "'" ? 'Unterminated string' : 'Unterminated quoted identifier', start + 1);
    v += src.slice(i, end);
    if (src[end + 1] !== q) return [v, end + 1];
    v += q;
    i = end + 2;
  }
}

/** digits [. digits] [e [+-] digits]; a letter, digit or '.' right after the number makes it invalid (1e, 1.2.3, 2abc). */
function readNumber(src: string, start: number, out: Token[]): number {
  let i = start;
  while (isDigit(src[i] ?? '')) i++;
  if (src[i] === '.') {
    i++;
    while (isDigit(src[i] ?? '')) i++;
  }
  if (
    (src[i] === 'e' || src[i] === 'E') &&
    (isDigit(src[i + 1] ?? '') || ('+-'.includes(src[i + 1] ?? 'x') && isDigit(src[i + 2] ?? '')))
  ) {
    i += 2;
    while (isDigit(src[i] ?? '')) i++;
  }
  const next = src[i] ?? '';
  if (next === '.' || isIdentPart(next)) throw whereError(`Invalid number ${show(src.slice(start, i + 1))}`, start + 1);
  out.push({ t: 'num', v: src.slice(start, i), pos: start + 1 });
  return i;
}
