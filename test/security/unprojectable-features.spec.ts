import { createHostedService, post } from '../support/client';
import { withApp } from '../support/harness';

/**
 * An editor can store a point that PROJ cannot carry into another spatial reference (a longitude of 1e300 in WGS 84,
 * which addFeatures takes as ArcGIS JSON numbers). A web map asks every layer for outSR=102100: the layer's reads in
 * that reference then meet PostGIS's "transform:" error. They answer the ArcGIS envelope saying so, never a 500.
 */
describe('features PROJ cannot project', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  let layer: string;

  beforeAll(async () => {
    const s = await createHostedService(t.base, owner, [
      { id: 0, name: 'Far', geometryType: 'esriGeometryPoint', fields: [], extent: { spatialReference: { wkid: 4326 } } },
    ]);
    layer = `${s.serviceurl}/0`;
    const features = [
      { attributes: {}, geometry: { x: 10, y: 50 } },
      { attributes: {}, geometry: { x: 1e300, y: 1e300 } },
    ];
    const added = await post(layer, 'addFeatures', { features: JSON.stringify(features) }, owner.token);
    expect(added.body.addResults).toHaveLength(2);
  }, 60_000);

  it.each([
    ['f=json&outSR=102100'],
    ['f=pbf&outSR=102100'],
    ['f=json&outSR=102100&resultOffset=1&resultRecordCount=1'],
    ['f=json&outSR=3857&returnExtentOnly=true'],
  ])('%s answers a 400 envelope', async (q) => {
    const res = await fetch(`${layer}/query?where=1%3D1&outFields=*&${q}&token=${owner.token}`);
    const body = (await res.json()) as { error: { code: number; details: string[] } };
    expect(body.error).toMatchObject({ code: 400 });
    expect(body.error.details.join(' ')).toMatch(/spatial reference/);
  });

  it('the layer stays readable in its own spatial reference', async () => {
    const res = await fetch(`${layer}/query?where=1%3D1&outFields=*&f=json&token=${owner.token}`);
    expect(((await res.json()) as { features: unknown[] }).features).toHaveLength(2);
  });
});
