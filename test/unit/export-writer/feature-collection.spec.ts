import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendLayer,
  COLLECTION_HEAD,
  COLLECTION_TAIL,
  esriSpatialReference,
  JsonSink,
  layerDefinition,
  toEsriGeometry,
} from '../../../src/export/writer/gdal/feature-collection';
import { pointLayer, polygonLayer } from './fixtures';

const ccwSquare = [
  [0, 0],
  [1, 0],
  [1, 1],
  [0, 1],
  [0, 0],
];
const cwSquare = [...ccwSquare].reverse();

describe('toEsriGeometry', () => {
  it('maps points, multipoints and lines', () => {
    expect(toEsriGeometry({ type: 'Point', coordinates: [1, 2] })).toEqual({ x: 1, y: 2 });
    expect(toEsriGeometry({ type: 'MultiPoint', coordinates: [[1, 2]] })).toEqual({ points: [[1, 2]] });
    expect(
      toEsriGeometry({
        type: 'MultiLineString',
        coordinates: [
          [
            [0, 0],
            [1, 1],
          ],
        ],
      }),
    ).toEqual({
      paths: [
        [
          [0, 0],
          [1, 1],
        ],
      ],
    });
    expect(toEsriGeometry(null)).toBeUndefined();
  });

  it('winds exterior rings clockwise and holes counter-clockwise', () => {
    const hole = [
      [0.2, 0.2],
      [0.4, 0.2],
      [0.4, 0.4],
      [0.2, 0.2],
    ]; // counter-clockwise already
    const g = toEsriGeometry({ type: 'MultiPolygon', coordinates: [[ccwSquare, [...hole].reverse()], [cwSquare]] });
    expect(g).toEqual({ rings: [cwSquare, hole, cwSquare] });
  });
});

describe('layer definition and spatial reference', () => {
  it('describes fields the way layer info does', () => {
    const def = layerDefinition(pointLayer(), true, { wkid: 4326 });
    expect(def).toMatchObject({ name: 'Cities', type: 'Feature Layer', geometryType: 'esriGeometryPoint', objectIdField: 'OBJECTID' });
    expect(def.fields.map((f) => `${f.name}:${f.type}`)).toEqual([
      'OBJECTID:esriFieldTypeOID',
      'Name:esriFieldTypeString',
      'Pop:esriFieldTypeInteger',
      'Founded:esriFieldTypeDate',
    ]);
    expect(layerDefinition(pointLayer(), false, { wkid: 4326 })).not.toHaveProperty('geometryType');
  });

  it('uses the target wkid or WKT, else the layer srid', () => {
    expect(esriSpatialReference(null, pointLayer())).toEqual({ wkid: 4326 });
    expect(esriSpatialReference({ srs: 'EPSG:3857', wkid: 3857 }, pointLayer())).toEqual({ wkid: 3857 });
    expect(esriSpatialReference({ srs: 'PROJCS[]' }, pointLayer())).toEqual({ wkt: 'PROJCS[]' });
  });
});

describe('appendLayer', () => {
  it('streams GDAL GeoJSON lines into a feature collection', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fc-'));
    try {
      // The layout GDAL's GeoJSON writer produces: one feature per line, comma-terminated except the last.
      await writeFile(
        join(dir, 'in.geojson'),
        [
          '{',
          '"type": "FeatureCollection",',
          '"features": [',
          `{ "type": "Feature", "properties": { "Label": "a,\\n}" }, "geometry": { "type": "MultiPolygon", "coordinates": [ [ ${JSON.stringify(ccwSquare)} ] ] } },`,
          '{ "type": "Feature", "properties": { "Label": null }, "geometry": null }',
          ']',
          '}',
        ].join('\n'),
      );
      const sink = new JsonSink(join(dir, 'out.json'));
      await sink.write(COLLECTION_HEAD);
      const n = await appendLayer(sink, join(dir, 'in.geojson'), polygonLayer(), { first: true, withGeometry: true, sr: { wkid: 4326 } });
      await sink.write(COLLECTION_TAIL);
      await sink.close();
      expect(n).toBe(2);
      const doc = JSON.parse(await readFile(join(dir, 'out.json'), 'utf8'));
      expect(doc.layers[0].featureSet).toEqual({
        geometryType: 'esriGeometryPolygon',
        spatialReference: { wkid: 4326 },
        features: [{ attributes: { Label: 'a,\n}' }, geometry: { rings: [cwSquare] } }, { attributes: { Label: null } }],
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
