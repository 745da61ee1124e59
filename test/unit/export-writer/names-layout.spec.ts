import { planExport } from '../../../src/export/writer/layout';
import { safeBaseName, safeLayerName, uniqueLayerNames } from '../../../src/export/writer/names';
import { EXPORT_FORMATS } from '../../../src/export/formats';

describe('names', () => {
  it('safeBaseName keeps letters, digits, . _ - and folds accents', () => {
    expect(safeBaseName('Städte & Dörfer (2024).v2')).toBe('Stadte_Dorfer_2024_.v2');
    expect(safeBaseName('../../etc/passwd')).toBe('etc_passwd');
    expect(safeBaseName('   ')).toBe('export');
    expect(safeBaseName('中文')).toBe('export');
    expect(safeBaseName('CON')).toBe('CON_');
    expect(safeBaseName('a'.repeat(300))).toHaveLength(100);
  });

  it('safeLayerName gives a name that starts with a letter', () => {
    expect(safeLayerName('Städte Punkte')).toBe('Stadte_Punkte');
    expect(safeLayerName('2020 census')).toBe('L2020_census');
    expect(safeLayerName('___')).toBe('layer');
    expect(safeLayerName('a very long sheet name for excel here', 31)).toBe('a_very_long_sheet_name_for_exce');
  });

  it('uniqueLayerNames de-duplicates case-insensitively within the length limit', () => {
    expect(uniqueLayerNames(['Roads', 'roads', 'ROADS!', 'Rivers'])).toEqual(['Roads', 'roads_2', 'ROADS_3', 'Rivers']);
    expect(uniqueLayerNames(['x'.repeat(40), 'x'.repeat(40)], 31)).toEqual(['x'.repeat(31), `${'x'.repeat(29)}_2`]);
  });
});

describe('planExport (zip layout decisions)', () => {
  const one = ['Cities'];
  const two = ['Cities', 'Parcels'];

  it('shapefile is always a zip with one .shp per layer', () => {
    expect(planExport('shapefile', one, 'My Export')).toEqual({
      fileName: 'My_Export.zip',
      contentType: 'application/zip',
      layers: [{ layerName: 'Cities', dataset: 'out/Cities.shp', update: false }],
      result: { kind: 'zip', dir: 'out' },
    });
    expect(planExport('shapefile', two, 'x').layers.map((l) => l.dataset)).toEqual(['out/Cities.shp', 'out/Parcels.shp']);
  });

  it('file geodatabase: one .gdb for all layers, zipped', () => {
    expect(planExport('filegdb', two, 'My Export')).toEqual({
      fileName: 'My_Export.zip',
      contentType: 'application/zip',
      layers: [
        { layerName: 'Cities', dataset: 'out/My_Export.gdb', update: false },
        { layerName: 'Parcels', dataset: 'out/My_Export.gdb', update: true },
      ],
      result: { kind: 'zip', dir: 'out' },
    });
  });

  it.each([
    ['geopackage', 'gpkg', 'application/geopackage+sqlite3'],
    ['sqlite', 'sqlite', 'application/vnd.sqlite3'],
    ['excel', 'xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ] as const)('%s: one file holds every layer', (format, ext, contentType) => {
    const plan = planExport(format, two, 'b');
    expect(plan.fileName).toBe(`b.${ext}`);
    expect(plan.contentType).toBe(contentType);
    expect(plan.layers.map((l) => [l.dataset, l.update])).toEqual([
      [`b.${ext}`, false],
      [`b.${ext}`, true],
    ]);
    expect(plan.result).toEqual({ kind: 'file', path: `b.${ext}` });
  });

  it.each([
    ['csv', 'csv', 'text/csv; charset=utf-8'],
    ['geojson', 'geojson', 'application/geo+json'],
    ['kml', 'kml', 'application/vnd.google-earth.kml+xml'],
    ['flatgeobuf', 'fgb', 'application/octet-stream'],
  ] as const)('%s: a plain file for one layer, a zip entry per layer for several', (format, ext, contentType) => {
    expect(planExport(format, one, 'b')).toEqual({
      fileName: `b.${ext}`,
      contentType,
      layers: [{ layerName: 'Cities', dataset: `b.${ext}`, update: false }],
      result: { kind: 'file', path: `b.${ext}` },
    });
    const plan = planExport(format, two, 'b');
    expect(plan).toMatchObject({ fileName: 'b.zip', contentType: 'application/zip', result: { kind: 'zip', dir: 'out' } });
    expect(plan.layers.map((l) => l.dataset)).toEqual([`out/Cities.${ext}`, `out/Parcels.${ext}`]);
  });

  it('feature collection: one JSON document, GeoJSON intermediates per layer', () => {
    expect(planExport('featurecollection', two, 'b')).toEqual({
      fileName: 'b.json',
      contentType: 'application/json',
      layers: [
        { layerName: 'Cities', dataset: 'tmp/Cities.geojson', update: false },
        { layerName: 'Parcels', dataset: 'tmp/Parcels.geojson', update: false },
      ],
      result: { kind: 'featurecollection', path: 'b.json' },
    });
  });

  it('excel sheet names stop at 31 characters; duplicate layer names stay distinct files', () => {
    expect(planExport('excel', ['A really long layer name that Excel refuses', 'x'], 'b').layers[0].layerName).toHaveLength(31);
    expect(planExport('csv', ['Roads', 'roads'], 'b').layers.map((l) => l.dataset)).toEqual(['out/Roads.csv', 'out/roads_2.csv']);
  });

  it('zips a single file when attachments go beside it, with the file in the zip', () => {
    for (const [format, ext] of [
      ['csv', 'csv'],
      ['excel', 'xlsx'],
      ['sqlite', 'sqlite'],
    ] as const) {
      const plan = planExport(format, one, 'b', true);
      expect(plan).toMatchObject({ fileName: 'b.zip', contentType: 'application/zip', result: { kind: 'zip', dir: 'out' } });
      expect(plan.layers[0].dataset).toBe(format === 'csv' ? `out/Cities.${ext}` : `out/b.${ext}`);
    }
  });

  it('covers every format', () => {
    for (const f of EXPORT_FORMATS) expect(planExport(f, one, 'b').layers).toHaveLength(1);
  });
});
