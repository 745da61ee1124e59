import { ArcgisError } from '../../src/core/errors/arcgis-error';
import { parseSearchQuery } from '../../src/content/search-query';

describe('parseSearchQuery', () => {
  it('parses the query the client sends before sharing', () => {
    expect(parseSearchQuery('id: abc AND group: def')).toEqual({
      kind: 'and',
      left: { kind: 'term', field: 'id', value: 'abc' },
      right: { kind: 'term', field: 'group', value: 'def' },
    });
  });

  it('binds AND tighter than OR, honours parentheses, NOT and quotes', () => {
    expect(parseSearchQuery('a OR b c')).toEqual({
      kind: 'or',
      left: { kind: 'term', field: null, value: 'a' },
      right: { kind: 'and', left: { kind: 'term', field: null, value: 'b' }, right: { kind: 'term', field: null, value: 'c' } },
    });
    expect(parseSearchQuery('NOT (type:"Web Map" or owner:x)')).toEqual({
      kind: 'not',
      node: {
        kind: 'or',
        left: { kind: 'term', field: 'type', value: 'Web Map' },
        right: { kind: 'term', field: 'owner', value: 'x' },
      },
    });
  });

  it('parses date ranges (inclusive, exclusive, open) and Lucene negation, as SearchQueryBuilder writes them', () => {
    expect(parseSearchQuery('type:"Web Map" AND created:[1000 TO 2000] NOT type:Dashboard')).toEqual({
      kind: 'and',
      left: {
        kind: 'and',
        left: { kind: 'term', field: 'type', value: 'Web Map' },
        right: { kind: 'range', field: 'created', from: 1000, to: 2000, inclusive: [true, true] },
      },
      right: { kind: 'not', node: { kind: 'term', field: 'type', value: 'Dashboard' } },
    });
    expect(parseSearchQuery('modified:{* TO 5}')).toEqual({
      kind: 'range',
      field: 'modified',
      from: null,
      to: 5,
      inclusive: [false, false],
    });
    expect(parseSearchQuery('-type:CSV a-b')).toEqual({
      kind: 'and',
      left: { kind: 'not', node: { kind: 'term', field: 'type', value: 'CSV' } },
      right: { kind: 'term', field: null, value: 'a-b' },
    });
  });

  it('treats field names case-insensitively', () => {
    expect(parseSearchQuery('TypeKeywords:Data')).toEqual({ kind: 'term', field: 'typekeywords', value: 'Data' });
  });

  it.each([
    ['', "'q' is empty."],
    ['foo: bar', "Unknown search field 'foo'"],
    ['(a', "Missing ')'"],
    ['a)', "Unexpected ')'"],
    ['title:', "Missing value after 'title:'"],
    ['"open', 'Unterminated quote'],
    ['x'.repeat(2049), 'longer than 2048'],
    [Array.from({ length: 33 }, () => 'a').join(' '), 'More than 32 search terms'],
    [Array.from({ length: 4 }, () => 'x'.repeat(129)).join(' '), 'longer than 512 characters together'],
    ['a*b*c*d*e f*g*h*i*j*k', "More than 8 '*' wildcards"],
    ['title:[a TO c]', "'title' takes no range"],
    ['created:[2020-01-01 TO *]', 'is not a date in epoch milliseconds'],
    ['created:[1 2]', 'A range is written [from TO to]'],
    ['created:[1 TO 2', 'Unterminated range'],
    ['[1 TO 2]', 'A range needs a field'],
  ])('rejects %j with a clear detail', (q, detail) => {
    try {
      parseSearchQuery(q);
      throw new Error('expected a rejection');
    } catch (e) {
      expect(e).toBeInstanceOf(ArcgisError);
      expect((e as ArcgisError).code).toBe(400);
      expect((e as ArcgisError).details.join(' ')).toContain(detail);
    }
  });
});
