import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { withApp } from '../support/harness';
import { requireQgis, runQgisScript } from '../support/qgis';
import { exportToFile } from '../support/view-service';
import { viewRelatedFixture, ViewRelatedFixture } from '../support/view-related';

/* eslint-disable @typescript-eslint/no-explicit-any -- the script's JSON */

/**
 * QGIS (Debian's python3-qgis 3.22) opens a layer with attachments from the service through its Browser, and the
 * service's GeoPackage export with the layer, its related table and its attachment table, related in a project on
 * the service's keys: each place gets exactly its visits and its attachment's bytes. QGIS 3.22 opens no ArcGIS table
 * from a service (QGIS 3.32 does), hence the export for the table. A view's layer and export show its rows only.
 */
describe('QGIS opens a layer with attachments and its related table', () => {
  const t = withApp({ users: { owner: 'org_publisher' }, worker: true });
  const { owner } = t.users;
  let f: ViewRelatedFixture;
  let home: string;

  beforeAll(async () => {
    requireQgis();
    f = await viewRelatedFixture(t.base, owner, 4);
    home = mkdtempSync(path.join(tmpdir(), 'qgis-home-'));
  }, 60_000);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  async function open(service: { url: string; itemId: string }, layer: string, table: string): Promise<any> {
    const gpkg = await exportToFile(t.base, owner, service.itemId, 'GeoPackage', home, {
      exportParameters: JSON.stringify({ includeAttachments: true }),
    });
    const name = /services\/([^/]+)\/FeatureServer/.exec(service.url)![1];
    return runQgisScript('open_related.py', [`${t.root}/arcgis/rest/services`, owner.token, name, layer, gpkg, table], home);
  }

  it('opens the layer with attachments from the service, and relates the export’s table and attachments to it', async () => {
    const all = [...f.publicOids, ...f.privateOids].sort((a, b) => a - b);
    const r = await open(f.source, 'Places', 'Visits');
    expect(r.listed).toEqual(['Places']);
    expect(r.service).toEqual({
      valid: true,
      count: 4,
      spatial: true,
      fields: ['OBJECTID', 'GlobalID', 'Name', 'Kind', 'Secret'],
      names: ['place-0', 'place-1', 'place-2', 'place-3'],
    });
    expect(r.export).toMatchObject({
      layer: { valid: true, count: 4, spatial: true },
      table: { valid: true, count: 8, spatial: false },
      attachments: { valid: true, count: 4, spatial: false },
    });
    expect(r.relations.valid).toEqual([true, true]);
    expect(r.relations.related).toEqual(
      Object.fromEntries(
        all.map((oid, i) => [
          `place-${i}`,
          { visits: [`note-${oid}-1`, `note-${oid}-9`], attachments: [`photo-${oid}.txt:${`file-${oid}`.length}:file-${oid}`] },
        ]),
      ),
    );
  }, 150_000);

  it("opens a view's layer and export with the view's rows and fields only", async () => {
    const r = await open(f.view, 'Public places', 'Low visits');
    expect(r.listed).toEqual(['Public places']);
    expect(r.service).toMatchObject({ valid: true, count: 2, fields: ['OBJECTID', 'GlobalID', 'Name'], names: ['place-0', 'place-2'] });
    // The view's attachments only: those of its two places.
    expect(r.export).toMatchObject({ layer: { count: 2 }, table: { count: 4 }, attachments: { count: 2 } });
    expect(r.relations.related).toEqual(
      Object.fromEntries(
        f.publicOids.map((oid, i) => [
          `place-${i * 2}`,
          { visits: [`note-${oid}-1`], attachments: [`photo-${oid}.txt:${`file-${oid}`.length}:file-${oid}`] },
        ]),
      ),
    );
    expect(JSON.stringify(r)).not.toMatch(/secret-|inspector-|private|-9"/);
  }, 150_000);
});
