import { get, post, uniq } from '../support/client';
import { withApp } from '../support/harness';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Attribute domains on hosted layers: defined with addToDefinition, kept and shown as given, named with
 * returnDomainNames and listed by queryDomains; edits store values outside them as ArcGIS does; bad domains and bad
 * export options are refused with a 400 before anything is written.
 */
describe('attribute domains', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;

  const STATUS = {
    type: 'codedValue',
    name: 'Status',
    description: 'Inspection status',
    codedValues: [
      { name: 'Open', code: 1 },
      { name: 'Closed', code: 2 },
    ],
    splitPolicy: 'esriSPTDuplicate',
    mergePolicy: 'esriMPTDefaultValue',
  };
  const GRADE = { type: 'range', name: 'Grade', range: [0, 10] };
  const KIND = { type: 'codedValue', name: 'Kind', codedValues: [{ name: 'Tree', code: 'T' }] };

  let url: string;
  let admin: string;

  /** A new service; returns its URL and its admin URL. */
  async function service(): Promise<{ url: string; admin: string }> {
    const created = await post(
      t.base,
      `content/users/${owner.username}/createService`,
      { createParameters: JSON.stringify({ name: uniq('dom') }), outputType: 'featureService' },
      owner.token,
    );
    const u = created.body.serviceurl as string;
    return { url: u, admin: u.replace('/rest/services/', '/rest/admin/services/') };
  }

  const define = (adminUrl: string, layers: object[]) =>
    post(adminUrl, 'addToDefinition', { addToDefinition: JSON.stringify({ layers }) }, owner.token);

  const layer = (fields: object[], name = 'Trees') => ({ name, geometryType: 'esriGeometryPoint', fields });

  beforeAll(async () => {
    ({ url, admin } = await service());
    const r = await define(admin, [
      layer([
        { name: 'Status', type: 'esriFieldTypeSmallInteger', domain: STATUS },
        { name: 'Grade', type: 'esriFieldTypeDouble', domain: GRADE },
        { name: 'Kind', type: 'esriFieldTypeString', length: 1, domain: KIND },
        { name: 'Note', type: 'esriFieldTypeString' },
      ]),
      // A second layer sharing one domain: one name, one definition.
      layer([{ name: 'State', type: 'esriFieldTypeInteger', domain: STATUS }], 'Stumps'),
    ]);
    expect(r.body).toEqual({
      success: true,
      layers: [
        { id: 0, name: 'Trees' },
        { id: 1, name: 'Stumps' },
      ],
    });
  });

  const json = async (path: string, params: Record<string, string> = {}) => {
    const r = await get(url, path, params, owner.token);
    expect(r.body?.error).toBeUndefined();
    return r.body;
  };
  const domainOf = (fields: any[], name: string) => fields.find((f) => f.name === name).domain;

  it('returns each domain in the layer JSON, the layers resource and query replies exactly as given', async () => {
    const info = await json('0');
    expect(domainOf(info.fields, 'Status')).toEqual(STATUS);
    expect(Object.keys(domainOf(info.fields, 'Status')).sort()).toEqual(Object.keys(STATUS).sort());
    expect(domainOf(info.fields, 'Grade')).toEqual(GRADE);
    expect(domainOf(info.fields, 'Kind')).toEqual(KIND);
    expect(domainOf(info.fields, 'Note')).toBeNull();
    expect(domainOf(info.fields, 'OBJECTID')).toBeNull();
    const all = await json('layers');
    expect(domainOf(all.layers[1].fields, 'State')).toEqual(STATUS);
    const page = await json('0/query', { where: '1=1', outFields: '*' });
    expect(domainOf(page.fields, 'Status')).toEqual(STATUS);
  });

  it('names the domains only with returnDomainNames=true, and queryDomains gives each once', async () => {
    const named = await json('0', { returnDomainNames: 'true' });
    expect(domainOf(named.fields, 'Status')).toEqual({ type: 'codedValue', name: 'Status' });
    expect(domainOf(named.fields, 'Grade')).toEqual({ type: 'range', name: 'Grade' });
    expect(domainOf(named.fields, 'Note')).toBeNull();
    const all = await json('layers', { returnDomainNames: 'true' });
    expect(domainOf(all.layers[1].fields, 'State')).toEqual({ type: 'codedValue', name: 'Status' });
    expect((await json('')).supportsQueryDomains).toBe(true);
    // As ArcGIS lists them: with the type of the (first) field using each.
    const listed = [
      { ...STATUS, fieldType: 'esriFieldTypeSmallInteger' },
      { ...GRADE, fieldType: 'esriFieldTypeDouble' },
      { ...KIND, fieldType: 'esriFieldTypeString' },
    ];
    expect((await json('queryDomains', { layers: '[0,1]' })).domains).toEqual(listed);
    expect((await json('queryDomains', { layers: '[1]' })).domains).toEqual([{ ...STATUS, fieldType: 'esriFieldTypeInteger' }]);
    expect((await json('queryDomains')).domains).toEqual(listed);
  });

  it.each([
    [{ returnDomainNames: 'yes' }, '0', "'returnDomainNames' must be true or false."],
    [{ layers: '[0,"x"]' }, 'queryDomains', "'layers' must be an array of layer ids"],
    [{ layers: '[7]' }, 'queryDomains', 'Layer does not exist.'],
  ])('refuses %j on %s with a 400', async (params, path, text) => {
    const r = await get(url, path, params, owner.token);
    expect(r.body.error.code).toBe(400);
    expect([r.body.error.message, ...(r.body.error.details ?? [])].join(' ')).toContain(text);
  });

  it('stores codes, and values outside a coded-value or range domain, as ArcGIS hosted layers do', async () => {
    const features = [
      { attributes: { Status: 1, Grade: 5, Kind: 'T' }, geometry: { x: 1, y: 1 } },
      { attributes: { Status: 7, Grade: 99.5, Kind: 'Z' }, geometry: { x: 2, y: 2 } },
    ];
    const added = await post(url, '0/addFeatures', { features: JSON.stringify(features) }, owner.token);
    expect(added.body.addResults.map((r: any) => r.success)).toEqual([true, true]);
    const [first, second] = added.body.addResults.map((r: any) => r.objectId);
    const edited = await post(
      url,
      '0/applyEdits',
      { updates: JSON.stringify([{ attributes: { OBJECTID: first, Status: -3, Grade: -1 } }]) },
      owner.token,
    );
    expect(edited.body.updateResults).toEqual([{ objectId: first, globalId: null, success: true }]);
    const page = await json('0/query', { objectIds: `${first},${second}`, outFields: 'Status,Grade,Kind', orderByFields: 'OBJECTID' });
    expect(page.features.map((f: any) => f.attributes)).toEqual([
      { Status: -3, Grade: -1, Kind: 'T' },
      { Status: 7, Grade: 99.5, Kind: 'Z' },
    ]);
    // Still refused as before: values the field cannot hold.
    const refused = await post(url, '0/addFeatures', { features: JSON.stringify([{ attributes: { Status: 'Open' } }]) }, owner.token);
    expect(JSON.stringify(refused.body)).toContain("Field 'Status' needs a whole number");
  });

  const status = (domain: unknown, type = 'esriFieldTypeInteger', extra: object = {}) => [
    layer([{ name: 'Status', type, ...extra, domain }]),
  ];

  it.each([
    [status('Open'), 'domain must be a JSON object.'],
    [status({ ...STATUS, type: 'inherited' }), 'type "inherited" is not supported'],
    [status({ ...STATUS, colour: 'red' }), 'domain has unknown members: colour.'],
    [status({ ...STATUS, name: '' }), "needs a 'name' of 1-255 characters."],
    [status({ ...STATUS, name: 'x'.repeat(256) }), "needs a 'name' of 1-255 characters."],
    [status({ ...STATUS, mergePolicy: 'esriMPTMax' }), "'mergePolicy' must be one of"],
    [status({ ...STATUS, splitPolicy: 7 }), "'splitPolicy' must be one of"],
    [status({ ...STATUS, codedValues: [] }), "'codedValues' must be an array of 1-10000"],
    [status({ ...STATUS, codedValues: { 1: 'Open' } }), "'codedValues' must be an array"],
    [status({ ...STATUS, codedValues: [{ name: 'Open', code: 1.5 }] }), 'codedValues[0].code must fit the field: whole numbers'],
    [status({ ...STATUS, codedValues: [{ name: 'Open', code: '1' }] }), 'codedValues[0].code must fit the field'],
    [status({ ...STATUS, codedValues: [{ name: 'Big', code: 40000 }] }, 'esriFieldTypeSmallInteger'), 'whole numbers -32768 to 32767'],
    [status({ ...STATUS, codedValues: [{ name: 7, code: 1 }] }), 'codedValues[0].name must be text'],
    [status({ ...STATUS, codedValues: [{ name: 'Open', code: 1, label: 'x' }] }), 'codedValues[0] has unknown members: label.'],
    [status({ ...STATUS, codedValues: [null] }), 'codedValues[0] must be {"name": ..., "code": ...}.'],
    [
      status({
        ...STATUS,
        codedValues: [
          { name: 'Open', code: 1 },
          { name: 'Again', code: 1 },
        ],
      }),
      'codedValues[1].code 1 is listed twice.',
    ],
    [
      status({ ...KIND, codedValues: [{ name: 'Long', code: 'TOO' }] }, 'esriFieldTypeString', { length: 2 }),
      'text of at most 2 characters',
    ],
    [status(GRADE, 'esriFieldTypeString'), 'of type "range" needs a numeric or date field.'],
    [status({ ...GRADE, range: [5] }), "'range' must be [min, max] of whole numbers"],
    [status({ ...GRADE, range: [0, 'x'] }), "'range' must be [min, max]"],
    [status({ ...GRADE, range: [10, 0] }), "'range' minimum 10 is above its maximum 0."],
    [status(STATUS, 'esriFieldTypeGlobalID'), 'cannot be set on a esriFieldTypeGlobalID field.'],
    [
      [
        layer([{ name: 'A', type: 'esriFieldTypeInteger', domain: STATUS }]),
        layer([{ name: 'B', type: 'esriFieldTypeInteger', domain: { ...STATUS, codedValues: [{ name: 'x', code: 1 }] } }], 'Other'),
      ],
      "Domain 'Status' of layer 'Other', field 'B' differs from the domain of that name on layer 'Trees', field 'A'",
    ],
  ])('refuses a bad domain (%#) with a 400 and writes nothing', async (layers, detail) => {
    const fresh = await service();
    const r = await define(fresh.admin, layers as object[]);
    expect(r.body.error).toMatchObject({ code: 400, message: 'Invalid layer definition.' });
    expect(r.body.error.details.join(' ')).toContain(detail);
    const info = await get(fresh.url, '', {}, owner.token);
    expect(info.body.layers).toEqual([]);
  });

  it('refuses a domain whose name another layer of the service defines differently', async () => {
    const r = await define(admin, [
      layer([{ name: 'S', type: 'esriFieldTypeInteger', domain: { ...STATUS, description: 'other' } }], 'More'),
    ]);
    expect(r.body.error.details.join(' ')).toContain(
      "Domain 'Status' of layer 'More', field 'S' differs from the domain of that name on layer 'Trees', field 'Status'",
    );
    const same = await define(admin, [layer([{ name: 'S', type: 'esriFieldTypeInteger', domain: STATUS }], 'Same')]);
    expect(same.body.success).toBe(true);
  });

  describe('export options', () => {
    let itemId: string;
    const exportItem = (exportFormat: string, exportParameters: object) =>
      post(
        t.base,
        `content/users/${owner.username}/export`,
        { itemId, exportFormat, exportParameters: JSON.stringify(exportParameters) },
        owner.token,
      );

    beforeAll(async () => {
      itemId = (await json('')).serviceItemId;
    });

    it.each([
      ['Shapefile', { useDomainDescriptions: 'description' }, "'useDomainDescriptions' applies only to CSV and Excel exports."],
      ['GeoPackage', { layers: [{ id: 0, useFieldAliases: true }] }, "'layers[0].useFieldAliases' applies only to CSV and Excel exports."],
      ['CSV', { useDomainDescriptions: 'labels' }, `'useDomainDescriptions' must be "code", "description", "both", true or false.`],
      ['Excel', { layers: [{ id: 0, useDomainDescriptions: 1 }] }, "'layers[0].useDomainDescriptions' must be"],
      ['CSV', { useFieldAliases: 'yes' }, "'useFieldAliases' must be true or false."],
      [
        'CSV',
        { layers: [{ id: 0, useDomainDescriptions: 'both', xColumnName: 'Status_desc' }] },
        "xColumnName 'Status_desc' clashes with a field",
      ],
    ])('refuses %s with %j', async (format, params, detail) => {
      const r = await exportItem(format, params);
      expect(r.body.error.code).toBe(400);
      expect(r.body.error.details.join(' ')).toContain(detail);
    });

    it('refuses headers two columns would share, naming both fields', async () => {
      const fresh = await service();
      await define(fresh.admin, [
        layer([
          { name: 'Status', type: 'esriFieldTypeInteger', domain: STATUS },
          { name: 'Status_desc', type: 'esriFieldTypeString' },
          { name: 'A', alias: 'Same', type: 'esriFieldTypeString' },
          { name: 'B', alias: 'same', type: 'esriFieldTypeString' },
        ]),
      ]);
      const id = (await get(fresh.url, '', {}, owner.token)).body.serviceItemId;
      const ask = (p: object) =>
        post(
          t.base,
          `content/users/${owner.username}/export`,
          { itemId: id, exportFormat: 'CSV', exportParameters: JSON.stringify(p) },
          owner.token,
        );
      const both = await ask({ useDomainDescriptions: 'both' });
      expect(both.body.error.details).toEqual([
        "Layer 0: the columns of fields 'Status' and 'Status_desc' would both be headed 'Status_desc'.",
      ]);
      const aliases = await ask({ useFieldAliases: true });
      expect(aliases.body.error.details).toEqual(["Layer 0: the columns of fields 'A' and 'B' would both be headed 'same'."]);
      expect((await ask({ useDomainDescriptions: 'description' })).body.jobId).toMatch(/^[0-9a-f]{32}$/);
    });
  });
});
