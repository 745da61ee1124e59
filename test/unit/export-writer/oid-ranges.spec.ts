import { OidRange } from '../../../src/export/writer/copy/copy-format';
import { fixedRanges, oidRanges, RangeSource, shrinkingRanges, wholeLayer } from '../../../src/export/writer/copy/oid-ranges';

/** Takes ranges as the sessions would, `order` saying which end each take is from, until none is left. */
function drain(source: RangeSource, order: (i: number) => boolean): { front: OidRange[]; back: OidRange[] } {
  const out = { front: [] as OidRange[], back: [] as OidRange[] };
  for (let i = 0; ; i++) {
    const front = order(i);
    const next = source.take(front);
    if (!next) return out;
    (front ? out.front : out.back).push(next.range!);
  }
}

/** The ranges in the file's order: the front's as taken, then the back's from the middle outwards. */
const inFileOrder = (r: { front: OidRange[]; back: OidRange[] }) => [...r.front, ...[...r.back].reverse()];
const span = (r: OidRange) => r.to - r.from + 1;

describe('oidRanges', () => {
  it('splits the OIDs into disjoint ranges covering them all', () => {
    expect(oidRanges(1, 10, 2)).toEqual([
      { from: 1, to: 5 },
      { from: 6, to: 10 },
    ]);
    expect(oidRanges(5, 5, 2)).toEqual([{ from: 5, to: 5 }]);
    expect(oidRanges(1, 3, 4)).toEqual([
      { from: 1, to: 1 },
      { from: 2, to: 2 },
      { from: 3, to: 3 },
    ]);
  });
});

describe('shrinkingRanges', () => {
  it.each([
    ['taking turns', (i: number) => i % 2 === 0],
    ['the front twice as often', (i: number) => i % 3 !== 2],
    ['the back only', () => false],
    ['the front only', () => true],
  ])('covers every OID once, in order, %s', (_, order) => {
    const ranges = inFileOrder(drain(shrinkingRanges(1, 1_000_000, 16_000, 2), order));
    expect(ranges[0].from).toBe(1);
    expect(ranges[ranges.length - 1].to).toBe(1_000_000);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i].from).toBe(ranges[i - 1].to + 1);
  });

  it('starts at a quarter of the OIDs per two sessions and shrinks to the smallest span', () => {
    const { front, back } = drain(shrinkingRanges(1, 1_000_000, 16_000, 2), (i) => i % 2 === 0);
    expect(span(front[0])).toBe(250_000);
    expect(span(back[0])).toBe(187_500);
    const taken = front.flatMap((r, i) => [r, ...(back[i] ? [back[i]] : [])]);
    for (let i = 1; i < taken.length; i++) expect(span(taken[i])).toBeLessThanOrEqual(span(taken[i - 1]));
    // All but the last are at least the smallest span; the last ones are where the sessions meet.
    expect(taken.slice(0, -1).every((r) => span(r) >= 16_000)).toBe(true);
    expect(span(taken[taken.length - 2])).toBe(16_000);
    // Four sessions start with smaller ranges.
    expect(span(shrinkingRanges(1, 1_000_000, 16_000, 4).take(true)!.range!)).toBe(125_000);
  });

  it('hands out a single OID, then nothing', () => {
    const source = shrinkingRanges(7, 7, 100, 2);
    expect(source.take(false)).toEqual({ range: { from: 7, to: 7 } });
    expect(source.take(true)).toBeNull();
  });
});

describe('fixedRanges and wholeLayer', () => {
  it('hands each fixed range once, the front from the start and the back from the end', () => {
    const source = fixedRanges(oidRanges(1, 9, 3));
    expect(source.take(true)).toEqual({ range: { from: 1, to: 3 } });
    expect(source.take(false)).toEqual({ range: { from: 7, to: 9 } });
    expect(source.take(false)).toEqual({ range: { from: 4, to: 6 } });
    expect(source.take(true)).toBeNull();
  });

  it('hands the whole layer once', () => {
    const source = wholeLayer();
    expect(source.take(true)).toEqual({ range: undefined });
    expect(source.take(false)).toBeNull();
  });
});
