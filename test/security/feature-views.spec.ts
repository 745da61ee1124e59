import gdal from 'gdal-async';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { get, post } from '../support/client';
import { withApp } from '../support/harness';
import { exportToFile, viewFixture, ViewFixture } from '../support/view-service';

/**
 * A reader of a hosted feature layer view gets its rows and fields and nothing else, whatever the request names: the
 * source's hidden fields (Kind, which the filter reads, Secret and Salary) answer exactly as fields that do not exist,
 * so they cannot be told apart, let alone read; the rows the filter leaves out (odd Visits, Kind 'private') are never
 * counted, ordered, summed or returned. Each case fails if the view leaks through the route it tries.
 */
describe('a view hides the fields and rows its definition leaves out', () => {
  const t = withApp({ users: { owner: 'org_publisher', reader: 'org_user' }, worker: true });
  const { owner, reader } = t.users;
  let f: ViewFixture;
  let layer: string;
  let dir: string;
  /** Object ids of the rows the view leaves out. */
  let filteredOut: number[];

  beforeAll(async () => {
    f = await viewFixture(t.base, owner, 20, undefined, 'Query,Update,Delete,Editing');
    layer = `${f.view.url}/0`;
    await post(t.base, `content/users/${owner.username}/items/${f.view.itemId}/share`, { org: 'true' }, owner.token);
    const odd = await get(`${f.source.url}/0`, 'query', { where: "Kind = 'private'", returnIdsOnly: 'true' }, owner.token);
    filteredOut = odd.body.objectIds;
    expect(filteredOut).toHaveLength(10);
    dir = mkdtempSync(path.join(tmpdir(), 'view-sec-'));
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const query = (params: Record<string, string>, token = reader.token) => get(layer, 'query', { where: '1=1', ...params }, token);

  /** The reply naming `hidden`, with the name swapped for a field that does not exist of the same length: identical. */
  async function answersAsMissing(params: (field: string) => Record<string, string>, hidden: string) {
    const missing = 'Q'.repeat(hidden.length);
    const a = await query(params(hidden));
    const b = await query(params(missing));
    expect(a.body.error).toBeDefined();
    expect(a.status).toBe(b.status);
    expect(a.text).toBe(b.text.split(missing).join(hidden));
  }

  it.each(['Kind', 'Secret', 'Salary'])('a where clause naming %s answers as for a field that does not exist', async (hidden) => {
    await answersAsMissing((x) => ({ where: `${x} IS NOT NULL` }), hidden);
  });

  it.each(['Kind', 'Secret', 'Salary'])(
    'orderByFields, outFields and returnDistinctValues naming %s answer as for no field',
    async (hidden) => {
      await answersAsMissing((x) => ({ orderByFields: `${x} DESC` }), hidden);
      await answersAsMissing((x) => ({ outFields: `Name,${x}` }), hidden);
      await answersAsMissing((x) => ({ outFields: x, returnDistinctValues: 'true', returnGeometry: 'false' }), hidden);
    },
  );

  it.each(['Kind', 'Secret', 'Salary'])('outStatistics and groupByFieldsForStatistics naming %s answer as for no field', async (hidden) => {
    const stat = (x: string) => JSON.stringify([{ statisticType: 'max', onStatisticField: x, outStatisticFieldName: 'm' }]);
    await answersAsMissing((x) => ({ outStatistics: stat(x) }), hidden);
    await answersAsMissing((x) => ({ outStatistics: stat('Visits'), groupByFieldsForStatistics: x }), hidden);
  });

  it('statistics, counts, distinct values and extents cover the view rows only', async () => {
    const stats = JSON.stringify([
      { statisticType: 'count', onStatisticField: 'Visits', outStatisticFieldName: 'n' },
      { statisticType: 'sum', onStatisticField: 'Visits', outStatisticFieldName: 's' },
      { statisticType: 'max', onStatisticField: 'Visits', outStatisticFieldName: 'm' },
    ]);
    expect((await query({ outStatistics: stats })).body.features[0].attributes).toEqual({ n: 10, s: 90, m: 18 });
    expect((await query({ returnCountOnly: 'true' })).body).toEqual({ count: 10 });
    expect((await query({ where: 'Visits = 1', returnCountOnly: 'true' })).body).toEqual({ count: 0 });
    const distinct = await query({ outFields: 'Name', returnDistinctValues: 'true', returnGeometry: 'false', orderByFields: 'Name' });
    expect(distinct.body.features.map((x: { attributes: { Name: string } }) => x.attributes.Name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `place-${i * 2}`).sort(),
    );
    const extent = await query({ returnExtentOnly: 'true' });
    expect(extent.body.extent.xmax).toBeCloseTo(11.8, 6);
  });

  it('outFields=* and objectIds of filtered-out rows return nothing hidden', async () => {
    const all = await query({ outFields: '*', returnGeometry: 'false' });
    for (const x of all.body.features) expect(Object.keys(x.attributes).sort()).toEqual(['Name', 'OBJECTID', 'Visits']);
    expect(all.body.fields.map((x: { name: string }) => x.name)).toEqual(['OBJECTID', 'Name', 'Visits']);
    const byIds = await query({ objectIds: filteredOut.join(','), outFields: '*' });
    expect(byIds.body.features).toEqual([]);
    expect(all.text).not.toMatch(/secret-|private|Salary|"Kind"/);
  });

  it('f=pbf and f=geojson carry no hidden field or row', async () => {
    for (const format of ['pbf', 'geojson']) {
      const res = await fetch(`${layer}/query?${new URLSearchParams({ f: format, where: '1=1', outFields: '*', token: reader.token })}`);
      const text = Buffer.from(await res.arrayBuffer()).toString('latin1');
      expect(text).toContain('place-0');
      expect(text).not.toMatch(/secret-|private|Salary|Kind|place-1\b/);
    }
  });

  it("edits cannot write a hidden field or reach a row outside the view's filter", async () => {
    const [inside] = (await query({ where: 'Visits = 2', returnIdsOnly: 'true' }, owner.token)).body.objectIds;
    const hidden = await post(
      layer,
      'updateFeatures',
      { features: JSON.stringify([{ attributes: { OBJECTID: inside, Secret: 'x' } }]) },
      owner.token,
    );
    const missing = await post(
      layer,
      'updateFeatures',
      { features: JSON.stringify([{ attributes: { OBJECTID: inside, Qqqqqq: 'x' } }]) },
      owner.token,
    );
    expect(hidden.text).toBe(missing.text.split('Qqqqqq').join('Secret'));
    const outside = await post(
      layer,
      'updateFeatures',
      { features: JSON.stringify([{ attributes: { OBJECTID: filteredOut[0], Name: 'taken' } }]), rollbackOnFailure: 'false' },
      owner.token,
    );
    expect(outside.body.updateResults[0]).toMatchObject({ success: false, error: { code: 1019 } });
    const deleted = await post(layer, 'deleteFeatures', { objectIds: filteredOut.join(','), rollbackOnFailure: 'false' }, owner.token);
    expect(deleted.body.deleteResults.every((r: { success: boolean }) => !r.success)).toBe(true);
    const source = await get(
      `${f.source.url}/0`,
      'query',
      { where: "Kind = 'private' AND Name <> 'taken'", returnCountOnly: 'true' },
      owner.token,
    );
    expect(source.body).toEqual({ count: 10 });
  });

  it('an export of the view holds no hidden field or row, and its where cannot name one', async () => {
    const file = await exportToFile(t.base, owner, f.view.itemId, 'CSV', dir);
    const csv = file.startsWith('/vsizip/') ? `${file}/${gdal.fs.readDir(file).find((e) => e.endsWith('.csv'))}` : file;
    const ds = gdal.open(csv);
    const exported = ds.layers.get(0);
    const text = [exported.fields.getNames().join(), ...exported.features.map((x) => JSON.stringify(x.fields.toObject()))].join('\n');
    ds.close();
    expect(text).toContain('place-0');
    expect(text).not.toMatch(/secret-|private|Salary|Kind|place-1\b/);
    const exportWhere = (where: string) =>
      post(
        t.base,
        `content/users/${owner.username}/export`,
        { itemId: f.view.itemId, exportFormat: 'CSV', exportParameters: JSON.stringify({ layers: [{ id: 0, where }] }) },
        owner.token,
      );
    const refused = await exportWhere("Secret LIKE 'secret-1%'");
    const missing = await exportWhere("Qqqqqq LIKE 'secret-1%'");
    expect(refused.text).toBe(missing.text.split('Qqqqqq').join('Secret'));
  });
});
