import { addItem, post } from '../support/client';
import { withApp } from '../support/harness';

/**
 * Free-text search terms: a term matches anywhere in the text, case-insensitively, `*` is the only wildcard and every
 * other character is itself, whether the term stands alone or is OR'd with others (which the service merges into one
 * pattern per field).
 */
describe('search: free-text terms', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  const ids: Record<string, string> = {};

  const found = async (q: string): Promise<string[]> => {
    const r = (await post(t.base, 'search', { q: `owner:${owner.username} AND (${q})`, num: 100 }, owner.token)).body;
    if (!r.results) throw new Error(`search '${q}' failed: ${JSON.stringify(r)}`);
    return Object.entries(ids)
      .filter(([, id]) => r.results.some((x: { id: string }) => x.id === id))
      .map(([k]) => k)
      .sort();
  };

  beforeAll(async () => {
    const items: Record<string, Record<string, string>> = {
      river: { title: 'River gauges', snippet: 'Hourly levels', description: 'Stations along the Río Ébro' },
      dotted: { title: 'a.c survey', tags: 'x(1),50%_done' },
      abc: { title: 'abc survey', description: 'C:\\data\\in [brackets] {braces} ^caret$ a+b?' },
      parks: { title: 'City parks', tags: 'parks,green', description: 'Parks and gardens' },
      roads: { title: 'Road works', snippet: 'Closures by week', description: 'No rivers here' },
    };
    for (const [k, params] of Object.entries(items)) ids[k] = await addItem(t.base, owner.username, owner.token, params);
  });

  it('matches anywhere in title, snippet, description and tags, ignoring case', async () => {
    expect(await found('gauges')).toEqual(['river']);
    expect(await found('HOURLY')).toEqual(['river']);
    expect(await found('ébro')).toEqual(['river']);
    expect(await found('RÍO')).toEqual(['river']);
    expect(await found('green')).toEqual(['parks']);
    expect(await found('river')).toEqual(['river', 'roads']);
  });

  it('takes every character but * literally, alone and OR-ed', async () => {
    expect(await found('"a.c"')).toEqual(['dotted']);
    expect(await found('"a.c" OR nothing')).toEqual(['dotted']);
    expect(await found('"x(1)"')).toEqual(['dotted']);
    expect(await found('"50%_done"')).toEqual(['dotted']);
    expect(await found('"50%"  OR "%_d"')).toEqual(['dotted']);
    expect(await found('"C:\\data\\in"')).toEqual(['abc']);
    expect(await found('"[brackets] {braces} ^caret$ a+b?"')).toEqual(['abc']);
    expect(await found('"a+b" OR "c|d"')).toEqual(['abc']);
    expect(await found('"c|d" OR "^caret"')).toEqual(['abc']);
    expect(await found('"|"')).toEqual([]);
  });

  it('reads * as any run of characters, in single and OR-ed terms', async () => {
    expect(await found('riv*ges')).toEqual(['river']);
    expect(await found('riv*ges OR clos*week')).toEqual(['river', 'roads']);
    expect(await found('title:a*survey')).toEqual(['abc', 'dotted']);
    expect(await found('title:*')).toHaveLength(5);
  });

  it('keeps each field to its own column when fields are OR-ed together', async () => {
    expect(await found('title:gauges OR description:gardens')).toEqual(['parks', 'river']);
    expect(await found('title:gardens OR snippet:gardens')).toEqual([]);
    expect(await found('description:gardens OR hourly OR tags:green')).toEqual(['parks', 'river']);
    expect(await found('snippet:closures OR title:closures')).toEqual(['roads']);
  });

  it('combines merged OR groups with AND and NOT', async () => {
    expect(await found('(survey OR parks) AND NOT "a.c"')).toEqual(['abc', 'parks']);
    expect(await found('(gauges OR works) AND (levels OR closures)')).toEqual(['river', 'roads']);
    expect(await found('-survey AND (parks OR roads OR river)')).toEqual(['parks', 'river', 'roads']);
  });
});
