import { ExportFormat, ExportLayerSource } from '../../../src/export/writer';
import { buildTranslateArgs } from '../../../src/export/writer/gdal/args';
import { layerTargetSrs, ResolvedSrs, WGS84 } from '../../../src/export/writer/srs';
import { pointLayer, polygonLayer } from './fixtures';

const POINT_COLS = '"objectid" AS "OBJECTID", "name" AS "Name", "pop" AS "Pop", "founded" AS "Founded"';
const FROM_POINTS = 'FROM "svc_abc"."l0" WHERE (1=1) ORDER BY "objectid"';
const SELECT_POINTS = `SELECT ${POINT_COLS}, "shape" ${FROM_POINTS}`;
const SELECT_XY = `SELECT ${POINT_COLS}, ST_X("shape") AS "x", ST_Y("shape") AS "y" ${FROM_POINTS}`;
const SELECT_POLYS = 'SELECT "objectid" AS "OBJECTID", "label" AS "Label", "shape" FROM "svc_abc"."l1" WHERE (1=1) ORDER BY "objectid"';
const WEB_MERCATOR: ResolvedSrs = { srs: 'EPSG:3857', wkid: 3857 };
const MERCATOR_XY = 'ST_Transform("shape", 3857)';
const EPOCH_COLS =
  '"objectid" AS "OBJECTID", "name" AS "Name", "pop" AS "Pop", (extract(epoch from "founded") * 1000)::bigint AS "Founded"';

/** One translate step: the format, and what differs from a new point layer 'Cities' in its own SR. */
interface Step {
  format: ExportFormat;
  layer?: ExportLayerSource;
  /** The job's target (layerTargetSrs gives the layer's). */
  target?: ResolvedSrs;
  update?: boolean;
  rows?: number;
}

const args = ({ format, layer = pointLayer(), target, update = false, rows }: Step) =>
  buildTranslateArgs({ layer, format, layerName: 'Cities', update, target: layerTargetSrs(format, target ?? null, layer), rows });

/** -f and -dsco, or -update; then the SELECT, the name and the declared geometry type. */
const head = (driver: string | null, sql: string, nlt: string, ...dsco: string[]) => [
  ...(driver === null ? ['-update'] : ['-f', driver, ...dsco.flatMap((o) => ['-dsco', o])]),
  '-sql',
  sql,
  '-nln',
  'Cities',
  '-nlt',
  nlt,
];
const lco = (...options: string[]) => options.flatMap((o) => ['-lco', o]);
const tSrs = (srs: string) => ['-t_srs', srs];
const noOid = () => {
  const layer = pointLayer();
  layer.fields = layer.fields.filter((f) => f.type !== 'esriFieldTypeOID');
  return layer;
};

