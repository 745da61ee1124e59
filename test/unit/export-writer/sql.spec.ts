import { buildSelectSql } from '../../../src/export/writer/gdal/select';
import { buildMeasureSql, geometryOutput, sqlText, xyColumns } from '../../../src/export/writer/sql';
import { ExportWriteError } from '../../../src/export/writer';
import { field, pointLayer, polygonLayer } from './fixtures';

describe('buildSelectSql', () => {
  it('aliases every column to its ArcGIS name and quotes identifiers', () => {
    const layer = pointLayer({
      fields: [field('OBJECTID', 'esriFieldTypeOID'), field('We"ird', 'esriFieldTypeString', 5)],
      schema: 'svc_x',
      table: 'l3',
    });
    expect(buildSelectSql(layer, 'geopackage', null)).toBe(
      'SELECT "objectid" AS "OBJECTID", "we""ird" AS "We""ird", "shape" FROM "svc_x"."l3" WHERE (1=1) ORDER BY "objectid"',
    );
  });

  it('applies the rendered where and treats an empty one as 1=1', () => {
    expect(buildSelectSql(pointLayer({ where: "\"name\" = E'O''Brien'::text" }), 'shapefile', null)).toContain(
      "WHERE (\"name\" = E'O''Brien'::text)",
    );
    expect(buildSelectSql(pointLayer({ where: '  ' }), 'shapefile', null)).toContain('WHERE (1=1)');
  });

  it('x/y for a WKT target use the cached from/to text form of ST_Transform', () => {
    const sql = buildSelectSql(pointLayer(), 'csv', { srs: 'PROJCS["it\'s"]' });
    expect(sql).toContain(`ST_X(ST_Transform("shape", (SELECT srtext FROM spatial_ref_sys WHERE srid = 4326), E'PROJCS["it''s"]')) AS "x"`);
  });

  it('omits ORDER BY when the layer has no OID field', () => {
    expect(buildSelectSql(polygonLayer({ fields: [field('Label', 'esriFieldTypeString', 5)] }), 'csv', null)).toBe(
      'SELECT "label" AS "Label", "shape" FROM "svc_abc"."l1" WHERE (1=1)',
    );
  });
});

describe('geometryOutput', () => {
  it.each([
    ['shapefile', 'esriGeometryPoint', 'gdal'],
    ['csv', 'esriGeometryPoint', 'xy'],
    ['csv', 'esriGeometryPolyline', 'wkt'],
    ['excel', 'esriGeometryPoint', 'xy'],
    ['excel', 'esriGeometryPolygon', 'none'],
    ['kml', 'esriGeometryPolygon', 'gdal'],
  ] as const)('%s + %s → %s', (format, geometryType, expected) => {
    expect(geometryOutput(pointLayer({ geometryType }), format)).toBe(expected);
  });
});

describe('xyColumns', () => {
  it('defaults to x / y and trims', () => {
    expect(xyColumns(pointLayer())).toEqual(['x', 'y']);
    expect(xyColumns(pointLayer({ xColumnName: ' Lon ', yColumnName: 'Lat' }))).toEqual(['Lon', 'Lat']);
  });

  it('refuses names that clash with a field or with each other', () => {
    expect(() => xyColumns(pointLayer({ xColumnName: 'name' }))).toThrow(ExportWriteError);
    expect(() => xyColumns(pointLayer({ xColumnName: 'A', yColumnName: 'a' }))).toThrow(/must differ/);
  });
});

describe('buildMeasureSql', () => {
  it('counts rows for most formats', () => {
    expect(buildMeasureSql(pointLayer({ where: 'x' }), 'excel')).toBe('SELECT count(*)::bigint AS rows FROM "svc_abc"."l0" WHERE (x)');
  });

  it('bounds a line or polygon shapefile by size, counts vertices and rings when exact; null geometries for FlatGeobuf', () => {
    expect(buildMeasureSql(polygonLayer(), 'shapefile')).toBe(
      'SELECT count(*)::bigint AS rows, coalesce(sum(ST_MemSize("shape")), 0)::bigint AS geometry_bytes FROM "svc_abc"."l1" WHERE (1=1)',
    );
    expect(buildMeasureSql(polygonLayer(), 'shapefile', true)).toBe(
      'SELECT count(*)::bigint AS rows, coalesce(sum(ST_NPoints("shape")), 0)::bigint AS vertices, coalesce(sum(ST_NRings("shape")), 0)::bigint AS parts FROM "svc_abc"."l1" WHERE (1=1)',
    );
    expect(buildMeasureSql(polygonLayer({ geometryType: 'esriGeometryPolyline' }), 'shapefile', true)).toContain(
      'sum(ST_NumGeometries("shape"))',
    );
    expect(buildMeasureSql(polygonLayer({ includeGeometry: false }), 'shapefile')).toBe(
      'SELECT count(*)::bigint AS rows FROM "svc_abc"."l1" WHERE (1=1)',
    );
    expect(buildMeasureSql(pointLayer(), 'shapefile')).toBe('SELECT count(*)::bigint AS rows FROM "svc_abc"."l0" WHERE (1=1)');
    expect(buildMeasureSql(pointLayer(), 'flatgeobuf')).toContain('count(*) FILTER (WHERE "shape" IS NULL)::bigint AS null_geometries');
  });
});

describe('sqlText', () => {
  it('escapes quotes and backslashes for E-strings', () => {
    expect(sqlText("a'b\\c")).toBe("E'a''b\\\\c'");
  });
});
