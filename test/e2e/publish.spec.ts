import { get, post } from '../support/client';
import { withApp } from '../support/harness';

/** Bulk publish through the API: upload a file item, publish it, follow the job, query the result. */
describe('publish', () => {
  const t = withApp({ users: { pub: 'org_publisher' }, worker: true });
  const { pub } = t.users;
  // Both jest projects (integration and s3) run this file against one database, and service names are unique in the org.
  const svc = (name: string) => `${name}_${process.env.TEST_STORAGE ?? 'local'}`;

  async function upload(type: string, name: string, body: string, mime: string): Promise<string> {
    const form = new FormData();
    for (const [k, v] of Object.entries({ title: name, type, f: 'json', token: pub.token })) form.set(k, v);
    form.set('file', new Blob([body], { type: mime }), name);
    const r = (await (await fetch(`${t.base}/content/users/${pub.username}/addItem`, { method: 'POST', body: form })).json()) as {
      id: string;
    };
    expect(r.id).toBeDefined();
    return r.id;
  }

  async function publishAndWait(itemId: string, filetype: string, publishParameters: object) {
    const r = await post(
      t.base,
      `content/users/${pub.username}/publish`,
      { itemId, filetype, publishParameters: JSON.stringify(publishParameters) },
      pub.token,
    );
    expect(r.body.error).toBeUndefined();
    expect(r.body.services).toHaveLength(1);
    const s = r.body.services[0];
    expect(s).toMatchObject({ type: 'Feature Service', size: -1, jobId: expect.any(String), serviceItemId: expect.any(String) });
    const until = Date.now() + 60000;
    for (;;) {
      const st = (
        await post(
          t.base,
          `content/users/${pub.username}/items/${s.serviceItemId}/status`,
          { jobId: s.jobId, jobType: 'publish' },
          pub.token,
        )
      ).body;
      if (st.status === 'completed') break;
      if (st.status === 'failed' || Date.now() > until) throw new Error(`publish ${st.status}: ${st.statusMessage}`);
      await new Promise((res) => setTimeout(res, 200));
    }
    return s as { serviceurl: string; serviceItemId: string; jobId: string };
  }

  it('publishes a GeoJSON file as a queryable point layer', async () => {
    const features = Array.from({ length: 25 }, (_, i) => ({
      type: 'Feature',
      properties: { name: `p${i}`, value: i * 1.5, count: i },
      geometry: { type: 'Point', coordinates: [i, i / 2] },
    }));
    const id = await upload('GeoJson', 'points.geojson', JSON.stringify({ type: 'FeatureCollection', features }), 'application/geo+json');
    const s = await publishAndWait(id, 'geojson', { name: svc('published_points') });
    const info = (await get(s.serviceurl, '', {}, pub.token)).body;
    expect(info.layers).toEqual([expect.objectContaining({ id: 0, geometryType: 'esriGeometryPoint' })]);
    const q = (
      await get(`${s.serviceurl}/0`, 'query', { where: 'count >= 20', outFields: 'name,count', orderByFields: 'count' }, pub.token)
    ).body;
    expect(q.features.map((f: { attributes: { name: string } }) => f.attributes.name)).toEqual(['p20', 'p21', 'p22', 'p23', 'p24']);
    expect(q.features[0].geometry).toEqual({ x: 20, y: 10 });
    const item = (await get(t.base, `content/items/${s.serviceItemId}`, {}, pub.token)).body;
    expect(item).toMatchObject({ type: 'Feature Service', url: s.serviceurl });
  });

  it('publishes a CSV with named coordinate columns', async () => {
    const rows = ['site,easting,northing,level', ...Array.from({ length: 12 }, (_, i) => `S${i},${10 + i},${50 + i / 10},${i}`)].join('\n');
    const id = await upload('CSV', 'sites.csv', rows, 'text/csv');
    const s = await publishAndWait(id, 'CSV', {
      name: svc('published_sites'),
      longitudeFieldName: 'easting',
      latitudeFieldName: 'northing',
    });
    const q = (await get(`${s.serviceurl}/0`, 'query', { where: "site = 'S3'", outFields: '*' }, pub.token)).body;
    expect(q.features).toHaveLength(1);
    expect(q.features[0].geometry.x).toBeCloseTo(13, 6);
    expect(q.features[0].geometry.y).toBeCloseTo(50.3, 6);
  });

  it('refuses what it cannot publish, before any job', async () => {
    const json = (await post(t.base, `content/users/${pub.username}/addItem`, { title: 'map', type: 'Web Map', text: '{}' }, pub.token))
      .body.id;
    const r = await post(
      t.base,
      `content/users/${pub.username}/publish`,
      { itemId: json, filetype: 'geojson', publishParameters: JSON.stringify({ name: svc('nope_1') }) },
      pub.token,
    );
    expect(r.body.error.message).toBe('The item cannot be published as this file type.');
    const bad = await post(
      t.base,
      `content/users/${pub.username}/publish`,
      { itemId: json, filetype: 'dwg', publishParameters: '{}' },
      pub.token,
    );
    expect(bad.body.error.message).toContain("Unsupported filetype 'dwg'");
  });

  it('fails the job with a readable message for a broken file, leaving the service item failed', async () => {
    const id = await upload('GeoJson', 'broken.geojson', '{"type": "FeatureCollection", "features": [', 'application/geo+json');
    const r = await post(
      t.base,
      `content/users/${pub.username}/publish`,
      { itemId: id, filetype: 'geojson', publishParameters: JSON.stringify({ name: svc('broken_one') }) },
      pub.token,
    );
    expect(r.body.error).toBeUndefined();
    const s = r.body.services[0];
    const until = Date.now() + 30000;
    let st: { status: string; statusMessage: string };
    do {
      await new Promise((res) => setTimeout(res, 200));
      st = (
        await post(
          t.base,
          `content/users/${pub.username}/items/${s.serviceItemId}/status`,
          { jobId: s.jobId, jobType: 'publish' },
          pub.token,
        )
      ).body;
    } while (st.status === 'processing' && Date.now() < until);
    expect(st.status).toBe('failed');
    expect(st.statusMessage.length).toBeGreaterThan(10);
    expect((await post(t.base, `content/users/${pub.username}/items/${s.serviceItemId}/status`, {}, pub.token)).body.status).toBe('failed');
  });
});