const WHOLE: [string, Step, string[]][] = [
  [
    'shapefile: UTF-8 (.cpg), a hard 2 GB limit, the declared geometry type',
    { format: 'shapefile' },
    [...head('ESRI Shapefile', SELECT_POINTS, 'POINT'), ...lco('ENCODING=UTF-8', '2GB_LIMIT=YES')],
  ],
  [
    'csv: x/y columns computed in SQL, no GDAL geometry',
    { format: 'csv' },
    [...head('CSV', SELECT_XY, 'NONE'), ...lco('STRING_QUOTING=IF_NEEDED')],
  ],
  [
    'csv: x/y after transform to the target, with the requested names',
    { format: 'csv', layer: pointLayer({ xColumnName: 'Easting', yColumnName: 'Northing' }), target: WEB_MERCATOR },
    [
      ...head('CSV', `SELECT ${POINT_COLS}, ST_X(${MERCATOR_XY}) AS "Easting", ST_Y(${MERCATOR_XY}) AS "Northing" ${FROM_POINTS}`, 'NONE'),
      ...lco('STRING_QUOTING=IF_NEEDED'),
    ],
  ],
  [
    'filegdb: the OID field becomes the FID',
    { format: 'filegdb' },
    [...head('OpenFileGDB', SELECT_POINTS, 'POINT'), ...lco('FID=OBJECTID')],
  ],
  [
    'filegdb: a second layer is added with -update and no -f',
    { format: 'filegdb', update: true },
    [...head(null, SELECT_POINTS, 'POINT'), ...lco('FID=OBJECTID')],
  ],
  [
    'geopackage: no spatial index from GDAL (gpkg-rtree.ts adds it)',
    { format: 'geopackage' },
    [...head('GPKG', SELECT_POINTS, 'POINT'), ...lco('FID=OBJECTID', 'SPATIAL_INDEX=NO')],
  ],
  [
    'geopackage: FID from the OID field, -t_srs for the target',
    { format: 'geopackage', target: WEB_MERCATOR },
    [...head('GPKG', SELECT_POINTS, 'POINT'), ...tSrs('EPSG:3857'), ...lco('FID=OBJECTID')],
  ],
  [
    'geojson: RFC 7946 (no -t_srs when the layer is in WGS84)',
    { format: 'geojson' },
    [...head('GeoJSON', SELECT_POINTS, 'POINT'), ...lco('RFC7946=YES')],
  ],
  [
    'geojson: always WGS84',
    { format: 'geojson', layer: pointLayer({ srid: 3857 }), target: WEB_MERCATOR },
    [...head('GeoJSON', SELECT_POINTS, 'POINT'), ...tSrs('EPSG:4326'), ...lco('RFC7946=YES')],
  ],
  [
    'kml: EPSG:4326 whatever targetSR says',
    { format: 'kml', layer: pointLayer({ srid: 2056 }), target: WEB_MERCATOR },
    [...head('KML', SELECT_POINTS, 'POINT'), ...tSrs('EPSG:4326')],
  ],
  ['excel: x/y columns like CSV', { format: 'excel' }, head('XLSX', SELECT_XY, 'NONE')],
  [
    'featurecollection: GeoJSON in the target SR, dates as epoch ms',
    { format: 'featurecollection', target: WEB_MERCATOR },
    [...head('GeoJSON', `SELECT ${EPOCH_COLS}, "shape" ${FROM_POINTS}`, 'POINT'), ...tSrs('EPSG:3857'), ...lco('RFC7946=NO')],
  ],
  [
    'flatgeobuf: a spatial index for an empty layer',
    { format: 'flatgeobuf', rows: 0 },
    [...head('FlatGeobuf', SELECT_POINTS, 'POINT'), ...lco('SPATIAL_INDEX=YES')],
  ],
  [
    'sqlite: SpatiaLite, names kept as they are',
    { format: 'sqlite' },
    [...head('SQLite', SELECT_POINTS, 'POINT', 'SPATIALITE=YES'), ...lco('LAUNDER=NO', 'FID=OBJECTID')],
  ],
  [
    'sqlite: a second layer',
    { format: 'sqlite', update: true },
    [...head(null, SELECT_POINTS, 'POINT'), ...lco('LAUNDER=NO', 'FID=OBJECTID')],
  ],
  [
    'csv: polygons as WKT, reprojected by GDAL',
    { format: 'csv', layer: polygonLayer(), target: WEB_MERCATOR },
    [...head('CSV', SELECT_POLYS, 'MULTIPOLYGON'), ...tSrs('EPSG:3857'), ...lco('STRING_QUOTING=IF_NEEDED', 'GEOMETRY=AS_WKT')],
  ],
  [
    'excel: polygons without geometry',
    { format: 'excel', layer: polygonLayer() },
    head('XLSX', 'SELECT "objectid" AS "OBJECTID", "label" AS "Label" FROM "svc_abc"."l1" WHERE (1=1) ORDER BY "objectid"', 'NONE'),
  ],
];

describe('buildTranslateArgs: the whole argv', () => {
  it.each(WHOLE)('%s', (_, step, argv) => expect(args(step)).toEqual(argv));
});

