import fc from 'fast-check';
import { parseLayerDefinition } from '../../../src/layers/layer-schema';
import { PublishError } from '../../../src/publish';
import { describeCopyError } from '../../../src/publish/load';
import {
  assignFieldNames,
  classifyGeometryName,
  classifyWkbType,
  esriFieldType,
  flatGeometryName,
  partCondition,
  partLayerName,
  pickCoordinateColumns,
  planGeometry,
  sanitizeFieldName,
  stringFieldLength,
  wkbTypeName,
} from '../../../src/publish/mapping';

describe('esriFieldType', () => {
  it.each([
    ['integer', 'esriFieldTypeInteger'],
    ['integer64', 'esriFieldTypeBigInteger'],
    ['real', 'esriFieldTypeDouble'],
    ['string', 'esriFieldTypeString'],
    ['date', 'esriFieldTypeDate'],
    ['dateTime', 'esriFieldTypeDate'],
    ['time', 'esriFieldTypeString'],
    ['string[]', 'esriFieldTypeString'],
    ['integer[]', 'esriFieldTypeString'],
    ['wideString', 'esriFieldTypeString'],
    ['binary', null],
  ])('%s -> %s', (ogr, esri) => expect(esriFieldType(ogr)).toBe(esri));
});

describe('field names', () => {
  it.each([
    ['Name', 'Name'],
    ['__x__', '__x__'],
    ['Pop 2020', 'Pop_2020'],
    ['2020 total', 'F2020_total'],
    ['Población', 'Poblacion'],
    ['a-b.c/d', 'a_b_c_d'],
    ['  spaced  out  ', 'spaced_out'],
    ['名前', 'field_4'],
    ['', 'field_4'],
    ['_lead space', '_lead_space'],
    ['x'.repeat(80), 'x'.repeat(63)],
  ])('sanitizes %j to %j', (raw, want) => expect(sanitizeFieldName(raw, 3)).toBe(want));

  it('keeps valid names, renames reserved ones and dedupes regardless of case', () => {
    expect(assignFieldNames(['OBJECTID', 'Shape', 'xmin', 'name', 'NAME', 'a b', 'a_b', 'ctid'])).toEqual([
      'OBJECTID_1',
      'Shape_1',
      'xmin_1',
      'name',
      'NAME_1',
      'a_b_1',
      'a_b',
      'ctid_1',
    ]);
  });

  it('keeps suffixed names within 63 characters', () => {
    const long = 'y'.repeat(63);
    const out = assignFieldNames([long, long.toUpperCase(), `${long}!`]);
    expect(out[0]).toBe(long);
    expect(out[1]).toBe(`${'Y'.repeat(61)}_1`);
    expect(out[2]).toBe(`${'y'.repeat(61)}_2`);
  });

  it('always yields names parseLayerDefinition accepts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('OBJECTID', 'objectid', 'shape', 'SHAPE', 'oid', 'a b', 'a_b', '1', 'é')), {
          maxLength: 30,
        }),
        (names) => {
          const out = assignFieldNames(names);
          expect(out).toHaveLength(names.length);
          const def = parseLayerDefinition(
            { name: 'l', geometryType: 'esriGeometryPoint', fields: out.map((name) => ({ name, type: 'esriFieldTypeString' })) },
            'Feature Layer',
            4326,
          );
          expect(def.fields[0].name).toBe('OBJECTID');
          expect(def.fields).toHaveLength(names.length + 1);
        },
      ),
    );
  });
});

describe('stringFieldLength', () => {
  it('keeps declared widths, grown to the data', () => {
    expect(stringFieldLength(20, null)).toBe(20);
    expect(stringFieldLength(20, 12)).toBe(20);
    expect(stringFieldLength(8, 30)).toBe(30);
  });
  it('gives undeclared widths 256 or the next power of two', () => {
    expect(stringFieldLength(0, null)).toBe(256);
    expect(stringFieldLength(0, 0)).toBe(256);
    expect(stringFieldLength(0, 256)).toBe(256);
    expect(stringFieldLength(0, 257)).toBe(512);
    expect(stringFieldLength(0, 5000)).toBe(8192);
    expect(stringFieldLength(0, 999_999)).toBe(1_000_000);
  });
  it('refuses values over a million characters', () => {
    expect(() => stringFieldLength(0, 1_000_001, 'essay')).toThrow(PublishError);
    expect(() => stringFieldLength(0, 1_000_001, 'essay')).toThrow(/'essay'.*1000001 characters/);
  });
});

