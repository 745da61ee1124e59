import { exportConnection } from '../../../src/export/writer/source';
import { fieldNameMappingCsv, shapefileReadme } from '../../../src/export/writer/shapefile';
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
