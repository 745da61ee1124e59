/**
 * How a large layer is cut by OID for the sessions that write it in parallel. The filtered rows' OIDs are close to
 * evenly spread in practice, so a span of OIDs stands for about that share of the rows.
 */
import { OidRange } from './copy-format';

/** Splits [lo, hi] into n ranges of OIDs. */
export function oidRanges(lo: number, hi: number, n: number): OidRange[] {
  const step = Math.ceil((hi - lo + 1) / n);
  const out: OidRange[] = [];
  for (let from = lo; from <= hi; from += step) out.push({ from, to: Math.min(hi, from + step - 1) });
  return out;
}

/** Where the sessions take their ranges from: the first session from the front, the others from the back. */
export interface RangeSource {
  /** The next range from the front or the back; undefined for the whole layer (not split); null when none is left. */
  take(front: boolean): { range: OidRange | undefined } | null;
}

/** The whole layer, once: a layer not worth splitting (or without OIDs). */
export function wholeLayer(): RangeSource {
  let taken = false;
  return { take: () => (taken ? null : ((taken = true), { range: undefined })) };
}

/** Ranges fixed in advance (a counted document counts each one before it is read). */
export function fixedRanges(ranges: OidRange[]): RangeSource {
  const left = [...ranges];
  return {
    take: (front) => {
      const range = front ? left.shift() : left.pop();
      return range ? { range } : null;
    },
  };
}

/**
 * The OIDs not yet taken, in ranges that shrink as they run out: each is a quarter of what is left per two sessions
 * (two sessions, 1M rows: 250,000 rows first, then 187,500, ...), down to `minSpan` OIDs. A session slowed by the
 * rest of the work on the machine holds up no more than the range it has, and the sessions finish within about one
 * small range of each other. Ranges of a fixed size had left one session idle at the end of an export (README.md).
 */
export function shrinkingRanges(lo: number, hi: number, minSpan: number, sessions: number): RangeSource {
  return {
    take(front) {
      const left = hi - lo + 1;
      if (left <= 0) return null;
      const span = Math.min(left, Math.max(minSpan, Math.ceil(left / (2 * sessions))));
      const range = front ? { from: lo, to: lo + span - 1 } : { from: hi - span + 1, to: hi };
      if (front) lo += span;
      else hi -= span;
      return { range };
    },
  };
}