describe('geometry types', () => {
  it.each([
    [1, 'POINT'],
    [0x80000001, 'POINT'], // wkbPoint25D
    [1001, 'POINT'], // ISO PointZ
    [2004, 'MULTIPOINT'], // ISO MultiPointM
    [3006, 'MULTIPOLYGON'], // ISO MultiPolygonZM
    [8, 'CIRCULARSTRING'],
    [0, 'GEOMETRY'],
    [0x80000000, 'GEOMETRY'],
    [100, 'NONE'],
    [7, 'GEOMETRYCOLLECTION'],
  ])('wkb %d is %s', (code, name) => expect(wkbTypeName(code)).toBe(name));

  it('classifies declared types', () => {
    expect(classifyWkbType(1)).toEqual({ kind: 'family', family: 'point', curve: false });
    expect(classifyWkbType(4)).toEqual({ kind: 'family', family: 'multipoint', curve: false });
    expect(classifyWkbType(2)).toEqual({ kind: 'family', family: 'line', curve: false });
    expect(classifyWkbType(0x80000005)).toEqual({ kind: 'family', family: 'line', curve: false });
    expect(classifyWkbType(9)).toEqual({ kind: 'family', family: 'line', curve: true });
    expect(classifyWkbType(3)).toEqual({ kind: 'family', family: 'polygon', curve: false });
    expect(classifyWkbType(12)).toEqual({ kind: 'family', family: 'polygon', curve: true });
    expect(classifyWkbType(100)).toEqual({ kind: 'none' });
    expect(classifyWkbType(0)).toEqual({ kind: 'unknown' });
    expect(classifyWkbType(7)).toEqual({ kind: 'unsupported', name: 'GEOMETRYCOLLECTION' });
    expect(classifyWkbType(16)).toEqual({ kind: 'unsupported', name: 'TIN' });
  });

  it('reads type names with dimension suffixes', () => {
    expect(flatGeometryName('POINT Z')).toBe('POINT');
    expect(flatGeometryName('MultiPolygonZM')).toBe('MULTIPOLYGON');
    expect(flatGeometryName('TIN Z')).toBe('TIN');
    expect(classifyGeometryName('LINESTRING M')).toEqual({ kind: 'family', family: 'line', curve: false });
    expect(classifyGeometryName(null)).toEqual({ kind: 'none' });
    expect(classifyGeometryName('WEIRD')).toEqual({ kind: 'unsupported', name: 'WEIRD' });
  });

  it('plans one part per family; nulls go to the first part; collections are skipped', () => {
    const plan = planGeometry([
      { type: 'POLYGON', count: 2 },
      { type: 'POINT', count: 3 },
      { type: 'MULTIPOINT', count: 1 },
      { type: null, count: 4 },
      { type: 'GEOMETRYCOLLECTION', count: 5 },
      { type: 'MULTIPOLYGON', count: 1 },
      { type: 'COMPOUNDCURVE', count: 1 },
    ]);
    expect(plan).toEqual({
      parts: [
        { family: 'multipoint', curve: false, types: ['POINT', 'MULTIPOINT'], includeNull: true, count: 8 },
        { family: 'line', curve: true, types: ['COMPOUNDCURVE'], includeNull: false, count: 1 },
        { family: 'polygon', curve: false, types: ['POLYGON', 'MULTIPOLYGON'], includeNull: false, count: 3 },
      ],
      skipped: [{ type: 'GEOMETRYCOLLECTION', count: 5 }],
      nullCount: 4,
    });
    expect(partCondition(plan.parts[0])).toBe("(OGR_GEOMETRY IN ('POINT', 'MULTIPOINT') OR OGR_GEOMETRY IS NULL)");
    expect(partCondition(plan.parts[2])).toBe("(OGR_GEOMETRY IN ('POLYGON', 'MULTIPOLYGON'))");
  });

  it('keeps points as points when there is no multipoint', () => {
    expect(planGeometry([{ type: 'POINT', count: 2 }]).parts).toEqual([
      { family: 'point', curve: false, types: ['POINT'], includeNull: false, count: 2 },
    ]);
    expect(planGeometry([{ type: null, count: 2 }])).toEqual({ parts: [], skipped: [], nullCount: 2 });
  });

  it('names split layers within 128 characters', () => {
    expect(partLayerName('roads', 'line')).toBe('roads (lines)');
    expect(partLayerName('x'.repeat(200), 'polygon')).toHaveLength(128);
  });
});

describe('CSV coordinate columns', () => {
  it('recognises common names, case-insensitively', () => {
    expect(pickCoordinateColumns(['id', 'LAT', 'Lon'])).toEqual({ x: 'Lon', y: 'LAT' });
    expect(pickCoordinateColumns(['Longitude', 'Latitude', 'x', 'y'])).toEqual({ x: 'Longitude', y: 'Latitude' });
    expect(pickCoordinateColumns(['lng', 'lat'])).toEqual({ x: 'lng', y: 'lat' });
    expect(pickCoordinateColumns(['X', 'Y'])).toEqual({ x: 'X', y: 'Y' });
    expect(pickCoordinateColumns(['POINT_X', 'POINT_Y'])).toEqual({ x: 'POINT_X', y: 'POINT_Y' });
    expect(pickCoordinateColumns(['lon', 'name'])).toBeNull();
  });
  it('uses the named columns and says which are missing', () => {
    expect(pickCoordinateColumns(['E', 'N'], 'e', 'n')).toEqual({ x: 'E', y: 'N' });
    expect(() => pickCoordinateColumns(['E', 'N'], 'east', 'n')).toThrow(/no column named 'east'. Its columns are: 'E', 'N'/);
    expect(() => pickCoordinateColumns(['E', 'N'], 'E')).toThrow(/both/);
    expect(() => pickCoordinateColumns(['E', 'N'], 'E', 'e')).toThrow(/two different columns/);
  });
});

describe('load error messages', () => {
  it('keeps the server message and the feature number', () => {
    expect(
      describeCopyError(
        'COPY statement failed. ERROR: Geometry type (MultiPoint) does not match column type (Point) CONTEXT: COPY edge, line 2, column shape: "0104000020E61000000200"',
      ),
    ).toBe('Geometry type (MultiPoint) does not match column type (Point) (feature 2)');
    expect(describeCopyError('ERROR: value too long for type character varying(5)')).toBe('value too long for type character varying(5)');
  });
});
