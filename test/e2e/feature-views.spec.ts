import gdal from 'gdal-async';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SqlParams } from '../../src/core/database/sql-params';
import { dataVersionSql } from '../../src/layers/data-version';
import { addUsers, createGroup, get, post } from '../support/client';
import { withApp } from '../support/harness';
import { exportToFile, viewFixture, ViewFixture } from '../support/view-service';

/**
 * Hosted feature layer views: a view is an item of its own, shared independently of its private source, and an export
 * of a view holds its rows and fields only, whichever engine writes it (COPY for CSV and GeoJSON, GDAL for GeoPackage,
 * the parallel parts for Shapefile).
 */
describe('hosted feature layer views', () => {
  const t = withApp({ users: { owner: 'org_publisher', member: 'org_user', other: 'org_user' }, worker: true });
  const { owner, member, other } = t.users;
  let f: ViewFixture;
  let dir: string;

  beforeAll(async () => {
    // 40 rows at x 10.0 to 13.9; the view's area keeps x <= 12.95: the public rows 0, 2, ..., 28 (15 of them).
    f = await viewFixture(t.base, owner, 40, { xmin: 9, ymin: 49, xmax: 12.95, ymax: 51 });
    dir = mkdtempSync(path.join(tmpdir(), 'views-'));
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const count = (url: string, token?: string) => get(`${url}/0`, 'query', { where: '1=1', returnCountOnly: 'true' }, token);

  describe('sharing', () => {
    it('a group member reads the view shared with the group, never its private source', async () => {
      const group = await createGroup(t.base, owner.token);
      await addUsers(t.base, owner.token, group, [member.username]);
      expect((await count(f.view.url, member.token)).body.error.message).toBe('Service does not exist or is inaccessible.');
      const shared = await post(t.base, `content/users/${owner.username}/items/${f.view.itemId}/share`, { groups: group }, owner.token);
      expect(shared.body.notSharedWith).toEqual([]);
      expect((await count(f.view.url, member.token)).body).toEqual({ count: 15 });
      expect((await count(f.source.url, member.token)).body.error.message).toBe('Service does not exist or is inaccessible.');
      expect((await count(f.view.url, other.token)).body.error.message).toBe('Service does not exist or is inaccessible.');
      await post(t.base, `content/users/${owner.username}/items/${f.view.itemId}/unshare`, { groups: group }, owner.token);
      expect((await count(f.view.url, member.token)).body.error.message).toBe('Service does not exist or is inaccessible.');
    });

    it('a view shared with everyone answers anonymous callers while the source asks for a token', async () => {
      await post(t.base, `content/users/${owner.username}/items/${f.view.itemId}/share`, { everyone: 'true', org: 'true' }, owner.token);
      expect((await count(f.view.url)).body).toEqual({ count: 15 });
      expect((await count(f.source.url)).body.error.code).toBe(499);
      await post(t.base, `content/users/${owner.username}/items/${f.view.itemId}/share`, { everyone: 'false', org: 'false' }, owner.token);
      expect((await count(f.view.url)).body.error.code).toBe(499);
    });

    it("sharing the source gives no one the view, and the view's layer JSON says it is one", async () => {
      await post(t.base, `content/users/${owner.username}/items/${f.source.itemId}/share`, { org: 'true' }, owner.token);
      expect((await count(f.source.url, other.token)).body).toEqual({ count: 40 });
      expect((await count(f.view.url, other.token)).body.error.message).toBe('Service does not exist or is inaccessible.');
      const layer = (await get(`${f.view.url}/0`, '', {}, owner.token)).body;
      expect(layer).toMatchObject({ isView: true, sourceSchemaChangesAllowed: true });
      expect(layer.fields.map((x: { name: string }) => x.name)).toEqual(['OBJECTID', 'Name', 'Visits']);
      // The extent is the view's: its rows reach x = 12.8.
      expect(layer.extent.xmax).toBeCloseTo(12.8, 5);
    });
  });

  it("pages of a view resume on its source table's data version, which every edit of the source moves", async () => {
    const version = async (itemId: string) => {
      const p = new SqlParams();
      return (await t.db.query(dataVersionSql(`svc_${itemId}`, 'l0', p), p.values))[0].v as string | null;
    };
    const before = await version(f.source.itemId);
    expect(before).not.toBeNull();
    expect(await version(f.view.itemId)).toBe(before);
    const features = JSON.stringify([{ attributes: { Name: 'late', Kind: 'private' }, geometry: { x: 20, y: 50 } }]);
    expect((await post(`${f.source.url}/0`, 'addFeatures', { features }, owner.token)).body.addResults[0].success).toBe(true);
    expect(await version(f.view.itemId)).toBe(String(Number(before) + 1));
  });

  describe('exports read back with GDAL', () => {
    /** The first layer's field names and its Visits values, as GDAL reads the file (inside the zip, if zipped). */
    function read(gdalPath: string) {
      const entry = gdalPath.startsWith('/vsizip/')
        ? `${gdalPath}/${gdal.fs.readDir(gdalPath).find((e) => /\.(shp|csv|geojson|gpkg|gdb)$/i.test(e))}`
        : gdalPath;
      const ds = gdal.open(entry);
      try {
        const layer = ds.layers.get(0);
        const names = layer.fields.getNames().map((n) => n.toLowerCase());
        const visits = layer.features.map((feature) =>
          Number(feature.fields.get(layer.fields.getNames().find((n) => /^visits$/i.test(n))!)),
        );
        return { names, visits };
      } finally {
        ds.close();
      }
    }
    const PUBLIC_IN_AREA = Array.from({ length: 15 }, (_, i) => i * 2);

    it.each(['CSV', 'GeoJson', 'GeoPackage', 'Shapefile', 'File Geodatabase'])('%s holds the view rows and fields only', async (format) => {
      const { names, visits } = read(await exportToFile(t.base, owner, f.view.itemId, format, dir));
      expect(names).toEqual(expect.arrayContaining(['name', 'visits']));
      // Only the view's fields, and what the format adds (its feature id, CSV's x and y).
      expect(names.filter((n) => !['objectid', 'name', 'visits', 'x', 'y', 'fid'].includes(n))).toEqual([]);
      expect([...visits].sort((a, b) => a - b)).toEqual(PUBLIC_IN_AREA);
    });

    it('a where clause of the export narrows the view further, and cannot name a hidden field', async () => {
      const layers = (where: string) => ({ exportParameters: JSON.stringify({ layers: [{ id: 0, where }] }) });
      const { visits } = read(await exportToFile(t.base, owner, f.view.itemId, 'CSV', dir, layers('Visits < 10')));
      expect([...visits].sort((a, b) => a - b)).toEqual([0, 2, 4, 6, 8]);
      const refused = await post(
        t.base,
        `content/users/${owner.username}/export`,
        { itemId: f.view.itemId, exportFormat: 'CSV', ...layers("Secret = 'secret-1'") },
        owner.token,
      );
      expect(refused.body.error.code).toBe(400);
      expect(JSON.stringify(refused.body)).not.toContain('secret-1');
    });
  });

  it("a source field a view reads cannot be dropped, and a view layer's fields are not changed through the admin", async () => {
    const admin = (url: string) => url.replace('/rest/services/', '/rest/admin/services/');
    const dropVisits = await post(
      `${admin(f.source.url)}/0`,
      'deleteFromDefinition',
      { deleteFromDefinition: JSON.stringify({ fields: [{ name: 'Visits' }] }) },
      owner.token,
    );
    expect(dropVisits.body.error).toMatchObject({ code: 400, message: 'Unable to update feature service layer definition.' });
    expect(dropVisits.body.error.details[0]).toContain('Views read this field');
    const fields = (await get(`${f.source.url}/0`, '', {}, owner.token)).body.fields.map((x: { name: string }) => x.name);
    expect(fields).toContain('Visits');
    const onView = await post(
      `${admin(f.view.url)}/0`,
      'addToDefinition',
      { addToDefinition: JSON.stringify({ fields: [{ name: 'Extra', type: 'esriFieldTypeInteger' }] }) },
      owner.token,
    );
    expect(onView.body.error).toMatchObject({ code: 400, message: 'Unable to update feature service layer definition.' });
    expect((await count(f.view.url, owner.token)).body.count).toBe(15);
  });

  it("deleteFromDefinition drops a view's layer, and then its source layer may go", async () => {
    const admin = (url: string) => url.replace('/rest/services/', '/rest/admin/services/');
    const drop = (url: string) => post(admin(url), 'deleteFromDefinition', { deleteFromDefinition: '{"layers":[{"id":0}]}' }, owner.token);
    expect((await drop(f.source.url)).body.error.message).toBe('Unable to update feature service layer definition.');
    expect((await drop(f.view.url)).body).toEqual({ success: true });
    expect((await t.db.query(`SELECT to_regclass($1) AS r`, [`svc_${f.view.itemId}.l0`]))[0].r).toBeNull();
    expect((await count(f.view.url, owner.token)).body.error.message).toBe('Layer does not exist.');
    expect((await drop(f.source.url)).body).toEqual({ success: true });
  });
});
