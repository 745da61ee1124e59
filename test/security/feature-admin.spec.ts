import { get, post } from '../support/client';
import { createRelatedService } from '../support/related-service';
import { withApp } from '../support/harness';

/**
 * The admin definition operations change a service only for its owner or an administrator, and refuse everyone else
 * before anything is written; the feature resource and related records are read under the service's sharing, as
 * queries are, so neither reaches a row the caller could not query.
 */
describe('feature service administration and related records', () => {
  const t = withApp({ users: { pub: 'org_publisher', reader: 'org_user', publisher2: 'org_publisher' } });
  const { pub, reader, publisher2 } = t.users;

  const newService = () => createRelatedService(t.base, pub);

  const definition = async (itemId: string) =>
    (await t.db.query(
      `SELECT s.capabilities, s.max_record_count, l.name, l.fields, l.relationships FROM feature_services s
       JOIN feature_layers l ON l.service_item_id = s.item_id WHERE s.item_id = $1 ORDER BY l.layer_id`,
      [itemId],
    )) as unknown[];
  const columns = async (itemId: string) =>
    (
      await t.db.query(`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 ORDER BY 1, 2`, [
        `svc_${itemId}`,
      ])
    ).map((r: { table_name: string; column_name: string }) => `${r.table_name}.${r.column_name}`);

  /** Every admin operation a non-owner might try, each meant to change something visible. */
  const attempts = (admin: string): [string, string, Record<string, string>][] => [
    [
      admin,
      'updateDefinition',
      { updateDefinition: JSON.stringify({ capabilities: 'Query,Create,Update,Delete,Editing', maxRecordCount: 1 }) },
    ],
    [`${admin}/0`, 'updateDefinition', { updateDefinition: JSON.stringify({ name: 'Owned', fields: [{ name: 'Name', alias: 'x' }] }) }],
    [`${admin}/0`, 'addToDefinition', { addToDefinition: JSON.stringify({ fields: [{ name: 'Extra', type: 'esriFieldTypeString' }] }) }],
    [`${admin}/1`, 'deleteFromDefinition', { deleteFromDefinition: JSON.stringify({ fields: [{ name: 'Note' }] }) }],
    [`${admin}/1`, 'deleteFromDefinition', { deleteFromDefinition: JSON.stringify({ relationships: [{ id: 0 }] }) }],
    [admin, 'deleteFromDefinition', { deleteFromDefinition: JSON.stringify({ tables: [{ id: 1 }] }) }],
  ];

  it('refuses every definition change to a user who can read the service but does not own it, and changes nothing', async () => {
    const s = await newService();
    await post(t.base, `content/users/${pub.username}/items/${s.itemId}/share`, { org: 'true' }, pub.token);
    const before = [await definition(s.itemId), await columns(s.itemId)];
    for (const who of [reader, publisher2]) {
      for (const [url, op, params] of attempts(s.admin)) {
        const r = await post(url, op, params, who.token);
        expect({ op, url, error: r.body.error }).toMatchObject({ op, url, error: { code: 403, messageCode: 'GWM_0003' } });
      }
      expect((await get(s.admin, '', {}, who.token)).body.error).toMatchObject({ code: 403 });
    }
    for (const [url, op, params] of attempts(s.admin)) expect((await post(url, op, params)).body.error).toMatchObject({ code: 499 });
    expect([await definition(s.itemId), await columns(s.itemId)]).toEqual(before);
  });

  it('answers a private service as missing to other users, on the admin routes too', async () => {
    const s = await newService();
    const hidden = { code: 400, message: 'Service does not exist or is inaccessible.' };
    for (const [url, op, params] of attempts(s.admin)) expect((await post(url, op, params, reader.token)).body.error).toMatchObject(hidden);
    expect((await get(s.url, '0/1', {}, reader.token)).body.error).toMatchObject(hidden);
    expect((await get(s.url, '0/queryRelatedRecords', { relationshipId: '0', objectIds: '1' }, reader.token)).body.error).toMatchObject(
      hidden,
    );
    expect((await get(s.url, '0/queryRelatedRecords', { relationshipId: '0', objectIds: '1' })).body.error).toMatchObject({ code: 499 });
  });

  it('serves related records and features only while the service is shared, from the next request on', async () => {
    const s = await newService();
    const share = (org: boolean) => post(t.base, `content/users/${pub.username}/items/${s.itemId}/share`, { org: String(org) }, pub.token);
    await share(true);
    const related = () => get(s.url, '0/queryRelatedRecords', { relationshipId: '0', objectIds: '1', outFields: 'Note' }, reader.token);
    expect((await related()).body.relatedRecordGroups).toEqual([{ objectId: 1, relatedRecords: [{ attributes: { Note: 'n' } }] }]);
    expect((await get(s.url, '1/1', {}, reader.token)).body.feature.attributes.Note).toBe('n');
    await share(false);
    expect((await related()).body.error).toMatchObject({ message: 'Service does not exist or is inaccessible.' });
    expect((await get(s.url, '1/1', {}, reader.token)).body.error).toMatchObject({ message: 'Service does not exist or is inaccessible.' });
  });

  it('keeps hostile text in definitionExpression, orderByFields and outFields away from SQL', async () => {
    const s = await newService();
    const q = (params: Record<string, string>) =>
      get(s.url, '0/queryRelatedRecords', { relationshipId: '0', objectIds: '1', ...params }, pub.token);
    const hostile: Record<string, string>[] = [
      { definitionExpression: '1=1; DROP TABLE feature_layers; --' },
      { definitionExpression: "Note = '' OR pg_sleep(5) IS NULL" },
      { orderByFields: 'Note; DROP TABLE items' },
      { orderByFields: '(SELECT 1)' },
      { outFields: 'Note, (SELECT password FROM users)' },
      { outFields: '"#src"' },
    ];
    for (const params of hostile) {
      const r = await q(params);
      expect({ params, error: r.body.error }).toMatchObject({ params, error: { code: 400 } });
    }
    expect((await definition(s.itemId)).length).toBe(2);
  });

  it('refuses hostile field and layer names in definition changes before any DDL runs', async () => {
    const s = await newService();
    const before = await columns(s.itemId);
    for (const name of ['x"; DROP TABLE items; --', 'shape', 'OBJECTID', 'a'.repeat(64), '#src']) {
      const r = await post(
        `${s.admin}/0`,
        'addToDefinition',
        { addToDefinition: JSON.stringify({ fields: [{ name, type: 'esriFieldTypeInteger' }] }) },
        pub.token,
      );
      expect({ name, error: r.body.error }).toMatchObject({ name, error: { code: 400 } });
    }
    const rename = await post(
      `${s.admin}/0`,
      'updateDefinition',
      { updateDefinition: JSON.stringify({ fields: [{ name: 'name"--', alias: 'x' }] }) },
      pub.token,
    );
    expect(rename.body.error).toMatchObject({ code: 400 });
    expect(await columns(s.itemId)).toEqual(before);
  });
});
