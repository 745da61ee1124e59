import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { csvHeader, csvQuote } from '../../../src/export/writer/copy-format';
import { oidRanges } from '../../../src/export/writer/copy-layer';
import { CopyRowsToBytes } from '../../../src/export/writer/copy-rows';
import { field, pointLayer, polygonLayer } from './fixtures';

/** A binary COPY stream of one text column, as PostgreSQL sends it (null: a NULL value). */
function binaryCopy(values: (string | null)[], extension = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(19);
  Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1').copy(head);
  head.writeUInt32BE(extension.length, 15);
  const rows = values.map((v) => {
    const data = v === null ? Buffer.alloc(0) : Buffer.from(v, 'utf8');
    const row = Buffer.alloc(6);
    row.writeInt16BE(1, 0);
    row.writeInt32BE(v === null ? -1 : data.length, 2);
    return Buffer.concat([row, data]);
  });
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1, 0);
  return Buffer.concat([head, extension, ...rows, trailer]);
}

async function unwrap(chunks: Buffer[], skipFirst = 0): Promise<{ text: string; rows: number }> {
  const t = new CopyRowsToBytes(skipFirst);
  const out = await buffer(Readable.from(chunks).pipe(t));
  return { text: out.toString('utf8'), rows: t.rows };
}

describe('CopyRowsToBytes', () => {
  const values = [',\n{"a": 1}', null, ',\n{"b": "Städte ✓"}', '', ',\n{"c": 3}'];
  const copy = binaryCopy(values, Buffer.from('ext'));

  it('concatenates the rows, NULL and empty rows adding nothing', async () => {
    expect(await unwrap([copy])).toEqual({ text: ',\n{"a": 1},\n{"b": "Städte ✓"},\n{"c": 3}', rows: 5 });
  });

  it('gives the first row up to skipFirst bytes, and only the first', async () => {
    expect((await unwrap([copy], 2)).text).toBe('{"a": 1},\n{"b": "Städte ✓"},\n{"c": 3}');
  });

  it('reads the same whatever the chunk boundaries (headers and UTF-8 sequences split)', async () => {
    const expected = await unwrap([copy], 2);
    for (const size of [1, 2, 3, 5, 7, 19, 20]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < copy.length; i += size) chunks.push(copy.subarray(i, i + size));
      expect(await unwrap(chunks, 2)).toEqual(expected);
    }
  });

  it('refuses a stream cut short or not binary COPY', async () => {
    await expect(unwrap([copy.subarray(0, copy.length - 5)])).rejects.toThrow(/middle of a row/);
    await expect(unwrap([Buffer.from('id,name\n1,a\n'.repeat(3))])).rejects.toThrow(/not a binary COPY/);
  });
});

describe('CSV header and quoting (GDAL STRING_QUOTING=IF_NEEDED)', () => {
  it('quotes only what holds a quote, comma, semicolon, tab or line break', () => {
    expect(['plain', ' lead', 'a,b', 'a;b', 'a"b', 'a\tb', 'a\nb', ''].map(csvQuote)).toEqual([
      'plain',
      ' lead',
      '"a,b"',
      '"a;b"',
      '"a""b"',
      '"a\tb"',
      '"a\nb"',
      '',
    ]);
  });

  it('puts x/y last for points, WKT first for polygons, nothing for tables', () => {
    expect(csvHeader(pointLayer({ xColumnName: 'Lon', yColumnName: 'Lat' }))).toBe('OBJECTID,Name,Pop,Founded,Lon,Lat\n');
    expect(csvHeader(polygonLayer())).toBe('WKT,OBJECTID,Label\n');
    expect(csvHeader(pointLayer({ includeGeometry: false, fields: [field('A;B', 'esriFieldTypeString')] }))).toBe('"A;B"\n');
  });
});

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
