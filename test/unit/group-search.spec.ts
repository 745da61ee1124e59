import { ArcgisError } from '../../src/core/errors/arcgis-error';
import { parseSearchQuery } from '../../src/core/search/search-query';
import { anyOfPattern, likePattern } from '../../src/core/search/search-sql';
import { parseCategorySchema } from '../../src/groups/category-schema';

/** The schema group search passes (src/groups/group-list.repository.ts), written out so this spec loads no repository. */
const GROUPS = { fields: ['id', 'title', 'owner', 'tags', 'isinvitationonly'], ranges: ['created', 'modified'] } as const;

const details = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ArcgisError) return e.details;
    throw e;
  }
  throw new Error('expected an ArcgisError');
};

describe('the shared search parser with a schema of its own', () => {
  it('takes the schema’s fields in any case, and refuses the others by name', () => {
    expect(parseSearchQuery('isInvitationOnly:true AND -owner:jo*', GROUPS)).toEqual({
      kind: 'and',
      left: { kind: 'term', field: 'isinvitationonly', value: 'true' },
      right: { kind: 'not', node: { kind: 'term', field: 'owner', value: 'jo*' } },
    });
    expect(details(() => parseSearchQuery('type:"Web Map"', GROUPS))[0]).toBe(
      "Unknown search field 'type'. Supported fields: id, title, owner, tags, isinvitationonly.",
    );
  });

  it('names the schema’s range fields', () => {
    expect(parseSearchQuery('modified:{1 TO *}', GROUPS)).toEqual({
      kind: 'range',
      field: 'modified',
      from: 1,
      to: null,
      inclusive: [false, false],
    });
    expect(details(() => parseSearchQuery('title:[a TO b]', GROUPS))[0]).toBe(
      "'title' takes no range; ranges apply to created and modified (epoch milliseconds).",
    );
  });

  it('turns terms into patterns where only * is special', () => {
    expect(likePattern('a_b%c*')).toBe('a\\_b\\%c%');
    expect(anyOfPattern(['a.b', 'c*d'])).toBe('a\\.b|c.*d');
  });
});

describe('parseCategorySchema', () => {
  it('keeps titles, descriptions and nested categories, and drops other keys', () => {
    const raw = JSON.stringify({ categorySchema: [{ title: ' Root ', x: 1, categories: [{ title: 'Leaf', description: 'd' }] }] });
    expect(parseCategorySchema(raw)).toEqual([{ title: 'Root', categories: [{ title: 'Leaf', description: 'd' }] }]);
    expect(parseCategorySchema('[]')).toEqual([]);
  });

  it('refuses a title with a slash, too many categories, and a schema that is no list', () => {
    expect(details(() => parseCategorySchema('[{"title":"a/b"}]'))[0]).toContain("no '/'");
    const many = JSON.stringify([{ title: 'r', categories: Array.from({ length: 200 }, (_, i) => ({ title: `c${i}` })) }]);
    expect(details(() => parseCategorySchema(many))[0]).toBe('A schema has at most 200 categories.');
    expect(details(() => parseCategorySchema('{"categorySchema":{}}'))[0]).toBe('Expected {"categorySchema": [...]}.');
  });
});
