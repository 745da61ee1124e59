import { INestApplicationContext } from '@nestjs/common';
import gdal from 'gdal-async';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startApp, TestApp } from '../support/app';
import { adminToken, createHostedService, createUser, get, post, read } from '../support/client';
import { startWorker } from '../support/worker';
import { relationships } from '../support/gdal-relationships';

/**
 * Exports that carry attachments (`exportParameters.includeAttachments`), read back with GDAL and unzipped: the
 * GeoPackage's `<layer>__ATTACH` table and the zip's `attachments/` folder hold exactly the exported features' files.
 */
describe('exports with attachments', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let owner: { username: string; token: string };
  let itemId: string;
  let dir: string;
  const files: { oid: number; id: number; name: string; bytes: Buffer; kind: string }[] = [];

  beforeAll(async () => {
    t = await startApp();
    worker = await startWorker(t.config);
    dir = mkdtempSync(path.join(tmpdir(), 'export-attach-'));
    owner = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    const s = await createHostedService(t.base, owner, [
      {
        id: 0,
        name: 'Sites',
        geometryType: 'esriGeometryPoint',
        hasAttachments: true,
        fields: [
          { name: 'GlobalID', type: 'esriFieldTypeGlobalID' },
          { name: 'Kind', type: 'esriFieldTypeString', length: 20 },
        ],
      },
    ]);
    itemId = s.itemId;
    const layer = `${s.serviceurl}/0`;
    for (const kind of ['kept', 'kept', 'filtered']) {
      const oid = (
        await post(
          layer,
          'addFeatures',
          { features: JSON.stringify([{ attributes: { Kind: kind }, geometry: { x: 1, y: 1 } }]) },
          owner.token,
        )
      ).body.addResults[0].objectId;
      for (const name of ['photo.jpg', '=sum, notes.txt']) {
        const bytes = randomBytes(50_000 + files.length);
        const form = new FormData();
        form.set('f', 'json');
        form.set('token', owner.token);
        form.set('attachment', new Blob([bytes]), name);
        const r = await read(await fetch(`${layer}/${oid}/addAttachment`, { method: 'POST', body: form }));
        files.push({ oid, id: r.body.addAttachmentResult.objectId, name, bytes, kind });
      }
    }
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function runExport(exportFormat: string): Promise<string> {
    const exportParameters = JSON.stringify({ layers: [{ id: 0, where: "Kind = 'kept'" }], includeAttachments: true });
    const r = await post(t.base, `content/users/${owner.username}/export`, { itemId, exportFormat, exportParameters }, owner.token);
    expect(r.body.exportItemId).toBeTruthy();
    const until = Date.now() + 60_000;
    for (;;) {
      const s = await get(
        t.base,
        `content/users/${owner.username}/items/${r.body.exportItemId}/status`,
        { jobId: r.body.jobId, jobType: 'export' },
        owner.token,
      );
      if (s.body.status === 'completed') break;
      if (s.body.status === 'failed' || Date.now() > until) throw new Error(`export ${exportFormat}: ${s.text}`);
      await new Promise((res) => setTimeout(res, 200));
    }
    const res = await fetch(`${t.base}/content/items/${r.body.exportItemId}/data?token=${owner.token}`);
    const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')![1];
    const file = path.join(dir, `${r.body.exportItemId}-${name}`);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    return file;
  }

  const kept = () => files.filter((f) => f.kind === 'kept');

  it.each([
    ['GeoPackage', (f: string) => f],
    ['File Geodatabase', (f: string) => `/vsizip/${f}/${gdal.fs.readDir(`/vsizip/${f}`).find((e) => e.endsWith('.gdb'))}`],
  ])('writes a %s whose Sites__ATTACH table GDAL lists, with the bytes of the exported features only', async (format, open) => {
    const file = await runExport(format);
    const ds = gdal.open(open(file));
    const names = ds.layers.map((l) => l.name);
    expect(names).toEqual(expect.arrayContaining(['Sites', 'Sites__ATTACH']));
    const table = ds.layers.get('Sites__ATTACH');
    const rows = table.features.map((f) => ({
      id: f.fid,
      oid: f.fields.get('REL_OBJECTID') as number,
      name: f.fields.get('ATT_NAME') as string,
      size: f.fields.get('DATA_SIZE') as number,
      type: f.fields.get('CONTENT_TYPE') as string,
      data: f.fields.get('DATA') as unknown as Buffer,
      parent: f.fields.get('REL_GLOBALID') as string,
    }));
    expect(rows.map((r) => r.id).sort()).toEqual(
      kept()
        .map((f) => f.id)
        .sort(),
    );
    for (const r of rows) {
      const want = files.find((f) => f.id === r.id)!;
      expect(r).toMatchObject({ oid: want.oid, name: want.name, size: want.bytes.length });
      expect(Buffer.from(r.data).equals(want.bytes)).toBe(true);
      expect(r.parent).toMatch(/^\{[0-9A-F-]{36}\}$/);
    }
    expect(rows.find((r) => r.name === 'photo.jpg')!.type).toBe('image/jpeg');
    if (format === 'GeoPackage') {
      // The Related Tables Extension's media relation, which GDAL and QGIS read as the layer's relationship.
      const rel = ds.executeSQL('SELECT base_table_name, related_table_name, relation_name, mapping_table_name FROM gpkgext_relations');
      expect(rel.features.first().fields.toObject()).toEqual({
        base_table_name: 'Sites',
        related_table_name: 'Sites__ATTACH',
        relation_name: 'media',
        mapping_table_name: 'Sites__ATTACHREL',
      });
    } else {
      // ArcGIS's attachments: a composite relationship class to a `media` table, as ArcGIS itself writes it.
      expect(relationships(open(file))).toEqual([
        expect.objectContaining({
          name: 'Sites__ATTACHREL',
          left: 'Sites',
          right: 'Sites__ATTACH',
          cardinality: 1,
          type: 0,
          relatedType: 'media',
          leftFields: ['OBJECTID'],
          rightFields: ['REL_OBJECTID'],
        }),
      ]);
    }
    ds.close();
  });

  it.each(['CSV', 'GeoJson', 'Excel'])('zips the %s export with attachments/<layer>/<oid>/ and an index CSV', async (format) => {
    const out = mkdtempSync(path.join(dir, 'unzipped-'));
    execFileSync('unzip', ['-q', await runExport(format), '-d', out]);
    const entry = (f: (typeof files)[number]) => `attachments/Sites/${f.oid}/${f.id}-${f.name.replace(/[=,]/g, '_')}`;
    const attached = readdirSync(path.join(out, 'attachments', 'Sites'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.relative(out, path.join(e.parentPath, e.name)));
    expect(attached.sort()).toEqual(kept().map(entry).sort());
    for (const f of kept()) expect(readFileSync(path.join(out, entry(f))).equals(f.bytes)).toBe(true);
    const index = readFileSync(path.join(out, 'attachments', 'index.csv'), 'utf8')
      .trim()
      .split('\r\n');
    expect(index[0]).toBe('layer,objectId,attachmentId,globalId,parentGlobalId,name,contentType,size,path');
    expect(index).toHaveLength(kept().length + 1);
    // Quoted, and not a formula to a spreadsheet.
    expect(index.some((l) => l.includes(`"'=sum, notes.txt"`))).toBe(true);
    // The layer itself is still there, beside its attachments.
    expect(readdirSync(out).filter((n) => n !== 'attachments')).toHaveLength(1);
  });

  it('refuses includeAttachments on a Feature Collection export', async () => {
    const r = await post(
      t.base,
      `content/users/${owner.username}/export`,
      { itemId, exportFormat: 'Feature Collection', exportParameters: JSON.stringify({ includeAttachments: true }) },
      owner.token,
    );
    expect(r.body.error.details[0]).toMatch(/includeAttachments/);
  });
});
