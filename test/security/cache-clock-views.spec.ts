import * as http from 'node:http';
import { createHostedService, post, uniq } from '../support/client';
import { withApp } from '../support/harness';

/** A plain GET: fetch marks any request with If-None-Match as Cache-Control: no-cache, which forbids a 304. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; etag?: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag, body }));
      })
      .on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A public view whose viewDefinitionQuery reads the clock (an embargo lifted, an event that ends) shows other rows as
 * time passes with no edit of its source: a cache revalidating its copy must not be told by a 304 that rows the view
 * has stopped showing are still current. Its replies carry no validator, as a request's own clock clause does.
 */
describe('shared cache: views whose filter reads the clock', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  let url: string;

  beforeAll(async () => {
    const sourceName = uniq('clksrc');
    await createHostedService(
      t.base,
      owner,
      [
        {
          id: 0,
          name: 'Events',
          geometryType: 'esriGeometryPoint',
          fields: [
            { name: 'Name', type: 'esriFieldTypeString', length: 40 },
            { name: 'Ends', type: 'esriFieldTypeDate' },
          ],
          extent: { spatialReference: { wkid: 4326 } },
        },
      ],
      { name: sourceName, capabilities: 'Query,Create,Update,Delete,Editing' },
    );
    const source = `${t.base.replace(/\/sharing\/rest$/, '')}/arcgis/rest/services/${sourceName}/FeatureServer/0`;
    const created = await post(
      t.base,
      `content/users/${owner.username}/createService`,
      { createParameters: JSON.stringify({ name: uniq('clkview') }), outputType: 'featureService', isView: 'true' },
      owner.token,
    );
    const admin = created.body.serviceurl.replace('/rest/services/', '/rest/admin/services/');
    const def = await post(
      admin,
      'addToDefinition',
      {
        addToDefinition: JSON.stringify({
          layers: [
            {
              name: 'Current events',
              viewDefinitionQuery: 'Ends > CURRENT_TIMESTAMP',
              adminLayerInfo: {
                viewLayerDefinition: { sourceServiceName: sourceName, sourceLayerId: 0, sourceLayerFields: [{ name: 'Name' }] },
              },
            },
          ],
        }),
      },
      owner.token,
    );
    expect(def.body).toMatchObject({ success: true });
    const ends = Date.now() + 4000;
    const added = await post(
      source,
      'addFeatures',
      { features: JSON.stringify([{ attributes: { Name: 'soon-over', Ends: ends }, geometry: { x: 10, y: 50 } }]) },
      owner.token,
    );
    expect(added.body.addResults).toEqual([expect.objectContaining({ success: true })]);
    const shared = await post(
      t.base,
      `content/users/${owner.username}/items/${created.body.itemId}/share`,
      { everyone: 'true' },
      owner.token,
    );
    expect(shared.body.error).toBeUndefined();
    url = `${created.body.serviceurl}/0/query?f=json&where=1%3D1&outFields=Name`;
  }, 60_000);

  it('an ended row is not revalidated as current (no 304 for a view that reads the clock)', async () => {
    const first = await rawGet(url);
    expect(first.status).toBe(200);
    expect(first.body).toContain('soon-over');
    await sleep(4500);
    // The reply changed with no edit: a revalidation with the first reply's validator gets the new reply, without the row.
    const again = await rawGet(url, first.etag ? { 'If-None-Match': first.etag } : {});
    expect(again.status).toBe(200);
    expect(again.body).not.toContain('soon-over');
    expect(JSON.parse(again.body).features).toEqual([]);
  }, 30_000);
});
