import fc from 'fast-check';
import { SqlParams } from '../../../src/core/database/sql-params';
import { ArcgisError } from '../../../src/core/errors/arcgis-error';
import { compileWhere, parseWhere, printWhere, renderWhereSql } from '../../../src/where/compile';
import { tokenSoup, whereTree } from './arbitraries';
import { FIELDS, WHERE_MESSAGE } from './fixtures';

/** Anything thrown must be the where-clause 400 with one detail line. */
function acceptOrReject(where: string): void {
  let printed: string;
  try {
    printed = printWhere(parseWhere(where, FIELDS));
  } catch (e) {
    expect(e).toBeInstanceOf(ArcgisError);
    expect((e as ArcgisError).code).toBe(400);
    expect((e as ArcgisError).message).toBe(WHERE_MESSAGE);
    expect((e as ArcgisError).details).toHaveLength(1);
    return;
  }
  // accepted: printing is then a fixed point, and both SQL forms compile
  expect(printWhere(parseWhere(printed, FIELDS))).toBe(printed);
  compileWhere(where, FIELDS, new SqlParams());
  renderWhereSql(where, FIELDS);
}

describe('where compiler properties', () => {
  it('generated trees survive print → parse → print', () => {
    fc.assert(
      fc.property(whereTree(4), (tree) => {
        const printed = printWhere(tree);
        const reparsed = parseWhere(printed, FIELDS);
        expect(printWhere(reparsed)).toBe(printed);
      }),
      { numRuns: 1500 },
    );
  });

  it('generated trees compile to SQL whose placeholders match the bound values', () => {
    fc.assert(
      fc.property(whereTree(4), fc.integer({ min: 0, max: 3 }), (tree, preset) => {
        const p = new SqlParams();
        for (let i = 0; i < preset; i++) p.add(i);
        const sql = compileWhere(printWhere(tree), FIELDS, p);
        const used = new Set([...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
        expect([...used].sort((a, b) => a - b)).toEqual(p.values.slice(preset).map((_, i) => preset + i + 1));
        // the inline form has no placeholders outside its string literals
        const inline = renderWhereSql(printWhere(tree), FIELDS);
        expect(inline.replace(/E'(?:[^'\\]|''|\\.)*'/g, "E''")).not.toMatch(/\$\d/);
      }),
      { numRuns: 500 },
    );
  });

  it('arbitrary text never throws anything but the 400 ArcgisError', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), acceptOrReject), { numRuns: 3000 });
    fc.assert(fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 200 }), acceptOrReject), { numRuns: 3000 });
  });

  it('token soup never throws anything but the 400 ArcgisError', () => {
    fc.assert(fc.property(tokenSoup, acceptOrReject), { numRuns: 10000 });
  });

  it('printed generated trees with random damage are still only accepted or cleanly rejected', () => {
    fc.assert(
      fc.property(whereTree(3), fc.nat(), fc.string({ maxLength: 3 }), (tree, at, junk) => {
        const text = printWhere(tree);
        const i = at % (text.length + 1);
        acceptOrReject(text.slice(0, i) + junk + text.slice(i + 1));
      }),
      { numRuns: 3000 },
    );
  });
});
