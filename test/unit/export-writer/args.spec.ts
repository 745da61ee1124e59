import { buildTranslateArgs, layerTargetSrs, ResolvedSrs, WGS84 } from '../../../src/export/writer/args';
import { ExportFormat } from '../../../src/export/writer';
import { pointLayer, polygonLayer } from './fixtures';

const POINT_COLS = '"objectid" AS "OBJECTID", "name" AS "Name", "pop" AS "Pop", "founded" AS "Founded"';
const FROM_POINTS = 'FROM "svc_abc"."l0" WHERE (1=1) ORDER BY "objectid"';
const SELECT_POINTS = `SELECT ${POINT_COLS}, "shape" ${FROM_POINTS}`;
const WEB_MERCATOR: ResolvedSrs = { srs: 'EPSG:3857', wkid: 3857 };

const args = (format: ExportFormat, layer = pointLayer(), target: ResolvedSrs | null = null, update = false) =>
  buildTranslateArgs({ layer, format, layerName: 'Cities', update, target: layerTargetSrs(format, target, layer) });

describe('buildTranslateArgs: point layer, every format', () => {
  it('shapefile: UTF-8 (.cpg), a hard 2 GB limit, the declared geometry type', () => {
    expect(args('shapefile')).toEqual([
      '-f',
      'ESRI Shapefile',
      '-sql',
      SELECT_POINTS,
      '-nln',
      'Cities',
      '-nlt',
      'POINT',
      '-lco',
      'ENCODING=UTF-8',
      '-lco',
      '2GB_LIMIT=YES',
    ]);
  });

  it('csv: x/y columns computed in SQL, no GDAL geometry', () => {
    expect(args('csv')).toEqual([
      '-f',
      'CSV',
      '-sql',
      `SELECT ${POINT_COLS}, ST_X("shape") AS "x", ST_Y("shape") AS "y" ${FROM_POINTS}`,
      '-nln',
      'Cities',
      '-nlt',
      'NONE',
      '-lco',
      'STRING_QUOTING=IF_NEEDED',
    ]);
  });

  it('csv: x/y after transform to the target, with the requested names', () => {
    const layer = pointLayer({ xColumnName: 'Easting', yColumnName: 'Northing' });
    const g = 'ST_Transform("shape", 3857)';
    expect(args('csv', layer, WEB_MERCATOR)).toEqual([
      '-f',
      'CSV',
      '-sql',
      `SELECT ${POINT_COLS}, ST_X(${g}) AS "Easting", ST_Y(${g}) AS "Northing" ${FROM_POINTS}`,
      '-nln',
      'Cities',
      '-nlt',
      'NONE',
      '-lco',
      'STRING_QUOTING=IF_NEEDED',
    ]);
  });

  it('filegdb: the OID field becomes the FID', () => {
    expect(args('filegdb')).toEqual([
      '-f',
      'OpenFileGDB',
      '-sql',
      SELECT_POINTS,
      '-nln',
      'Cities',
      '-nlt',
      'POINT',
      '-lco',
      'FID=OBJECTID',
    ]);
  });

  it('filegdb: a second layer is added with -update and no -f', () => {
    expect(args('filegdb', pointLayer(), null, true)).toEqual([
      '-update',
      '-sql',
      SELECT_POINTS,
      '-nln',
      'Cities',
      '-nlt',
      'POINT',
      '-lco',
      'FID=OBJECTID',
    ]);
  });

  it('geopackage: no spatial index from GDAL (gpkg-rtree.ts adds it), unless reprojected or without an OID', () => {
    expect(args('geopackage')).toEqual([
      '-f',
      'GPKG',
      '-sql',
      SELECT_POINTS,
      '-nln',
      'Cities',
      '-nlt',
      'POINT',
      '-lco',
      'FID=OBJECTID',
      '-lco',
      'SPATIAL_INDEX=NO',
    ]);
    expect(args('geopackage', pointLayer(), WEB_MERCATOR)).not.toContain('SPATIAL_INDEX=NO');
    expect(args('geopackage', pointLayer(), { srs: 'EPSG:4326', wkid: 4326 })).toContain('SPATIAL_INDEX=NO');
    const noOid = pointLayer();
    noOid.fields = noOid.fields.filter((f) => f.type !== 'esriFieldTypeOID');
    expect(args('geopackage', noOid)).not.toContain('SPATIAL_INDEX=NO');
    expect(args('geopackage', pointLayer({ includeGeometry: false }))).not.toContain('SPATIAL_INDEX=NO');
    expect(args('sqlite')).not.toContain('SPATIAL_INDEX=NO');
  });

  it('geojson: RFC 7946, always WGS84 (no -t_srs when the layer already is)', () => {
    expect(args('geojson')).toEqual(['-f', 'GeoJSON', '-sql', SELECT_POINTS, '-nln', 'Cities', '-nlt', 'POINT', '-lco', 'RFC7946=YES']);
    expect(args('geojson', pointLayer({ srid: 3857 }), WEB_MERCATOR)).toEqual([
      '-f',
      'GeoJSON',
      '-sql',
      SELECT_POINTS,
      '-nln',
      'Cities',
      '-nlt',
      'POINT',
      '-t_srs',
      'EPSG:4326',
      '-lco',
      'RFC7946=YES',
    ]);
  });

  it('kml: EPSG:4326 whatever targetSR says', () => {
    expect(args('kml', pointLayer({ srid: 2056 }), WEB_MERCATOR)).toEqual([
      '-f',
      'KML',
      '-sql',
      SELECT_POINTS,
      '-nln',
      'Cities',
      '-nlt',
      'POINT',
      '-t_srs',
      'EPSG:4326',
    ]);
  });

  it('excel: x/y columns like CSV', () => {
    expect(args('excel')).toEqual([
      '-f',
      'XLSX',
      '-sql',
      `SELECT ${POINT_COLS}, ST_X("shape") AS "x", ST_Y("shape") AS "y" ${FROM_POINTS}`,
      '-nln',
      'Cities',
      '-nlt',
      'NONE',
    ]);
  });

  it('featurecollection: GeoJSON in the target SR, dates as epoch ms', () => {
    const cols = '"objectid" AS "OBJECTID", "name" AS "Name", "pop" AS "Pop", (extract(epoch from "founded") * 1000)::bigint AS "Founded"';
    expect(args('featurecollection', pointLayer(), WEB_MERCATOR)).toEqual([
      '-f',
      'GeoJSON',
      '-sql',
      `SELECT ${cols}, "shape" ${FROM_POINTS}`,
      '-nln',
      'Cities',
      '-nlt',
      'POINT',
      '-t_srs',
      'EPSG:3857',
      '-lco',
      'RFC7946=NO',
    ]);
  });

  it('geopackage: FID from the OID field, -t_srs for the target', () => {
    expect(args('geopackage', pointLayer(), WEB_MERCATOR)).toEqual([
      '-f',
      'GPKG',
      '-sql',
      SELECT_POINTS,
      '-nln',
      'Cities',
      '-nlt',
      'POINT',
      '-t_srs',
      'EPSG:3857',
      '-lco',
      'FID=OBJECTID',
    ]);
  });

  it('flatgeobuf: a spatial index up to 100,000 rows, streamed without one above', () => {
    const fgb = (rows?: number) =>
      buildTranslateArgs({ layer: pointLayer(), format: 'flatgeobuf', layerName: 'Cities', update: false, target: null, rows });
    expect(fgb(0)).toEqual(['-f', 'FlatGeobuf', '-sql', SELECT_POINTS, '-nln', 'Cities', '-nlt', 'POINT', '-lco', 'SPATIAL_INDEX=YES']);
    expect(fgb(100_000)).toContain('SPATIAL_INDEX=YES');
    expect(fgb(100_001)).toContain('SPATIAL_INDEX=NO');
    expect(fgb()).toContain('SPATIAL_INDEX=NO');
  });

  it('sqlite: SpatiaLite, names kept as they are', () => {
    expect(args('sqlite')).toEqual([
      '-f',
      'SQLite',
      '-dsco',
      'SPATIALITE=YES',
      '-sql',
      SELECT_POINTS,
      '-nln',
      'Cities',
      '-nlt',
      'POINT',
      '-lco',
      'LAUNDER=NO',
      '-lco',
      'FID=OBJECTID',
    ]);
    expect(args('sqlite', pointLayer(), null, true)).toEqual([
      '-update',
      '-sql',
      SELECT_POINTS,
      '-nln',
      'Cities',
      '-nlt',
      'POINT',
      '-lco',
      'LAUNDER=NO',
      '-lco',
      'FID=OBJECTID',
    ]);
  });
});

