/**
 * Aggregated queries against the real app: outStatistics (grouped, ordered, paged, filtered) and
 * returnDistinctValues (with the distinct count), in f=json, f=pbf and the HTML directory's query page. Every
 * expected value is computed here in JavaScript from the features inserted, never read back from the server.
 */
import { decodeFeatureCollection } from '../../src/feature-server/pbf/feature-collection';
import { createHostedService, get, post } from '../support/client';
import { withApp } from '../support/harness';

/* eslint-disable @typescript-eslint/no-explicit-any */

const FIELDS = [
  { name: 'Name', type: 'esriFieldTypeString', length: 40, alias: 'City name' },
  { name: 'Kind', type: 'esriFieldTypeString', length: 20, alias: 'Kind of place' },
  { name: 'Pop', type: 'esriFieldTypeInteger' },
  { name: 'Floor', type: 'esriFieldTypeSmallInteger' },
  { name: 'Area', type: 'esriFieldTypeDouble' },
  { name: 'Ratio', type: 'esriFieldTypeSingle' },
  { name: 'Big', type: 'esriFieldTypeBigInteger' },
  { name: 'Founded', type: 'esriFieldTypeDate' },
  { name: 'Tag', type: 'esriFieldTypeGUID' },
];

interface City {
  Name: string | null;
  Kind: string | null;
  Pop: number | null;
  Floor: number;
  Area: number | null;
  Ratio: number;
  Big: number;
  Founded: number | null;
  Tag: string | null;
  x: number;
  y: number;
}

/** Twelve cities with nulls here and there; the last two are so populous that their sum leaves 32-bit integers. */
const CITIES: City[] = Array.from({ length: 12 }, (_, i) => ({
  Name: i === 5 ? null : `c${String(i).padStart(2, '0')}`,
  Kind: i === 7 ? null : ['town', 'city', 'village'][i % 3],
  Pop: i === 4 ? null : i === 10 ? 2_100_000_000 : i === 11 ? 2_000_000_000 : 1000 + i * i * 37,
  Floor: 10000 + i * 1000,
  Area: i % 4 === 0 ? null : i * 1.25 + 0.1,
  Ratio: 0.5 + i,
  Big: 2 ** 40 + i,
  Founded: i % 5 === 2 ? null : Date.UTC(1800 + i * 10, i % 12, 1 + i),
  Tag: i % 2 ? `{0000000${i % 10}-1111-2222-3333-444455556666}` : null,
  x: 10 + i * 0.5,
  y: 50 + (i % 4) * 0.5,
}));

type Key = Exclude<keyof City, 'x' | 'y'>;
const values = (rows: City[], k: Key) => rows.map((r) => r[k]).filter((v): v is NonNullable<typeof v> => v !== null);
const nums = (rows: City[], k: Key) => values(rows, k) as number[];
const sum = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) : null);
const mean = (xs: number[]) => (xs.length ? sum(xs)! / xs.length : null);
/** Sample variance, as ArcGIS (and PostgreSQL's var_samp) compute it: null for fewer than two values. */
function variance(xs: number[]) {
  if (xs.length < 2) return null;
  const m = mean(xs)!;
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
}
const stddev = (xs: number[]) => (xs.length < 2 ? null : Math.sqrt(variance(xs)!));
const min = <T>(xs: T[]) => (xs.length ? xs.reduce((a, b) => (b < a ? b : a)) : null);
const max = <T>(xs: T[]) => (xs.length ? xs.reduce((a, b) => (b > a ? b : a)) : null);

/** Equal, or within a relative 1e-9 for doubles the database computed in another order. */
function expectClose(actual: unknown, expected: number | null) {
  if (expected === null) return expect(actual).toBeNull();
  expect(typeof actual).toBe('number');
  expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
}

const stat = (statisticType: string, onStatisticField: string, outStatisticFieldName?: string) => ({
  statisticType,
  onStatisticField,
  ...(outStatisticFieldName ? { outStatisticFieldName } : {}),
});

