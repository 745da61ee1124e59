import {
  boundsPass,
  checkExcelRows,
  checkLimits,
  checkGeometryPresent,
  checkShapefileFields,
  checkShapefileSizes,
  EXCEL_MAX_ROWS,
  estimateShapefile,
  SHAPEFILE_MAX_BYTES,
} from '../../../src/export/writer/limits';
import { ExportWriteError } from '../../../src/export/writer';
import { field, pointLayer, polygonLayer } from './fixtures';

const measure = (rows: number, vertices = 0, parts = 0, nullGeometries = 0) => ({ rows, vertices, parts, nullGeometries });

describe('Excel sheet limit', () => {
  it('allows 1,048,575 rows plus the header and refuses one more', () => {
    expect(() => checkExcelRows('Cities', EXCEL_MAX_ROWS - 1)).not.toThrow();
    expect(() => checkExcelRows('Cities', EXCEL_MAX_ROWS)).toThrow(ExportWriteError);
    expect(() => checkExcelRows('Cities', 5_000_000)).toThrow(
      "Layer 'Cities' has 5,000,000 rows; an Excel sheet holds at most 1,048,575 plus the header.",
    );
  });
});

describe('shapefile size estimate', () => {
  it('matches the record layouts GDAL writes (measured: 9 int, 50 text, 8 date → 77 bytes a record)', () => {
    // OBJECTID 9 + Name 50 + Pop 9 + Founded 8 + deletion flag 1 = 77; header 32 + 4 × 32 + terminator.
    expect(estimateShapefile(pointLayer(), measure(300), true)).toEqual({ shp: 100 + 300 * 28, dbf: 32 + 128 + 1 + 300 * 77 + 1 });
    expect(estimateShapefile(pointLayer(), measure(300), false).shp).toBe(0);
  });

  it('counts parts and vertices for polygons', () => {
    expect(estimateShapefile(polygonLayer(), measure(10, 330, 10), true).shp).toBe(100 + 10 * 52 + 10 * 4 + 330 * 16);
  });

  it("takes the geometries' size in place of parts and vertices when only that was measured", () => {
    expect(estimateShapefile(polygonLayer(), { ...measure(10), geometryBytes: 6_000 }, true).shp).toBe(100 + 10 * 52 + 6_000);
    const multipoint = polygonLayer({ geometryType: 'esriGeometryMultipoint' });
    expect(estimateShapefile(multipoint, { ...measure(10), geometryBytes: 6_000 }, true).shp).toBe(100 + 10 * 48 + 6_000);
  });

  it('caps text at 254 bytes and uses the GDAL widths for other types', () => {
    const layer = pointLayer({
      fields: [
        field('T', 'esriFieldTypeString', 100_000),
        field('B', 'esriFieldTypeBigInteger'),
        field('G', 'esriFieldTypeGlobalID'),
        field('S', 'esriFieldTypeSmallInteger'),
      ],
    });
    expect(estimateShapefile(layer, measure(1), false).dbf).toBe(32 + 4 * 32 + 1 + (1 + 254 + 18 + 80 + 5) + 1);
  });

  it('refuses a component over 2 GB with an actionable message', () => {
    expect(() => checkShapefileSizes('Cities', { shp: SHAPEFILE_MAX_BYTES, dbf: 1 }, 'estimated')).not.toThrow();
    expect(() => checkShapefileSizes('Cities', { shp: 1, dbf: SHAPEFILE_MAX_BYTES + 1 }, 'estimated')).toThrow(
      /\.dbf would be about 2\.00 GB.*File Geodatabase or GeoPackage/,
    );
    // 80 M points: 28 bytes each in the .shp.
    expect(() => checkShapefileSizes('Cities', estimateShapefile(pointLayer(), measure(80_000_000), true), 'estimated')).toThrow(
      ExportWriteError,
    );
  });
});

describe('a shapefile measured with a size bound', () => {
  const job = { format: 'shapefile' as const, layers: [polygonLayer()] };
  const overBound = { ...measure(10), geometryBytes: SHAPEFILE_MAX_BYTES };

  it('passes on the bound when the bound is under the limit', () => {
    expect(boundsPass(job, ['Parcels'], [{ ...measure(10), geometryBytes: 6_000 }])).toBe(true);
  });

  it('is measured again, exactly, when only the bound is over the limit: the bound alone never refuses', () => {
    expect(boundsPass(job, ['Parcels'], [overBound])).toBe(false);
    // Exact measures are final: what checkLimits says of them stands.
    expect(boundsPass(job, ['Parcels'], [measure(10, 330, 10)])).toBe(true);
    expect(() => checkLimits(job, ['Parcels'], [measure(10, 330, 10)])).not.toThrow();
    expect(() => checkLimits(job, ['Parcels'], [measure(10, SHAPEFILE_MAX_BYTES / 16, 10)])).toThrow(/\.shp would be about/);
  });
});

describe('shapefile field count', () => {
  it('allows 255 fields and refuses 256', () => {
    expect(() => checkShapefileFields('C', 255)).not.toThrow();
    expect(() => checkShapefileFields('C', 256)).toThrow("Layer 'C' has 256 fields; a shapefile holds at most 255.");
  });
});

describe('FlatGeobuf geometry check', () => {
  it('refuses null geometries and geometry-less exports', () => {
    expect(() => checkGeometryPresent('C', 'FlatGeobuf', measure(10), true)).not.toThrow();
    expect(() => checkGeometryPresent('C', 'FlatGeobuf', measure(10, 0, 0, 3), true)).toThrow('3 of 10 features have no geometry');
    expect(() => checkGeometryPresent('C', 'FlatGeobuf', measure(10), false)).toThrow(/needs geometry/);
  });
});
