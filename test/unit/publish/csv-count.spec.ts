import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as gdal from 'gdal-async';
import { countCsvRows } from '../../../src/publish/source';

/** The fast row count must agree with the GDAL CSV driver's own count. */
describe('countCsvRows', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'csv-count-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const gdalCount = (file: string) => {
    const ds = gdal.drivers.get('CSV').open(`CSV:${file}`, 'r', ['AUTODETECT_TYPE=NO', 'HEADERS=YES']);
    try {
      return ds.layers.get(0).features.count(true);
    } finally {
      ds.close();
    }
  };

  it.each([
    ['plain', 'a,b\n1,2\n3,4\n'],
    ['no trailing newline', 'a,b\n1,2\n3,4'],
    ['CRLF', 'a,b\r\n1,2\r\n3,4\r\n'],
    ['blank lines', 'a,b\n1,2\n\n\r\n3,4\n\n'],
    ['quoted newlines and quotes', 'a,b\n"x\ny",2\n"say ""hi""\r\nthere",4\n5,"6"\n'],
    ['header only', 'a,b\n'],
    ['semicolons', 'a;b\n1;2\n'],
  ])('%s', async (_, text) => {
    const file = path.join(dir, `${_.replace(/\W/g, '_')}.csv`);
    writeFileSync(file, text);
    expect(await countCsvRows(file)).toBe(gdalCount(file));
  });

  it('counts across read chunks', async () => {
    const file = path.join(dir, 'big.csv');
    const rows = Array.from({ length: 60_000 }, (_, i) =>
      i % 7 === 0 ? `${i},"multi\nline ${'x'.repeat(i % 50)}"` : `${i},plain ${'y'.repeat(i % 40)}`,
    );
    writeFileSync(file, `id,text\n${rows.join('\n')}\n`);
    expect(await countCsvRows(file)).toBe(60_000);
    expect(gdalCount(file)).toBe(60_000);
  });
});
