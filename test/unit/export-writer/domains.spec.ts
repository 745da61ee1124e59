import { attributeColumns, ColumnsError } from '../../../src/export/export-columns';
import { csvHeader, csvLinesSql } from '../../../src/export/writer/copy/copy-format';
import { buildSelectSql } from '../../../src/export/writer/gdal/select';
import { domainListCsv } from '../../../src/export/writer/shapefile/shapefile';
import { sheetHead, sheetRowsSql } from '../../../src/export/writer/xlsx/xlsx-sheet';
import { LayerField } from '../../../src/layers/layer-schema';
import { field, pointLayer } from './fixtures';

const STATUS = {
  type: 'codedValue' as const,
  name: 'Status',
  codedValues: [
    { name: 'Open', code: 1 },
    { name: "=It's shut", code: 2 },
  ],
};
const withDomains = (fields: LayerField[]): LayerField[] =>
  fields.map((f) =>
    f.name === 'Pop'
      ? { ...f, alias: 'Population', domain: STATUS }
      : f.name === 'Founded'
        ? { ...f, domain: { type: 'range', name: 'Era', range: [0, 1e12] } }
        : f,
  );

describe('export columns of fields with domains', () => {
  const plain = pointLayer();
  const coded = pointLayer({ fields: withDomains(plain.fields) });

  it('writes codes under field names unless asked: the same SQL and header as a layer without domains', () => {
    expect(csvLinesSql(coded, null)).toBe(csvLinesSql(plain, null));
    expect(csvHeader(coded)).toBe(csvHeader(plain));
    expect(sheetRowsSql(coded, null, 0)).toBe(sheetRowsSql(plain, null, 0));
    expect(buildSelectSql(coded, 'csv', null)).toBe(buildSelectSql(plain, 'csv', null));
    expect(buildSelectSql(coded, 'geopackage', null)).toBe(buildSelectSql(plain, 'geopackage', null));
  });

  it('chooses code, description or both per coded field, with aliases as headers; ranges keep their values', () => {
    const headers = (o: Parameters<typeof attributeColumns>[1]) => attributeColumns(coded.fields, o).map((c) => `${c.header}:${c.value}`);
    expect(headers({ domainValues: 'description' })).toEqual(['OBJECTID:code', 'Name:code', 'Pop:description', 'Founded:code']);
    expect(headers({ domainValues: 'both', fieldAliases: true })).toEqual([
      'OBJECTID:code',
      'Name:code',
      'Population:code',
      'Population_desc:description',
      'Founded:code',
    ]);
    expect(csvHeader({ ...coded, domainValues: 'both', fieldAliases: true })).toBe(
      'OBJECTID,Name,Population,Population_desc,Founded,x,y\n',
    );
    expect(sheetHead({ ...coded, fieldAliases: true }, null, 1)).toContain('>Population</t>');
  });

  it('escapes aliases and descriptions as CSV text once, in JavaScript, and matches codes by value', () => {
    const layer = pointLayer({
      fields: [field('OBJECTID', 'esriFieldTypeOID'), { ...field('Pop', 'esriFieldTypeInteger'), alias: '=cmd', domain: STATUS }],
    });
    expect(csvHeader({ ...layer, fieldAliases: true })).toBe(`OBJECTID,"'=cmd",x,y\n`);
    const sql = csvLinesSql({ ...layer, domainValues: 'both' }, null);
    expect(sql).toContain(`CASE "pop" WHEN 1 THEN E'Open' WHEN 2 THEN E'"''=It''s shut"' ELSE NULL END`);
    expect(csvLinesSql({ ...layer, domainValues: 'description' }, null)).toContain(`WHEN 2 THEN E'"''=It''s shut"' ELSE "pop"::text END`);
    // Excel never runs a string cell as a formula: the description is only made XML text.
    expect(sheetRowsSql({ ...layer, domainValues: 'description' }, null, 0)).toContain(`=It''s shut</t></is></c>'`);
  });

  it('refuses headers two columns would share', () => {
    const fields = [{ ...field('Pop', 'esriFieldTypeInteger'), domain: STATUS }, field('pop_DESC', 'esriFieldTypeString')];
    expect(() => attributeColumns(fields, { domainValues: 'both' })).toThrow(ColumnsError);
    expect(() => attributeColumns(fields, { domainValues: 'both' })).toThrow("fields 'Pop' and 'pop_DESC' would both be headed 'pop_DESC'");
    expect(attributeColumns(fields, { domainValues: 'description' }).map((c) => c.header)).toEqual(['Pop', 'pop_DESC']);
  });

  it("lists a shapefile layer's domains with the .dbf names, text escaped against formulas", () => {
    const fields = withDomains(pointLayer().fields);
    expect(domainListCsv(fields, ['OBJECTID', 'Name', 'Pop', 'Founded'])!.split('\r\n')).toEqual([
      'field_name,shapefile_field_name,domain_name,domain_type,code,description,minimum,maximum',
      'Pop,Pop,Status,codedValue,1,Open,,',
      `Pop,Pop,Status,codedValue,2,"'=It's shut",,`,
      'Founded,Founded,Era,range,,,0,1000000000000',
      '',
    ]);
    expect(domainListCsv(pointLayer().fields, ['OBJECTID', 'Name', 'Pop', 'Founded'])).toBeNull();
  });
});
