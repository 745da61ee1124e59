/**
 * Text holding every three-letter sequence of a..p (a de Bruijn sequence, repeated to `length`): the search's trigram
 * index then finds any term of those letters in every item, and PostgreSQL must read each description in full.
 */
export function deBruijnText(length: number): string {
  const k = 16;
  const n = 3;
  const a = new Array(k * n).fill(0);
  const seq: number[] = [];
  const db = (t: number, p: number) => {
    if (t > n) {
      if (n % p === 0) seq.push(...a.slice(1, p + 1));
      return;
    }
    a[t] = a[t - p];
    db(t + 1, p);
    for (let j = a[t - p] + 1; j < k; j++) {
      a[t] = j;
      db(t + 1, t);
    }
  };
  db(1, 1);
  const once = seq.map((d) => String.fromCharCode(97 + d)).join('');
  return (once + once.slice(0, n - 1)).repeat(Math.ceil(length / once.length)).slice(0, length);
}

/**
 * The costliest search the bounds allow: 32 terms of 16 letters of a..p OR'd, 8 of them with a wildcard, none in a
 * de Bruijn text, so every description the trigram indexes return is read to its end.
 */
export function hostileSearch(): string {
  const terms = Array.from({ length: 32 }, (_, i) => {
    const word = Array.from({ length: 16 }, (_, j) => String.fromCharCode(97 + ((i * 7 + j * j * 3 + j) % 16))).join('');
    return i < 8 ? `${word.slice(0, 8)}*${word.slice(9)}` : word;
  });
  return terms.join(' OR ');
}

/** The costliest where clause the checker lets through on a text field: `copies` copies of it per row, in CONCATs of 100. */
export function boundedWhere(field: string, copies: number): string {
  return Array.from({ length: Math.ceil(copies / 100) }, (_, i) => Math.min(100, copies - i * 100))
    .map((n) => `CHAR_LENGTH(CONCAT(${Array(n).fill(field).join(',')})) > 0`)
    .join(' OR ');
}
