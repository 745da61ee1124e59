/**
 * Every operation that reads a JSON parameter reads it through param-values, keeping the error its clients have
 * always been answered with: each site's refusals are pinned here, code, message and details (applyEdits' lists,
 * parsed on the geometry threads, in the features suite).
 */
import { ArcgisError } from '../../src/core/errors/arcgis-error';
import { InvalidInputError } from '../../src/core/errors/invalid-input';
import { parseTargetSR } from '../../src/export/export-parameters';
import { LayerRow } from '../../src/layers/types';
import { envelopeParam, idList, srParam, srRequest } from '../../src/feature-server/query-params';
import { aggregateRequest } from '../../src/feature-server/query/statistics';

const QUERY = 'Cannot perform query. Invalid query parameters.';

function thrown(f: () => unknown): { code?: number; message: string; details: string[] } {
  try {
    f();
  } catch (e) {
    if (e instanceof ArcgisError) return { code: e.code, message: e.message, details: e.details };
    if (e instanceof InvalidInputError) return { message: e.summary, details: e.details };
    throw e;
  }
  throw new Error('expected a throw');
}

const query = (detail: string) => ({ code: 400, message: QUERY, details: [detail] });

describe('query geometry (an envelope)', () => {
  const env = (geometry: string, more: object = {}) => envelopeParam({ geometry, ...more }, 4326);

  it('reads the comma form and the JSON form, its spatial reference or inSR', () => {
    expect(env(' 1,2,3,4 ')).toEqual({ xmin: 1, ymin: 2, xmax: 3, ymax: 4, srid: 4326 });
    expect(env('{"xmin":1,"ymin":2,"xmax":3,"ymax":4,"spatialReference":{"wkid":102100}}')).toEqual({
      xmin: 1,
      ymin: 2,
      xmax: 3,
      ymax: 4,
      srid: 3857,
    });
    expect(env('{"xmin":1,"ymin":2,"xmax":3,"ymax":4}', { inSR: '3857' })?.srid).toBe(3857);
    expect(envelopeParam({ geometry: ' ' }, 4326)).toBeUndefined();
  });

  it.each([
    ['{"xmin":1', "'geometry' is neither 'xmin,ymin,xmax,ymax' nor an envelope JSON object."],
    ['1,2,3', "'geometry' is neither 'xmin,ymin,xmax,ymax' nor an envelope JSON object."],
    ['[1,2,3,4]', "'geometry' must be an envelope object or 'xmin,ymin,xmax,ymax'."],
    ['null', "'geometry' must be an envelope object or 'xmin,ymin,xmax,ymax'."],
    ['{"xmin":1,"ymin":2,"xmax":3}', "'geometry' envelope needs finite xmin, ymin, xmax, ymax."],
    [
      '{"xmin":1,"ymin":2,"xmax":3,"ymax":4,"spatialReference":{"wkt":"x"}}',
      "'geometry.spatialReference' as WKT is not supported; give a wkid.",
    ],
  ])('refuses %s', (geometry, detail) => {
    expect(thrown(() => env(geometry))).toEqual(query(detail));
  });
});

describe('objectIds', () => {
  it('reads a comma list and a JSON array', () => {
    expect(idList('objectIds', ' 1, 2 ,3')).toEqual([1, 2, 3]);
    expect(idList('objectIds', '[1,"2"]')).toEqual([1, 2]);
    expect(idList('objectIds', ' ')).toBeUndefined();
  });

  it.each(['[1,', '[{', '["\\u0000"]'])('refuses %s as a list', (raw) => {
    expect(thrown(() => idList('objectIds', raw))).toEqual(query("'objectIds' is not a list of object ids."));
  });

  it('names an entry that is not an object id', () => {
    expect(thrown(() => idList('objectIds', '[1,2.5]'))).toEqual(query("'objectIds' holds '2.5', which is not an object id."));
  });
});

describe('spatial references (inSR, outSR)', () => {
  it('reads a wkid, {wkid} and {latestWkid}, keeping the wkid asked for', () => {
    expect(srParam('outSR', '4326')).toBe(4326);
    expect(srParam('outSR', '{"wkid":102100,"latestWkid":3857}')).toBe(3857);
    expect(srRequest('outSR', '102100')).toEqual({ srid: 3857, wkid: 102100 });
    expect(srRequest('outSR', '{"wkid":102100}')).toEqual({ srid: 3857, wkid: 102100 });
    expect(srRequest('outSR', '{"latestWkid":3857}')).toEqual({ srid: 3857, wkid: 3857 });
  });

  it.each(['{"wkid":', '[4326]', '"4326"', '{"wkid":-1}', '{"wkid":4326.5}', 'EPSG:4326'])('refuses %s', (raw) => {
    expect(thrown(() => srParam('outSR', raw))).toEqual(query('\'outSR\' must be a wkid or {"wkid": n}.'));
  });

  it('says WKT is not supported', () => {
    expect(thrown(() => srParam('inSR', '{"wkt":"GEOGCS[]"}'))).toEqual(query("'inSR' as WKT is not supported; give a wkid."));
  });
});

describe('outStatistics', () => {
  const layer = {
    object_id_field: 'OBJECTID',
    fields: [{ name: 'Pop', column: 'pop', type: 'esriFieldTypeInteger', alias: 'Pop', nullable: true, editable: true }],
  } as unknown as LayerRow;
  const stats = (outStatistics: string) => aggregateRequest(layer, { outStatistics } as never, []);
  const ARRAY = "'outStatistics' must be a non-empty array of {statisticType, onStatisticField, outStatisticFieldName}.";

  it('reads an array of statistics', () => {
    const r = stats('[{"statisticType":"sum","onStatisticField":"Pop","outStatisticFieldName":"total"}]');
    expect(r.columns.map((c) => c.name)).toEqual(['total']);
  });

  it.each([
    ['[{', "'outStatistics' is not valid JSON: give an array of {statisticType, onStatisticField, outStatisticFieldName}."],
    ['{"statisticType":"count"}', ARRAY],
    ['[]', ARRAY],
    ['"x"', ARRAY],
  ])('refuses %s', (raw, detail) => {
    expect(thrown(() => stats(raw))).toEqual(query(detail));
  });
});

describe('export targetSR', () => {
  const SHAPE = '\'targetSR\' must be a wkid, {"wkid": n}, {"latestWkid": n} or {"wkt": "..."}.';

  it('reads a wkid, its text, JSON text and the stored form', () => {
    expect(parseTargetSR(3857)).toEqual({ srid: 3857 });
    expect(parseTargetSR(' 102100 ')).toEqual({ srid: 3857 });
    expect(parseTargetSR('{"latestWkid":3857}')).toEqual({ srid: 3857 });
    expect(parseTargetSR('"4326"')).toEqual({ srid: 4326 });
    expect(parseTargetSR('{"wkt":"GEOGCS[]"}')).toEqual({ wkt: 'GEOGCS[]' });
    expect(parseTargetSR({ srid: 3857 })).toEqual({ srid: 3857 });
    expect(parseTargetSR('null')).toBeUndefined();
  });

  it.each(['{"wkid":', 'EPSG:3857', ' ', '[3857]', '"abc"', '{"wkid":-3}', 'true'])('refuses %j', (raw) => {
    expect(thrown(() => parseTargetSR(raw))).toEqual({ message: 'Invalid export parameters.', details: [SHAPE] });
  });
});
