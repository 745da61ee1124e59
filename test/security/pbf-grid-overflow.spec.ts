import { decodeFeatureCollection } from '../../src/feature-server/pbf/feature-collection';
import { withApp } from '../support/harness';
import { sampleService, SampleService } from '../support/sample-service';

/**
 * quantizationParameters are the caller's: a tolerance that fine puts the sample's longitudes on the grid but its
 * latitudes (about 50°) past the largest double, which PostGIS writes as Infinity. Any anonymous viewer of a public
 * layer can send that; the reply is the layer's features (those with no finite place on the grid without geometry),
 * never the 500 of an unexpected error.
 */
describe('quantized replies whose grid overflows', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  let s: SampleService;

  beforeAll(async () => {
    s = await sampleService(t.base, owner, 'public');
  }, 60_000);

  const quantization = JSON.stringify({
    mode: 'view',
    originPosition: 'upperLeft',
    tolerance: 2e-307,
    extent: { xmin: 0, ymin: 0, xmax: 1e-296, ymax: 1e-296 },
  });

  it.each([
    [0, 'pbf'],
    [0, 'json'],
    [1, 'pbf'],
    [1, 'json'],
    [2, 'pbf'],
    [2, 'json'],
  ])('layer %s, f=%s: the features, without a geometry the grid cannot hold', async (layer, f) => {
    const qs = new URLSearchParams({ f, where: '1=1', outFields: 'Name', quantizationParameters: quantization });
    const res = await fetch(`${s.url}/${layer}/query?${qs}`);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (f === 'pbf') {
      expect(res.headers.get('content-type')).toMatch(/protobuf/);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the decoded message is untyped
      const result = (decodeFeatureCollection(new Uint8Array(bytes)) as any).queryResult.featureResult;
      expect(result.features.length).toBeGreaterThan(0);
      for (const feature of result.features) expect(feature.geometry ?? null).toBeNull();
      return;
    }
    const body = JSON.parse(bytes.toString('utf8'));
    expect(body.error).toBeUndefined();
    expect(body.features.length).toBeGreaterThan(0);
    for (const feature of body.features) expect(feature.geometry ?? null).toBeNull();
  });
});