describe('buildTranslateArgs: polygons, tables and includeGeometry=false', () => {
  const SELECT_POLYS = 'SELECT "objectid" AS "OBJECTID", "label" AS "Label", "shape" FROM "svc_abc"."l1" WHERE (1=1) ORDER BY "objectid"';

  it('csv: polygons as WKT, reprojected by GDAL', () => {
    expect(args('csv', polygonLayer(), WEB_MERCATOR)).toEqual([
      '-f',
      'CSV',
      '-sql',
      SELECT_POLYS,
      '-nln',
      'Cities',
      '-nlt',
      'MULTIPOLYGON',
      '-t_srs',
      'EPSG:3857',
      '-lco',
      'STRING_QUOTING=IF_NEEDED',
      '-lco',
      'GEOMETRY=AS_WKT',
    ]);
  });

  it('excel: polygons without geometry', () => {
    expect(args('excel', polygonLayer())).toEqual([
      '-f',
      'XLSX',
      '-sql',
      'SELECT "objectid" AS "OBJECTID", "label" AS "Label" FROM "svc_abc"."l1" WHERE (1=1) ORDER BY "objectid"',
      '-nln',
      'Cities',
      '-nlt',
      'NONE',
    ]);
  });

  it('shapefile: polygons are MULTIPOLYGON; lines MULTILINESTRING; multipoints MULTIPOINT', () => {
    expect(args('shapefile', polygonLayer())).toContain('MULTIPOLYGON');
    expect(args('shapefile', polygonLayer({ geometryType: 'esriGeometryPolyline' }))).toContain('MULTILINESTRING');
    expect(args('shapefile', polygonLayer({ geometryType: 'esriGeometryMultipoint' }))).toContain('MULTIPOINT');
  });

  it('includeGeometry=false drops the shape column, -nlt NONE and -t_srs', () => {
    const layer = pointLayer({ includeGeometry: false, where: '"pop" > (10)::integer' });
    for (const format of ['shapefile', 'geopackage', 'csv', 'kml'] as const) {
      const a = args(format, layer, WEB_MERCATOR);
      const sql = a[a.indexOf('-sql') + 1];
      expect(sql).toBe(`SELECT ${POINT_COLS} FROM "svc_abc"."l0" WHERE ("pop" > (10)::integer) ORDER BY "objectid"`);
      expect(a[a.indexOf('-nlt') + 1]).toBe('NONE');
      expect(a).not.toContain('-t_srs');
    }
  });

  it('a table (no geometry type) exports attributes only', () => {
    const a = args('geopackage', polygonLayer({ geometryType: null }));
    expect(a[a.indexOf('-sql') + 1]).not.toContain('shape');
    expect(a[a.indexOf('-nlt') + 1]).toBe('NONE');
  });
});

describe('layerTargetSrs', () => {
  it('keeps the layer SR when no target or the same wkid is asked', () => {
    expect(layerTargetSrs('shapefile', null, pointLayer())).toBeNull();
    expect(layerTargetSrs('shapefile', WGS84, pointLayer())).toBeNull();
    expect(layerTargetSrs('shapefile', WEB_MERCATOR, pointLayer())).toEqual(WEB_MERCATOR);
  });

  it('forces WGS84 for KML and GeoJSON', () => {
    expect(layerTargetSrs('kml', WEB_MERCATOR, pointLayer({ srid: 3857 }))).toEqual(WGS84);
    expect(layerTargetSrs('geojson', null, pointLayer({ srid: 2056 }))).toEqual(WGS84);
    expect(layerTargetSrs('geojson', WEB_MERCATOR, pointLayer())).toBeNull();
  });

  it('a WKT target has no wkid, so it always reprojects', () => {
    const wkt: ResolvedSrs = { srs: 'PROJCS["x"]' };
    expect(layerTargetSrs('geopackage', wkt, pointLayer())).toBe(wkt);
  });
});