/** Steps whose argv holds (true) or lacks (false) one word. */
const HOLDS: [string, Step, string, boolean][] = [
  ['geopackage reprojected: GDAL builds the index', { format: 'geopackage', target: WEB_MERCATOR }, 'SPATIAL_INDEX=NO', false],
  ['geopackage to its own SR: the index is packed', { format: 'geopackage', target: WGS84 }, 'SPATIAL_INDEX=NO', true],
  ['geopackage without an OID: GDAL builds the index', { format: 'geopackage', layer: noOid() }, 'SPATIAL_INDEX=NO', false],
  [
    'geopackage without geometry: no index',
    { format: 'geopackage', layer: pointLayer({ includeGeometry: false }) },
    'SPATIAL_INDEX=NO',
    false,
  ],
  ['sqlite: GDAL builds the index', { format: 'sqlite' }, 'SPATIAL_INDEX=NO', false],
  ['flatgeobuf of 100,000 rows: indexed', { format: 'flatgeobuf', rows: 100_000 }, 'SPATIAL_INDEX=YES', true],
  ['flatgeobuf of 100,001 rows: streamed without an index', { format: 'flatgeobuf', rows: 100_001 }, 'SPATIAL_INDEX=NO', true],
  ['flatgeobuf of rows not counted: streamed without an index', { format: 'flatgeobuf' }, 'SPATIAL_INDEX=NO', true],
  ['shapefile of polygons: MULTIPOLYGON', { format: 'shapefile', layer: polygonLayer() }, 'MULTIPOLYGON', true],
  [
    'shapefile of lines: MULTILINESTRING',
    { format: 'shapefile', layer: polygonLayer({ geometryType: 'esriGeometryPolyline' }) },
    'MULTILINESTRING',
    true,
  ],
  [
    'shapefile of multipoints: MULTIPOINT',
    { format: 'shapefile', layer: polygonLayer({ geometryType: 'esriGeometryMultipoint' }) },
    'MULTIPOINT',
    true,
  ],
];

describe('buildTranslateArgs: one option', () => {
  it.each(HOLDS)('%s', (_, step, word, holds) => expect(args(step).includes(word)).toBe(holds));
});

describe('buildTranslateArgs: attributes only', () => {
  const layer = pointLayer({ includeGeometry: false, where: '"pop" > (10)::integer' });
  it.each(['shapefile', 'geopackage', 'csv', 'kml'] as const)('%s with includeGeometry=false: no shape, -nlt NONE, no -t_srs', (format) => {
    const a = args({ format, layer, target: WEB_MERCATOR });
    expect(a[a.indexOf('-sql') + 1]).toBe(`SELECT ${POINT_COLS} FROM "svc_abc"."l0" WHERE ("pop" > (10)::integer) ORDER BY "objectid"`);
    expect(a[a.indexOf('-nlt') + 1]).toBe('NONE');
    expect(a).not.toContain('-t_srs');
  });

  it('a table (no geometry type)', () => {
    const a = args({ format: 'geopackage', layer: polygonLayer({ geometryType: null }) });
    expect(a[a.indexOf('-sql') + 1]).not.toContain('shape');
    expect(a[a.indexOf('-nlt') + 1]).toBe('NONE');
  });
});

const WKT: ResolvedSrs = { srs: 'PROJCS["x"]' };
const TARGETS: [string, ExportFormat, ResolvedSrs | null, ExportLayerSource, ResolvedSrs | null][] = [
  ['no target keeps the layer SR', 'shapefile', null, pointLayer(), null],
  ["the layer's own wkid keeps it", 'shapefile', WGS84, pointLayer(), null],
  ['another wkid reprojects', 'shapefile', WEB_MERCATOR, pointLayer(), WEB_MERCATOR],
  ['KML is WGS84 whatever is asked', 'kml', WEB_MERCATOR, pointLayer({ srid: 3857 }), WGS84],
  ['GeoJSON is WGS84 without a target', 'geojson', null, pointLayer({ srid: 2056 }), WGS84],
  ['GeoJSON of a WGS84 layer is kept', 'geojson', WEB_MERCATOR, pointLayer(), null],
  ['a WKT target has no wkid, so it always reprojects', 'geopackage', WKT, pointLayer(), WKT],
];

describe('layerTargetSrs', () => {
  it.each(TARGETS)('%s', (_, format, target, layer, expected) => expect(layerTargetSrs(format, target, layer)).toBe(expected));
});
