/** The R-tree entries' reader: 40-byte records cut anywhere by the COPY's pieces, into leaves, with exact sums. */
import { Readable } from 'node:stream';
import { valueDown, valueUp } from '../../../src/export/writer/gpkg/gpkg-rtree-pack';
import { streamRtreeLeaves } from '../../../src/export/writer/gpkg/gpkg-rtree-source';

interface Entry {
  fid: number;
  box: [number, number, number, number];
}

function record(e: Entry): Buffer {
  const b = Buffer.alloc(40);
  b.writeBigInt64BE(BigInt(e.fid), 0);
  e.box.forEach((v, i) => b.writeDoubleBE(v, 8 + i * 8));
  return b;
}

/** The records' bytes cut into pieces of the given sizes (the last takes the rest). */
function pieces(entries: Entry[], sizes: number[]): Buffer[] {
  const all = Buffer.concat(entries.map(record));
  const out: Buffer[] = [];
  let p = 0;
  for (let i = 0; p < all.length; i++) {
    const n = sizes[i % sizes.length];
    out.push(all.subarray(p, p + n));
    p += n;
  }
  return out;
}

async function read(entries: Entry[], sizes: number[], cap: number, scale = 1024, expected = entries.length) {
  const leaves: Entry[][] = [];
  const sums = await streamRtreeLeaves(Readable.from(pieces(entries, sizes)), expected, cap, scale, async (n, fid, box) => {
    leaves.push(Array.from({ length: n }, (_, j) => ({ fid: fid[j], box: [0, 1, 2, 3].map((c) => box[j * 4 + c]) as Entry['box'] })));
  });
  return { leaves, sums };
}

// Fids around the int8's two halves and below zero; coordinates with fractions that float32 cannot hold.
const FIDS = [-(2 ** 33) - 1, -5, 0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 7, 2 ** 40 + 3, 2 ** 52 + 1];
const ENTRIES: Entry[] = FIDS.map((fid, i) => ({ fid, box: [-179.1234567 + i, -179.1 + i, 0.1 * i - 85.3333333, 0.1 * i + 1 / 3] }));

it('reads every record whole, wherever the pieces cut them, into leaves of cap entries', async () => {
  for (const sizes of [[40], [1], [7, 33, 41, 3], [39], [41], [440]]) {
    const { leaves, sums } = await read(ENTRIES, sizes, 4);
    expect(leaves.map((l) => l.length)).toEqual([4, 4, 3]);
    expect(leaves.flat().map((e) => e.fid)).toEqual(FIDS);
    expect(leaves.flat().map((e) => e.box)).toEqual(
      ENTRIES.map((e) => [valueDown(e.box[0]), valueUp(e.box[1]), valueDown(e.box[2]), valueUp(e.box[3])]),
    );
    expect(sums.count).toBe(FIDS.length);
    expect(sums.fidSum).toBe(FIDS.reduce((a, f) => a + BigInt(f), 0n));
    expect(sums.coordSums).toEqual([0, 1, 2, 3].map((c) => ENTRIES.reduce((a, e) => a + BigInt(Math.trunc(e.box[c] * 1024)), 0n)));
  }
});

it('refuses more or fewer rows than counted, and a stream ending inside a record', async () => {
  await expect(read(ENTRIES, [40], 4, 1024, FIDS.length - 1)).rejects.toThrow(/more than the 10 counted/);
  await expect(read(ENTRIES, [40], 4, 1024, FIDS.length + 1)).rejects.toThrow(/11 rows, 12 counted/);
  const cut = pieces(ENTRIES, [40]).slice(0, 3);
  cut.push(cut.pop()!.subarray(0, 25));
  const stream = streamRtreeLeaves(Readable.from(cut), 3, 4, 1, async () => undefined);
  await expect(stream).rejects.toThrow(/in the middle of a row/);
});
