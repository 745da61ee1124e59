import gdal from 'gdal-async';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { post } from '../support/client';
import { relationships } from '../support/gdal-relationships';
import { withApp } from '../support/harness';
import { exportToFile } from '../support/view-service';
import { viewRelatedFixture, ViewRelatedFixture } from '../support/view-related';

/**
 * A service of a layer and a related table, exported to File Geodatabase and GeoPackage: GDAL reads back the
 * relationship between them, a geodatabase relationship class (one-to-many on the key fields) and a GeoPackage
 * Related Tables relation whose mapping table pairs each place with exactly its visits. A view's export relates the
 * view's rows only.
 */
describe('exports keep the relationships between related layers', () => {
  const t = withApp({ users: { owner: 'org_publisher' }, worker: true });
  const { owner } = t.users;
  let f: ViewRelatedFixture;
  let dir: string;

  beforeAll(async () => {
    f = await viewRelatedFixture(t.base, owner, 4);
    dir = mkdtempSync(path.join(tmpdir(), 'export-rel-'));
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a File Geodatabase holds the relationship class, one-to-many from the place to its visits', async () => {
    const file = await exportToFile(t.base, owner, f.source.itemId, 'File Geodatabase', dir);
    const gdb = `${file}/${gdal.fs.readDir(file).find((e) => e.endsWith('.gdb'))}`;
    expect(relationships(gdb)).toEqual([
      expect.objectContaining({ left: 'Places', right: 'Visits', cardinality: 1, leftFields: ['OBJECTID'], rightFields: ['PlaceId'] }),
    ]);
  });

  it("a GeoPackage holds a related tables relation pairing each place with exactly its visits; a view's with its rows only", async () => {
    for (const [itemId, places, visits] of [
      [f.source.itemId, [...f.publicOids, ...f.privateOids].sort((a, b) => a - b), [1, 9]],
      [f.view.itemId, f.publicOids, [1]],
    ] as const) {
      const file = await exportToFile(t.base, owner, itemId, 'GeoPackage', dir);
      const [rel] = relationships(file);
      expect(relationships(file)).toHaveLength(1);
      expect(rel).toMatchObject({ cardinality: 3, leftFields: [expect.any(String)], rightFields: [expect.any(String)] });
      const ds = gdal.open(file);
      const [left, right] = [ds.layers.get(rel.left), ds.layers.get(rel.right)];
      const notes = new Map(right.features.map((x) => [x.fid, x.fields.get('Note') as string]));
      const mapped = ds.executeSQL(`SELECT base_id, related_id FROM "${rel.mapping}" ORDER BY base_id, related_id`);
      const pairs = mapped.features.map((x) => `${x.fields.get('base_id')}:${notes.get(x.fields.get('related_id') as number)}`);
      expect(left.features.count()).toBe(places.length);
      ds.close();
      expect(pairs).toEqual(places.flatMap((oid) => visits.map((g) => `${oid}:note-${oid}-${g}`)));
    }
    await post(t.base, `content/users/${owner.username}/items/${f.view.itemId}/delete`, {}, owner.token);
  });
});
