import { ArcgisError } from '../../src/core/errors/arcgis-error';
import { thumbnailName } from '../../src/core/storage/thumbnail';
import { parseUserQuery } from '../../src/identity/user-query';

describe('parseUserQuery', () => {
  it('reads a blank q as every user', () => {
    expect(parseUserQuery(undefined, 'org')).toBeUndefined();
    expect(parseUserQuery('  ', 'community')).toBeUndefined();
  });

  it('parses user fields and ranges with the item search grammar', () => {
    expect(parseUserQuery('FullName:smith AND lastlogin:[0 TO 5]', 'org')).toEqual({
      kind: 'and',
      left: { kind: 'term', field: 'fullname', value: 'smith' },
      right: { kind: 'range', field: 'lastlogin', from: 0, to: 5, inclusive: [true, true] },
    });
    expect(parseUserQuery('-role:org_admin', 'org')).toEqual({ kind: 'not', node: { kind: 'term', field: 'role', value: 'org_admin' } });
  });

  it.each([
    ['email:a@b.c', "Unknown search field 'email'"],
    ['role:org_admin', "Unknown search field 'role'"],
    ['lastlogin:[0 TO 5]', "'lastlogin' takes no range"],
    ['title:x', "Unknown search field 'title'"],
  ])('keeps what only administrators see out of the community search: %s', (q, detail) => {
    let error: unknown;
    try {
      parseUserQuery(q, 'community');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ArcgisError);
    expect((error as ArcgisError).details[0]).toContain(detail);
  });
});

describe('thumbnailName', () => {
  it.each([
    ['me.png', 'png', 'me.png'],
    ['me.JPEG', 'jpg', 'me.JPEG'],
    ['me.png', 'jpg', 'me.jpg'],
    ['photo', 'gif', 'photo.gif'],
  ] as const)('%s holding %s is stored as %s', (name, kind, want) => {
    expect(thumbnailName(name, kind)).toBe(want);
  });
});
