import { addItem, get, post, uniq } from '../support/client';
import { withApp } from '../support/harness';
import { lockWaiters } from '../support/wait-for';

/** The API half of export: validation before queueing, the reply, the result item and job row. No worker runs here. */
describe('export operation (API side)', () => {
  const t = withApp({ users: { pub: 'org_publisher', other: 'org_publisher' } });
  const { pub, other } = t.users;
  let service: { itemId: string; name: string };

  beforeAll(async () => {
    const name = uniq('exp');
    const created = (
      await post(
        t.base,
        `content/users/${pub.username}/createService`,
        { createParameters: JSON.stringify({ name }), outputType: 'featureService' },
        pub.token,
      )
    ).body;
    const adminUrl = created.serviceurl.replace('/rest/services/', '/rest/admin/services/');
    await post(
      adminUrl,
      'addToDefinition',
      {
        addToDefinition: JSON.stringify({
          layers: [{ name: 'Pts', geometryType: 'esriGeometryPoint', fields: [{ name: 'Name', type: 'esriFieldTypeString' }] }],
          tables: [{ name: 'Rows', fields: [{ name: 'N', type: 'esriFieldTypeInteger' }] }],
        }),
      },
      pub.token,
    );
    service = { itemId: created.itemId, name };
  });

  const exportItem = (params: Record<string, string>, token = pub.token, user = pub.username) =>
    post(t.base, `content/users/${user}/export`, { itemId: service.itemId, exportFormat: 'Shapefile', ...params }, token);
  const jobCount = async () =>
    (await t.db.query(`SELECT count(*)::int AS n FROM jobs WHERE source_item_id = $1`, [service.itemId]))[0].n as number;

  it('answers at once with the ArcGIS reply and records a processing item and a queued job', async () => {
    const r = await exportItem({
      exportFormat: 'csv',
      title: 'My CSV',
      exportParameters: JSON.stringify({
        layers: [{ id: 0, where: "Name <> 'x'", xColumnName: 'lon', yColumnName: 'lat' }],
        targetSR: { wkid: 3857 },
      }),
    });
    expect(r.body).toEqual({
      type: 'CSV',
      size: 0,
      jobId: expect.stringMatching(/^[0-9a-f]{32}$/),
      exportItemId: expect.stringMatching(/^[0-9a-f]{32}$/),
      serviceItemId: service.itemId,
      exportFormat: 'CSV',
    });
    const item = (await get(t.base, `content/items/${r.body.exportItemId}`, {}, pub.token)).body;
    expect(item).toMatchObject({ title: 'My CSV', type: 'CSV', owner: pub.username, access: 'private' });
    const [job] = await t.db.query(`SELECT status, params FROM jobs WHERE id = $1`, [r.body.jobId]);
    expect(job.status).toBe('queued');
    expect(job.params).toMatchObject({
      format: 'csv',
      layers: [{ id: 0, includeGeometry: true, xColumnName: 'lon', yColumnName: 'lat' }],
      targetSR: { srid: 3857 },
    });
    const status = await post(
      t.base,
      `content/users/${pub.username}/items/${r.body.exportItemId}/status`,
      { jobId: r.body.jobId, jobType: 'export' },
      pub.token,
    );
    // No worker runs in this suite, and the status says so (test/e2e/ops.spec.ts covers the heartbeat).
    expect(status.body).toEqual({
      status: 'processing',
      statusMessage: 'Waiting for a worker: none is running.',
      itemId: r.body.exportItemId,
    });
    expect((await get(t.base, `content/items/${r.body.exportItemId}/data`, {}, pub.token)).body.error).toMatchObject({
      code: 400,
      message: 'Item data is not available.',
    });
  });

  it('matches formats case-insensitively, exports every layer when layers is omitted, and titles readably', async () => {
    for (const [format, type] of [
      ['shapefile', 'Shapefile'],
      ['FILE GEODATABASE', 'File Geodatabase'],
      ['geoPackage', 'GeoPackage'],
      ['excel', 'Microsoft Excel'],
      ['Feature Collection', 'Feature Collection'],
      ['GeoJson', 'GeoJson'],
      ['kml', 'KML'],
      ['FlatGeobuf', 'FlatGeobuf'],
      ['SQLite', 'SQLite Geodatabase'],
    ]) {
      const r = await exportItem({ exportFormat: format });
      expect(r.body.type).toBe(type);
    }
    const r = await exportItem({ exportParameters: JSON.stringify({ layers: [] }) });
    const [job] = await t.db.query(`SELECT params FROM jobs WHERE id = $1`, [r.body.jobId]);
    expect(job.params.layers.map((l: { id: number }) => l.id)).toEqual([0, 1]);
    expect((await get(t.base, `content/items/${r.body.exportItemId}`, {}, pub.token)).body.title).toBe(
      `${service.name} (Shapefile export)`,
    );
  });

  it.each([
    [{ exportFormat: 'Scene Package' }, "Export format 'Scene Package' cannot be produced by this service."],
    [{ exportFormat: 'Vector Tile Package' }, 'cannot be produced'],
    [{ exportFormat: 'dwg' }, "Invalid export format 'dwg'."],
    [{ exportParameters: '{"layers":[{"id":0}' }, "'exportParameters' is not valid JSON"],
    [{ exportParameters: '[]' }, "'exportParameters' must be a JSON object."],
    [{ exportParameters: JSON.stringify({ layers: [{ id: 7 }] }) }, 'Layer 7 does not exist in this service.'],
    [{ exportParameters: JSON.stringify({ layers: [{ id: 0, where: 'Nope = 1' }] }) }, "Unknown field 'Nope'"],
    [{ exportParameters: JSON.stringify({ layers: [{ id: 0, where: '1=1; DROP TABLE items' }] }) }, ''],
    [{ exportParameters: JSON.stringify({ layers: [{ id: 0, xColumnName: 'x' }] }) }, 'xColumnName applies only to CSV exports.'],
    [
      { exportFormat: 'CSV', exportParameters: JSON.stringify({ layers: [{ id: 0, xColumnName: 'name' }] }) },
      "Layer 0: xColumnName 'name' clashes with a field of the layer; choose another name.",
    ],
    [
      { exportFormat: 'CSV', exportParameters: JSON.stringify({ layers: [{ id: 0, xColumnName: 'lat', yColumnName: 'LAT' }] }) },
      "Layer 0: xColumnName and yColumnName must differ (both are 'lat').",
    ],
    [{ exportParameters: JSON.stringify({ layers: [{ id: 0, includeGeometry: 'no' }] }) }, 'includeGeometry must be true or false.'],
    [{ exportParameters: JSON.stringify({ layers: [{ id: 0 }], targetSR: { wkid: 999999 } }) }, 'Unknown targetSR wkid 999999.'],
    [
      { exportParameters: JSON.stringify({ layers: [{ id: 0 }], targetSR: { wkt: 'GEOGCS["nonsense"' } }) },
      'targetSR wkt is not a usable spatial reference.',
    ],
    [{ exportParameters: JSON.stringify({ layers: [{ id: 0 }], colour: 'red' }) }, 'Unknown properties'],
    [{ itemId: 'nothex' }, "'itemId' must be the id"],
    [{ exportFormat: '' }, "'exportFormat' is required."],
  ])('refuses %j with a 400 before any job is queued', async (params, detail) => {
    const before = await jobCount();
    const r = await exportItem(params as Record<string, string>);
    expect(r.body.error.code).toBe(400);
    expect([r.body.error.message, ...r.body.error.details].join(' ')).toContain(detail);
    expect(await jobCount()).toBe(before);
  });

  it('accepts targetSR as a wkid string, {latestWkid} and {wkt}', async () => {
    for (const targetSR of [
      '4326',
      { latestWkid: 3857 },
      {
        wkt: 'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]',
      },
    ]) {
      const r = await exportItem({ exportParameters: JSON.stringify({ targetSR }) });
      expect(r.body.jobId).toBeDefined();
    }
  });

  it('exports only hosted feature services, and only for their owner or an administrator', async () => {
    const webmap = await addItem(t.base, pub.username, pub.token);
    expect((await exportItem({ itemId: webmap })).body.error.message).toBe('Only hosted feature services can be exported.');
    expect((await exportItem({ itemId: '0'.repeat(32) })).body.error.messageCode).toBe('CONT_0001');
    // Another user can neither see the private service nor export into someone else's content.
    expect((await exportItem({}, other.token, other.username)).body.error.messageCode).toBe('CONT_0001');
    expect((await exportItem({}, other.token)).body.error.code).toBe(403);
    await post(t.base, `content/users/${pub.username}/items/${service.itemId}/share`, { org: 'true' }, pub.token);
    expect((await exportItem({}, other.token, other.username)).body.error.code).toBe(403);
    const byAdmin = await exportItem({}, t.admin);
    expect(byAdmin.body.serviceItemId).toBe(service.itemId);
    expect((await get(t.base, `content/items/${byAdmin.body.exportItemId}`, {}, t.admin)).body.owner).toBe(pub.username);
  });

  it('cancels the job when its processing item is deleted', async () => {
    const r = await exportItem({});
    const del = await post(t.base, `content/users/${pub.username}/items/${r.body.exportItemId}/delete`, {}, pub.token);
    expect(del.body.success).toBe(true);
    const [job] = await t.db.query(`SELECT status, status_message FROM jobs WHERE id = $1`, [r.body.jobId]);
    expect(job).toEqual({ status: 'cancelled', status_message: 'Cancelled: the item was deleted.' });
  });

  it("a delete refused because the item was protected meanwhile cancels none of the item's jobs", async () => {
    const r = await exportItem({});
    const deletion = `content/users/${pub.username}/items/${service.itemId}/delete`;
    // A protect that commits while the delete is under way: the delete read the item unprotected, then meets its row.
    const hold = t.db.createQueryRunner();
    await hold.connect();
    let refused: Promise<{ body: { error?: unknown } }> | undefined;
    try {
      await hold.startTransaction();
      await hold.query('UPDATE items SET protected = true WHERE id = $1', [service.itemId]);
      refused = post(t.base, deletion, {}, pub.token);
      await lockWaiters(t.db, 1);
      await hold.commitTransaction();
    } finally {
      if (hold.isTransactionActive) await hold.rollbackTransaction();
      await hold.release();
    }
    expect((await refused!).body.error).toMatchObject({
      code: 400,
      message: `Unable to delete item ${service.itemId}. Delete protection is turned on.`,
    });
    const [job] = await t.db.query('SELECT status FROM jobs WHERE id = $1', [r.body.jobId]);
    expect(job.status).toBe('queued');
    const [item] = await t.db.query('SELECT status FROM items WHERE id = $1', [r.body.exportItemId]);
    expect(item.status).toBe('processing');
    await post(t.base, `content/users/${pub.username}/items/${service.itemId}/unprotect`, {}, pub.token);
  });

  it('keeps Bull Board for organisation administrators', async () => {
    const path = `${t.root}/admin/queues`;
    expect((await fetch(path)).status).toBe(401);
    expect((await fetch(`${path}?token=${pub.token}`)).status).toBe(403);
    const ok = await fetch(`${path}?token=${t.admin}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('set-cookie')).toContain('HttpOnly');
    const api = await fetch(`${path}/api/queues`, { headers: { Authorization: `Bearer ${t.admin}` } });
    const body = (await api.json()) as { queues: { name: string }[] };
    expect(body.queues.map((q) => q.name).sort()).toEqual(['export', 'publish', 'webhooks']);
  });
});