describe('query statistics and distinct values', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  let layer: string;
  /** Object ids in CITIES order. */
  let ids: number[];

  beforeAll(async () => {
    const svc = await createHostedService(t.base, owner, [
      { name: 'Cities', geometryType: 'esriGeometryPoint', fields: FIELDS, extent: { spatialReference: { wkid: 4326 } } },
    ]);
    layer = `${svc.serviceurl}/0`;
    const features = CITIES.map(({ x, y, ...attributes }) => ({ attributes, geometry: { x, y } }));
    const added = await post(layer, 'addFeatures', { features: JSON.stringify(features) }, owner.token);
    ids = added.body.addResults.map((r: { objectId: number; success: boolean }) => (r.success ? r.objectId : NaN));
    expect(ids.every(Number.isInteger)).toBe(true);
  });

  const q = (params: Record<string, string>) => get(layer, 'query', params, owner.token).then((r) => r.body);
  const stats = (list: object[], params: Record<string, string> = {}) =>
    q({ where: '1=1', outStatistics: JSON.stringify(list), ...params });
  const refusal = async (params: Record<string, string>, detail: RegExp) => {
    const r = await q({ where: '1=1', ...params });
    expect(r.error).toMatchObject({ code: 400, message: 'Cannot perform query. Invalid query parameters.' });
    expect(r.error.details.join(' ')).toMatch(detail);
  };

  it('advertises statistics, distinct values and their count, and no HAVING', async () => {
    const info = (await get(layer, '', {}, owner.token)).body;
    expect(info.supportsStatistics).toBe(true);
    expect(info.advancedQueryCapabilities).toMatchObject({
      supportsStatistics: true,
      supportsDistinct: true,
      supportsCountDistinct: true,
      supportsPaginationOnAggregatedQueries: true,
      supportsHavingClause: false,
      supportsSqlExpression: false,
    });
  });

  it('computes every statistic over the whole layer, nulls ignored, in the ArcGIS reply shape', async () => {
    const r = await stats([
      stat('count', '*', 'n'),
      stat('count', 'Pop', 'pop_n'),
      stat('sum', 'Floor', 'floor_sum'),
      stat('sum', 'Pop', 'pop_sum'),
      stat('sum', 'Big', 'big_sum'),
      stat('sum', 'Ratio', 'ratio_sum'),
      stat('min', 'Pop', 'pop_min'),
      stat('max', 'Pop', 'pop_max'),
      stat('avg', 'Area', 'area_avg'),
      stat('stddev', 'Pop', 'pop_sd'),
      stat('var', 'Area', 'area_var'),
      stat('min', 'Name', 'first_name'),
      stat('max', 'Founded', 'last_founded'),
      stat('min', 'Founded', 'first_founded'),
      stat('count', 'Tag', 'tagged'),
    ]);
    expect(Object.keys(r)).toEqual(['displayFieldName', 'fieldAliases', 'fields', 'features']);
    expect(r.displayFieldName).toBe('');
    expect(r.features).toHaveLength(1);
    const a = r.features[0].attributes;
    expect(Object.keys(a)).toEqual(r.fields.map((f: any) => f.name));
    expect(r.fieldAliases).toEqual(Object.fromEntries(r.fields.map((f: any) => [f.name, f.name])));
    const type = Object.fromEntries(r.fields.map((f: any) => [f.name, f.type]));
    expect(type).toEqual({
      n: 'esriFieldTypeInteger',
      pop_n: 'esriFieldTypeInteger',
      // Sums keep their field's type while the values fit it: 12 small integers of 10,000 and more do not.
      floor_sum: 'esriFieldTypeInteger',
      pop_sum: 'esriFieldTypeDouble',
      big_sum: 'esriFieldTypeBigInteger',
      ratio_sum: 'esriFieldTypeDouble',
      pop_min: 'esriFieldTypeInteger',
      pop_max: 'esriFieldTypeInteger',
      area_avg: 'esriFieldTypeDouble',
      pop_sd: 'esriFieldTypeDouble',
      area_var: 'esriFieldTypeDouble',
      first_name: 'esriFieldTypeString',
      last_founded: 'esriFieldTypeDate',
      first_founded: 'esriFieldTypeDate',
      tagged: 'esriFieldTypeInteger',
    });
    expect(r.fields.find((f: any) => f.name === 'first_name')).toMatchObject({ alias: 'first_name', length: 40 });

    expect(a.n).toBe(CITIES.length);
    expect(a.pop_n).toBe(nums(CITIES, 'Pop').length);
    expect(a.floor_sum).toBe(sum(nums(CITIES, 'Floor')));
    expect(a.pop_sum).toBe(sum(nums(CITIES, 'Pop')));
    expect(a.big_sum).toBe(sum(nums(CITIES, 'Big')));
    expectClose(a.ratio_sum, sum(nums(CITIES, 'Ratio')));
    expect(a.pop_min).toBe(min(nums(CITIES, 'Pop')));
    expect(a.pop_max).toBe(max(nums(CITIES, 'Pop')));
    expectClose(a.area_avg, mean(nums(CITIES, 'Area')));
    expectClose(a.pop_sd, stddev(nums(CITIES, 'Pop')));
    expectClose(a.area_var, variance(nums(CITIES, 'Area')));
    expect(a.first_name).toBe(min(values(CITIES, 'Name') as string[]));
    expect(a.last_founded).toBe(max(nums(CITIES, 'Founded')));
    expect(a.first_founded).toBe(min(nums(CITIES, 'Founded')));
    expect(a.tagged).toBe(values(CITIES, 'Tag').length);

    // Where the sum fits a 32-bit integer it stays one.
    const small = await stats([stat('sum', 'Pop', 's')], { where: 'Pop < 1000000' });
    expect(small.fields[0].type).toBe('esriFieldTypeInteger');
    expect(small.features[0].attributes.s).toBe(sum(nums(CITIES, 'Pop').filter((p) => p < 1e6)));
  });

  it('groups by fields, one feature per group (null is a group), ordered by an output name or a group field', async () => {
    const byCount = await stats([stat('count', 'OBJECTID', 'n'), stat('sum', 'Pop', 'pop'), stat('avg', 'Area', 'area')], {
      groupByFieldsForStatistics: 'kind',
      orderByFields: 'n DESC, Kind',
    });
    const kinds = [...new Set(CITIES.map((c) => c.Kind))];
    const expected = kinds
      .map((Kind) => {
        const rows = CITIES.filter((c) => c.Kind === Kind);
        return { Kind, n: rows.length, pop: sum(nums(rows, 'Pop')), area: mean(nums(rows, 'Area')) };
      })
      .sort((x, y) => y.n - x.n || (x.Kind === null ? 1 : y.Kind === null ? -1 : x.Kind < y.Kind ? -1 : 1));
    // The populous cities are in different groups: each group's sum fits a 32-bit integer, so the column stays one.
    expect(Math.max(...expected.map((e) => e.pop ?? 0))).toBeLessThan(2 ** 31);
    expect(byCount.fields.map((f: any) => [f.name, f.type])).toEqual([
      ['Kind', 'esriFieldTypeString'],
      ['n', 'esriFieldTypeInteger'],
      ['pop', 'esriFieldTypeInteger'],
      ['area', 'esriFieldTypeDouble'],
    ]);
    // A group-by field is the layer's own, alias included.
    expect(byCount.fieldAliases).toEqual({ Kind: 'Kind of place', n: 'n', pop: 'pop', area: 'area' });
    expect(byCount.features.map((f: any) => f.attributes.Kind)).toEqual(expected.map((e) => e.Kind));
    byCount.features.forEach((f: any, i: number) => {
      expect(f.attributes.n).toBe(expected[i].n);
      expect(f.attributes.pop).toBe(expected[i].pop);
      expectClose(f.attributes.area, expected[i].area);
    });

    // Two group fields, ordered by one of them descending (nulls first, as feature pages sort them).
    const two = await stats([stat('max', 'Pop', 'top')], { groupByFieldsForStatistics: 'Kind, Tag', orderByFields: 'KIND desc' });
    const pairs = new Map<string, City[]>();
    for (const c of CITIES) pairs.set(JSON.stringify([c.Kind, c.Tag]), [...(pairs.get(JSON.stringify([c.Kind, c.Tag])) ?? []), c]);
    expect(two.features).toHaveLength(pairs.size);
    expect(two.features[0].attributes.Kind).toBeNull();
    const kindsDesc = two.features.map((f: any) => f.attributes.Kind).filter((k: string | null) => k !== null);
    expect(kindsDesc).toEqual([...kindsDesc].sort().reverse());
    for (const f of two.features) {
      const rows = pairs.get(JSON.stringify([f.attributes.Kind, f.attributes.Tag?.toLowerCase() ?? null]));
      expect(rows).toBeDefined();
      expect(f.attributes.top).toBe(max(nums(rows!, 'Pop')));
    }
  });

  it('takes where, objectIds and a rectangle into account', async () => {
    const chosen = ids.filter((_, i) => i !== 1);
    const r = await stats([stat('count', '*', 'n'), stat('sum', 'Floor', 'floors'), stat('min', 'Name', 'name')], {
      where: "Kind <> 'village'",
      objectIds: chosen.join(','),
      geometry: '10,50,12,51',
      geometryType: 'esriGeometryEnvelope',
      inSR: '4326',
    });
    const rows = CITIES.filter(
      (c, i) => c.Kind !== null && c.Kind !== 'village' && chosen.includes(ids[i]) && c.x <= 12 && c.y >= 50 && c.y <= 51,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(r.features).toEqual([
      { attributes: { n: rows.length, floors: sum(nums(rows, 'Floor')), name: min(values(rows, 'Name') as string[]) } },
    ]);
  });

  it('answers an empty selection with one feature (count 0, nulls) ungrouped, and no feature grouped', async () => {
    const list = [stat('count', 'Pop', 'n'), stat('sum', 'Pop', 's'), stat('avg', 'Area', 'a'), stat('max', 'Founded', 'f')];
    expect((await stats(list, { where: '1=0' })).features).toEqual([{ attributes: { n: 0, s: null, a: null, f: null } }]);
    const grouped = await stats(list, { where: '1=0', groupByFieldsForStatistics: 'Kind' });
    expect(grouped.features).toEqual([]);
    expect(grouped.fields.map((f: any) => f.name)).toEqual(['Kind', 'n', 's', 'a', 'f']);
    // One value: the sample deviation is undefined.
    const one = await stats([stat('stddev', 'Pop', 'sd'), stat('var', 'Pop', 'v')], { objectIds: String(ids[0]) });
    expect(one.features).toEqual([{ attributes: { sd: null, v: null } }]);
  });

  it('names unnamed statistics after what they compute', async () => {
    const r = await stats([stat('count', '*'), stat('sum', 'pop'), stat('AVG', 'Area')]);
    expect(Object.keys(r.features[0].attributes)).toEqual(['COUNT_OBJECTID', 'SUM_Pop', 'AVG_Area']);
  });

  it('pages grouped statistics with exceededTransferLimit', async () => {
    const all = await stats([stat('count', '*', 'n')], { groupByFieldsForStatistics: 'Name', orderByFields: 'Name' });
    expect(all.features).toHaveLength(CITIES.length);
    expect(all.exceededTransferLimit).toBeUndefined();
    const pages: any[] = [];
    for (let offset = 0; ; offset += 5) {
      const page = await stats([stat('count', '*', 'n')], {
        groupByFieldsForStatistics: 'Name',
        orderByFields: 'Name',
        resultOffset: String(offset),
        resultRecordCount: '5',
      });
      pages.push(...page.features);
      expect(Object.keys(page)).toEqual([
        'displayFieldName',
        'fieldAliases',
        'fields',
        ...(page.exceededTransferLimit ? ['exceededTransferLimit'] : []),
        'features',
      ]);
      if (!page.exceededTransferLimit) break;
      expect(page.features).toHaveLength(5);
    }
    expect(pages).toEqual(all.features);
    const names = CITIES.map((c) => c.Name);
    expect(pages.map((f) => f.attributes.Name)).toEqual([...names.filter((n) => n !== null).sort(), null]);
  });

  it('refuses what it does not compute, in the query envelope', async () => {
    const one = (s: object, params: Record<string, string> = {}) => ({ outStatistics: JSON.stringify([s]), ...params });
    await refusal(
      one(stat('sum', 'Pop*2', 'x')),
      /'onStatisticField' "Pop\*2" is not a field of this layer; expressions are not supported/,
    );
    await refusal(one(stat('count', 'Nope', 'x')), /"Nope" is not a field of this layer/);
    await refusal(one(stat('sum', '*', 'x')), /'\*' only counts/);
    await refusal(one(stat('sum', 'Name', 'x')), /'sum' needs a numeric field; 'Name' is esriFieldTypeString/);
    await refusal(one(stat('avg', 'Founded', 'x')), /'avg' needs a numeric field/);
    await refusal(one(stat('min', 'Tag', 'x')), /'min' is not defined for the GUID field 'Tag'/);
    await refusal(one(stat('percentile_cont', 'Pop', 'x')), /'statisticType' "percentile_cont" is not supported/);
    await refusal(one(stat('count', 'Pop', 'a b')), /'outStatisticFieldName' "a b" must be letters/);
    await refusal(one(stat('count', 'Pop', 'x"; DROP TABLE y; --')), /'outStatisticFieldName'/);
    await refusal({ outStatistics: JSON.stringify([stat('count', 'Pop', 'n'), stat('sum', 'Pop', 'N')]) }, /'N' names two columns/);
    await refusal(one(stat('count', 'Pop', 'kind'), { groupByFieldsForStatistics: 'Kind' }), /'kind' names two columns/);
    await refusal(
      one(stat('count', 'Pop', 'n'), { groupByFieldsForStatistics: 'Kind, upper(Name)' }),
      /'groupByFieldsForStatistics' names 'upper\(Name\)'/,
    );
    await refusal(
      one(stat('count', 'Pop', 'n'), { groupByFieldsForStatistics: 'Kind', orderByFields: 'Pop' }),
      /'orderByFields' entry 'Pop'/,
    );
    await refusal(
      one(stat('count', 'Pop', 'n'), { groupByFieldsForStatistics: 'Kind', having: 'COUNT(Pop) > 1' }),
      /supportsHavingClause is false/,
    );
    await refusal(one(stat('count', 'Pop', 'n'), { returnCountOnly: 'true' }), /'returnCountOnly' cannot be combined with 'outStatistics'/);
    await refusal(one(stat('count', 'Pop', 'n'), { f: 'geojson' }), /answered in f=json, pjson or pbf/);
    await refusal({ outStatistics: '{"statisticType":"count"}' }, /non-empty array/);
    await refusal({ outStatistics: '[{' }, /not valid JSON/);
    await refusal({ groupByFieldsForStatistics: 'Kind' }, /'groupByFieldsForStatistics' needs 'outStatistics'/);
    await refusal({ outFields: 'Kind', returnDistinctValues: 'true', orderByFields: 'Pop' }, /one of the outFields/);
    await refusal({ outFields: 'Kind', returnDistinctValues: 'true', returnIdsOnly: 'true' }, /'returnIdsOnly' cannot be combined/);
  });

  it('returns distinct values of the outFields, ordered, paged and counted', async () => {
    const kinds = await q({
      where: '1=1',
      outFields: 'Kind',
      returnDistinctValues: 'true',
      returnGeometry: 'false',
      orderByFields: 'Kind DESC',
    });
    const distinctKinds = [...new Set(CITIES.map((c) => c.Kind))];
    expect(kinds.features.map((f: any) => f.attributes.Kind)).toEqual([
      null,
      ...(distinctKinds.filter((k) => k !== null) as string[]).sort().reverse(),
    ]);
    expect(kinds.features.every((f: any) => Object.keys(f).join() === 'attributes')).toBe(true);
    expect(kinds).toMatchObject({
      objectIdFieldName: 'OBJECTID',
      geometryType: 'esriGeometryPoint',
      fields: [{ name: 'Kind', alias: 'Kind of place' }],
    });

    // Combinations of two fields, dates in epoch milliseconds, GUIDs braced; geometry is never part of them.
    const pairs = await q({ where: 'Pop < 1000000', outFields: 'Kind,Founded', returnDistinctValues: 'true' });
    const rows = CITIES.filter((c) => c.Pop !== null && c.Pop < 1e6);
    const expected = new Set(rows.map((c) => JSON.stringify([c.Kind, c.Founded])));
    expect(pairs.features).toHaveLength(expected.size);
    expect(new Set(pairs.features.map((f: any) => JSON.stringify([f.attributes.Kind, f.attributes.Founded])))).toEqual(expected);
    expect(pairs.features[0].geometry).toBeUndefined();
    const tags = await q({ where: '1=1', outFields: 'Tag', returnDistinctValues: 'true', orderByFields: 'Tag' });
    expect(tags.features.map((f: any) => f.attributes.Tag)).toEqual([
      ...[...new Set(values(CITIES, 'Tag') as string[])].map((g) => g.toUpperCase()).sort(),
      null,
    ]);

    // The count of distinct values (null is one), with and without filters.
    expect(await q({ where: '1=1', outFields: 'Kind', returnDistinctValues: 'true', returnCountOnly: 'true' })).toEqual({
      count: distinctKinds.length,
    });
    expect(await q({ where: 'Pop < 1000000', outFields: 'Kind,Founded', returnDistinctValues: 'true', returnCountOnly: 'true' })).toEqual({
      count: expected.size,
    });

    // Pages of distinct values, as feature pages are paged.
    const page1 = await q({ where: '1=1', outFields: 'Kind', returnDistinctValues: 'true', orderByFields: 'Kind', resultRecordCount: '2' });
    expect(page1.exceededTransferLimit).toBe(true);
    const page2 = await q({
      where: '1=1',
      outFields: 'Kind',
      returnDistinctValues: 'true',
      orderByFields: 'Kind',
      resultRecordCount: '2',
      resultOffset: '2',
    });
    expect(page2.exceededTransferLimit).toBeUndefined();
    expect([...page1.features, ...page2.features].map((f: any) => f.attributes.Kind)).toEqual([
      ...(distinctKinds.filter((k) => k !== null) as string[]).sort(),
      null,
    ]);
  });

  it('answers statistics and distinct values in f=pbf too', async () => {
    const pbf = async (params: Record<string, string>) => {
      const res = await fetch(`${layer}/query?${new URLSearchParams({ where: '1=1', ...params, f: 'pbf', token: owner.token })}`);
      expect(res.headers.get('content-type')).toBe('application/x-protobuf');
      return decodeFeatureCollection(new Uint8Array(await res.arrayBuffer())).queryResult as any;
    };
    const s = await pbf({
      outStatistics: JSON.stringify([stat('count', '*', 'n'), stat('max', 'Founded', 'last')]),
      groupByFieldsForStatistics: 'Kind',
      orderByFields: 'Kind',
    });
    expect(s.featureResult.fields.map((f: any) => [f.name, f.fieldType])).toEqual([
      ['Kind', 'esriFieldTypeString'],
      ['n', 'esriFieldTypeInteger'],
      ['last', 'esriFieldTypeDate'],
    ]);
    const town = CITIES.filter((c) => c.Kind === 'town');
    const first = s.featureResult.features[0].attributes;
    expect(first).toEqual([{ stringValue: 'city' }, { sintValue: CITIES.filter((c) => c.Kind === 'city').length }, expect.any(Object)]);
    const townRow = s.featureResult.features.find((f: any) => f.attributes[0].stringValue === 'town');
    expect(townRow.attributes.slice(1)).toEqual([{ sintValue: town.length }, { sint64Value: max(nums(town, 'Founded')) }]);

    const d = await pbf({ outFields: 'Kind', returnDistinctValues: 'true', orderByFields: 'Kind' });
    expect(d.featureResult.features.map((f: any) => f.attributes[0].stringValue ?? null)).toEqual(['city', 'town', 'village', null]);
    expect((await pbf({ outFields: 'Kind', returnDistinctValues: 'true', returnCountOnly: 'true' })).countResult).toEqual({ count: 4 });
  });

  it('shows grouped statistics as a table on the HTML query page', async () => {
    const qs = new URLSearchParams({
      f: 'html',
      token: owner.token,
      where: "Kind = 'town'",
      outStatistics: JSON.stringify([stat('count', '*', 'towns'), stat('min', 'Founded', 'oldest')]),
      groupByFieldsForStatistics: 'Kind',
    });
    const res = await fetch(`${layer}/query?${qs}`);
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(body).toContain('name="outStatistics"');
    expect(body).toContain('name="groupByFieldsForStatistics" value="Kind"');
    expect(body).toContain('name="returnDistinctValues"');
    const town = CITIES.filter((c) => c.Kind === 'town');
    const row = body.replace(/>\s+</g, '><');
    expect(row).toContain('1 feature(s).');
    expect(row).toContain('<th title="Kind">Kind of place</th><th title="towns">towns</th><th title="oldest">oldest</th>');
    expect(row).toContain(`<td>town</td><td>${town.length}</td><td>${new Date(min(nums(town, 'Founded'))!).toISOString()}</td>`);
  });
});
