import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as gdal from 'gdal-async';
import { exportConnection } from '../../../src/export/writer/source';
import { fieldNameMappingCsv, readDbfFieldNames, shapefileReadme } from '../../../src/export/writer/shapefile/shapefile';
import { field } from './fixtures';

describe('shapefile field-name mapping', () => {
  it('pairs each original name with the .dbf name and says what was lost', () => {
    const fields = [
      field('OBJECTID', 'esriFieldTypeOID'),
      field('population_density_2020', 'esriFieldTypeDouble'),
      field('Founded', 'esriFieldTypeDate'),
      field('Notes', 'esriFieldTypeString', 1000),
    ];
    expect(fieldNameMappingCsv(fields, ['OBJECTID', 'population', 'Founded', 'Notes']).split('\r\n')).toEqual([
      'field_name,shapefile_field_name,alias,note',
      'OBJECTID,OBJECTID,OBJECTID,',
      'population_density_2020,population,population_density_2020,name shortened to the 10 characters a shapefile allows',
      'Founded,Founded,Founded,date only: the time of day is dropped (dates are UTC)',
      'Notes,Notes,Notes,text longer than 254 bytes is cut',
      '',
    ]);
  });

  it('refuses to guess when the .dbf does not hold every field', () => {
    expect(() => fieldNameMappingCsv([field('A', 'esriFieldTypeInteger')], [])).toThrow(/1 fields were exported but the .dbf holds 0/);
  });

  it('the README lists the layers and the limits', () => {
    const text = shapefileReadme([{ layerName: 'Stadte', source: 'Städte' }]);
    expect(text).toContain('Stadte.shp  <-  Städte');
    expect(text).toMatch(/time of day/);
    expect(text).toMatch(/_fieldnames\.csv/);
  });
});

describe('exportConnection', () => {
  it('adds a UTC session and the application name used to cancel', () => {
    expect(exportConnection("PG:host='h' dbname='d'", 'export-1')).toBe(
      "PG:host='h' dbname='d' options='-c TimeZone=UTC' application_name='export-1'",
    );
  });

  it('leaves caller options alone and strips odd characters from the name', () => {
    expect(exportConnection("PG:dbname='d' options='-c x=1'", "a'b c")).toBe("PG:dbname='d' options='-c x=1' application_name='abc'");
  });
});

describe('readDbfFieldNames', () => {
  it('reads the names GDAL wrote as GDAL reads them back: laundered, numbered, non-ASCII, and a table without geometry', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dbf-names-'));
    try {
      const names = [
        'OBJECTID',
        'population_density_2020',
        'population_density_2021',
        'Bevölkerungsdichte',
        'éééééééééééé',
        '日本語のフィールド名',
        'x',
      ];
      for (const [file, geometry] of [
        ['points.shp', gdal.wkbPoint],
        ['table.dbf', gdal.wkbNone],
      ] as const) {
        const ds = gdal.open(join(dir, file), 'w', 'ESRI Shapefile');
        const layer = ds.layers.create(file.split('.')[0], null, geometry, ['ENCODING=UTF-8']);
        for (const n of names) layer.fields.add(new gdal.FieldDefn(n, gdal.OFTString));
        ds.close();
        const dbf = join(dir, file.replace(/\.shp$/, '.dbf'));
        const reopened = gdal.open(dbf);
        const byGdal = reopened.layers.get(0).fields.getNames();
        reopened.close();
        expect(byGdal).toHaveLength(names.length);
        expect(await readDbfFieldNames(dbf)).toEqual(byGdal);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
