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
