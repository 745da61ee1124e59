import { SqlParams } from '../../../src/core/database/sql-params';
import { compileWhere, parseWhere } from '../../../src/where/compile';
import { FIELDS, rejection } from './fixtures';
import { HARMLESS, HOSTILE } from './hostile-inputs';

describe('hostile where clauses', () => {
  /** Test names show the start of each input only. */
  const label = (w: string) => (w.length > 60 ? `${JSON.stringify(w.slice(0, 60))}… (${w.length} chars)` : JSON.stringify(w));

  it.each(HOSTILE.map(([w, d]) => [label(w), w, d]))('rejects %s', (_, where, detail) => {
    const start = performance.now();
    const err = rejection(() => compileWhere(where, FIELDS, new SqlParams()));
    expect(performance.now() - start).toBeLessThan(250);
    expect(err.details[0]).toContain(detail);
    // the detail is one bounded line even for enormous inputs
    expect(err.details[0].length).toBeLessThan(200);
    expect(err.details[0]).not.toMatch(/[\n\r\0]/);
  });

  it.each(HARMLESS)('keeps %j as bound values only', (where) => {
    const p = new SqlParams();
    const sql = compileWhere(where, FIELDS, p);
    expect(sql).not.toMatch(/DROP|SELECT|sleep|--|\/\*|;|’/i);
    expect(p.values.every((v) => typeof v === 'string')).toBe(true);
  });

  it('accepts long but legitimate clauses quickly', () => {
    let ors = 'pop = 0';
    for (let i = 1; ors.length < 9_980; i++) ors += ` OR pop = ${i}`;
    const list = `pop IN (${Array.from({ length: 1_000 }, (_, i) => i).join(',')})`;
    const nested = '('.repeat(99) + 'pop = 1' + ')'.repeat(99);
    for (const where of [ors, list, nested]) {
      const start = performance.now();
      const p = new SqlParams();
      const sql = compileWhere(where, FIELDS, p);
      expect(performance.now() - start).toBeLessThan(250);
      expect(sql.length).toBeLessThan(where.length * 10);
    }
  });

  it('compiles deep casts and guards in linear size', () => {
    // each text→int→text round adds guards; emitting any subexpression twice would double the SQL per level
    let expr = 'name';
    for (let i = 0; i < 45; i++) expr = `CAST(CAST(${expr} AS INT) AS VARCHAR(9))`;
    const sql = compileWhere(`${expr} = 'x'`, FIELDS, new SqlParams());
    expect(sql.length).toBeLessThan(20_000);
    expect(parseWhere(`${expr} = 'x'`, FIELDS)).toBeDefined();
  });
});
