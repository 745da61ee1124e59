import { gridParts, gridPoint } from '../../src/feature-server/pbf/grid';
import { pbfGeometry } from '../../src/feature-server/pbf/pbf-features';

/** Points as PostGIS writes them on the grid (ST_AsGeoJSON with no decimals), empty, signed, huge, with a third ordinate. */
const POINTS = [
  '{"type":"Point","coordinates":[12,-7]}',
  '{"type":"Point","coordinates":[0,-0]}',
  '{"type":"Point","coordinates":[-2048,4096]}',
  '{"type":"Point","coordinates":[1e+21,-3e+25]}',
  '{"type":"Point","coordinates":[5,6,7]}',
  '{"type":"Point","coordinates":[]}',
];

describe('grid points read without JSON.parse', () => {
  it.each(POINTS)('%s', (text) => {
    const c = (JSON.parse(text) as { coordinates: number[] }).coordinates;
    const parsed = c.length < 2 ? undefined : [c[0], c[1]];
    expect(gridPoint(text)).toEqual(parsed);
    expect(gridParts('esriGeometryPoint', text)).toEqual(parsed && [[parsed]]);
    expect(pbfGeometry('esriGeometryPoint', text)).toEqual(parsed && { lengths: [], coords: parsed });
    if (parsed) expect(Object.is(gridPoint(text)![1], parsed[1])).toBe(true);
  });

  it('has no geometry for a null shape, and leaves other types to JSON.parse', () => {
    expect(pbfGeometry('esriGeometryPoint', null)).toBeUndefined();
    expect(pbfGeometry('esriGeometryMultipoint', '{"type":"MultiPoint","coordinates":[[1,2],[4,6]]}')).toEqual({
      lengths: [2],
      coords: [1, 2, 3, 4],
    });
  });
});
