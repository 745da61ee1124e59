import { SqlParams } from '../../../src/core/database/sql-params';
import { compileWhere, renderWhereSql, whereReadsClock, whereRuntimeError } from '../../../src/where/compile';
import { FIELDS, rejection } from './fixtures';

function compiled(where: string, alias?: string) {
  const p = new SqlParams();
  return { sql: compileWhere(where, FIELDS, p, { alias }), values: p.values };
}

describe('compileWhere', () => {
  it('binds every literal with an explicit cast and quotes columns', () => {
    expect(compiled("pop > 5 AND name = 'O''Brien' OR ratio < 1.5", 't')).toEqual({
      sql: `((("t"."pop" > $1::integer) AND ("t"."name" = $2::text)) OR ("t"."ratio" < $3::double precision))`,
      values: [5, "O'Brien", 1.5],
    });
    expect(compiled('1=1')).toEqual({ sql: '($1::integer = $2::integer)', values: [1, 1] });
  });

  it('continues the numbering of parameters already collected', () => {
    const p = new SqlParams();
    p.add('x');
    expect(compileWhere('pop = 1', FIELDS, p)).toBe('("pop" = $2::integer)');
    expect(p.values).toEqual(['x', 1]);
  });

  it('tells each column the clause reads, and none for a clause on literals alone', () => {
    const read = (where: string) => {
      const columns: string[] = [];
      compileWhere(where, FIELDS, new SqlParams(), { onField: (f) => columns.push(f.column) });
      return columns;
    };
    expect(read('1=1')).toEqual([]);
    expect(read("pop > 5 AND (name = 'x' OR UPPER(name) LIKE 'A%')")).toEqual(['pop', 'name', 'name']);
  });

  it('tells when the clause reads the clock, which changes the rows it selects without any edit', () => {
    const clock = (where: string) => {
      let read = false;
      compileWhere(where, FIELDS, new SqlParams(), { onClock: () => (read = true) });
      return read;
    };
    expect(clock("pop > 5 AND name = 'CURRENT_DATE'")).toBe(false);
    expect(clock("pop > 5 OR CURRENT_DATE > DATE '2020-01-01'")).toBe(true);
    expect(clock('EXTRACT(YEAR FROM CURRENT_TIMESTAMP) > 2000')).toBe(true);
  });

  it('whereReadsClock tells the same of a stored clause of a view layer without its fields', () => {
    expect(whereReadsClock("pop > 5 AND name = 'CURRENT_DATE'")).toBe(false);
    expect(whereReadsClock("Kind = 'public'")).toBe(false);
    expect(whereReadsClock("pop > 5 OR current_date > DATE '2020-01-01'")).toBe(true);
    expect(whereReadsClock('Ends > CURRENT_TIMESTAMP()')).toBe(true);
    expect(whereReadsClock('EXTRACT(YEAR FROM CURRENT_TIMESTAMP) > 2000')).toBe(true);
  });

  it('adds no parameters when the clause is rejected', () => {
    const p = new SqlParams();
    rejection(() => compileWhere("name = 'a' AND nope = 1", FIELDS, p));
    expect(p.values).toEqual([]);
  });

  it('doubles quotes in column names and aliases', () => {
    expect(compiled('"Odd ""Name""" IS NULL', 'a"b').sql).toBe('("a""b"."odd ""col""" IS NULL)');
    expect(renderWhereSql("DATE = 'x'", FIELDS)).toBe(`("date_text" = E'x'::text)`);
  });

  it('keeps integer literals exact: integer, bigint beyond int4, double beyond int8', () => {
    expect(compiled('big IN (2147483647, 2147483648, 9223372036854775807, 9223372036854775808)')).toEqual({
      sql: '("big" IN ($1::integer, $2::bigint, $3::bigint, $4::double precision))',
      values: [2147483647, '2147483648', '9223372036854775807', 9223372036854776000],
    });
  });

  it('compares date fields with literals in UTC, converting the literal (not the column)', () => {
    expect(compiled("created >= DATE '2020-01-01' AND created < TIMESTAMP '2020-01-02 00:00:00'")).toEqual({
      sql: `(("created" >= (($1::date)::timestamp AT TIME ZONE 'UTC')) AND ("created" < (($2::timestamp) AT TIME ZONE 'UTC')))`,
      values: ['2020-01-01', '2020-01-02 00:00:00'],
    });
    expect(compiled('EXTRACT(HOUR FROM created) = 1').sql).toBe(
      `((EXTRACT(HOUR FROM ("created" AT TIME ZONE 'UTC')))::integer = $1::integer)`,
    );
    expect(compiled('created > CURRENT_DATE').sql).toBe(
      `("created" > ((((CURRENT_TIMESTAMP AT TIME ZONE 'UTC')::date))::timestamp AT TIME ZONE 'UTC'))`,
    );
  });

  it('binds a GUID written with braces as uuid, and compares other strings as text', () => {
    expect(compiled("globalid = '{6F1D3C1A-0000-4000-8000-00000000000A}'")).toEqual({
      sql: '("globalid" = $1::uuid)',
      values: ['6f1d3c1a-0000-4000-8000-00000000000a'],
    });
    expect(compiled("globalid IN ('x', '6f1d3c1a-0000-4000-8000-00000000000a')").sql).toBe(
      '(("globalid")::text IN ($1::text, ($2::uuid)::text))',
    );
  });

  it('gives LIKE no escape character unless ESCAPE is given', () => {
    expect(compiled("name LIKE 'a\\%'")).toEqual({ sql: `("name" LIKE $1::text ESCAPE '')`, values: ['a\\%'] });
    expect(compiled("name NOT LIKE 'a!%' ESCAPE '!'")).toEqual({ sql: `("name" NOT LIKE $1::text ESCAPE $2::text)`, values: ['a!%', '!'] });
  });

  it('guards division, MOD and LOG against errors and does integer arithmetic in bigint', () => {
    expect(compiled('pop / small > 1').sql).toBe('((("pop")::double precision / NULLIF(("small")::double precision, 0)) > $1::integer)');
    expect(compiled('MOD(pop, small) = 1').sql).toBe('(mod("pop", NULLIF("small", 0)) = $1::integer)');
    expect(compiled('LOG(ratio) > 1').sql).toBe('(ln(NULLIF(GREATEST(("ratio")::double precision, 0), 0)) > $1::integer)');
    expect(compiled('pop * small > 1').sql).toBe('((("pop")::bigint * ("small")::bigint) > $1::integer)');
  });

  it('casts text to numbers through a bounded pattern, so non-numbers become NULL', () => {
    expect(compiled('CAST(name AS INT) = 1').sql).toBe(
      `((substring("name" FROM '^[[:space:]]*([+-]?0*[0-9]{1,9})[[:space:]]*$'))::integer = $1::integer)`,
    );
    expect(compiled('CAST(ratio AS INT) = 1').sql).toBe('((LEAST(GREATEST("ratio", -2147483648), 2147483647))::integer = $1::integer)');
  });

  it('never puts user text into the SQL', () => {
    const marker = "zz'; DROP TABLE t; --\\";
    const where = `name = '${marker.replace(/'/g, "''")}' OR UPPER(name) LIKE '${marker.replace(/'/g, "''")}'`;
    const { sql, values } = compiled(where);
    expect(sql).not.toContain('zz');
    expect(sql).not.toContain('DROP');
    expect(values).toEqual([marker, marker]);
  });
});

describe('renderWhereSql', () => {
  it('writes the same expression with escaped inline literals', () => {
    expect(renderWhereSql("pop > 5 AND name = 'O''Brien'", FIELDS, { alias: 't' })).toBe(
      `(("t"."pop" > (5)::integer) AND ("t"."name" = E'O''Brien'::text))`,
    );
    expect(renderWhereSql("created > DATE '2020-01-01' AND globalid = '{6F1D3C1A-0000-4000-8000-00000000000A}'", FIELDS)).toBe(
      `(("created" > ((DATE '2020-01-01')::timestamp AT TIME ZONE 'UTC')) AND ("globalid" = '6f1d3c1a-0000-4000-8000-00000000000a'::uuid))`,
    );
    expect(renderWhereSql("pop IN ('-5', 2.5e-7)", FIELDS)).toBe('("pop" IN ((-5)::integer, (2.5e-7)::double precision))');
  });

  it('escapes backslashes, quotes and line breaks inside E strings', () => {
    expect(renderWhereSql("name = 'a\\b''c' OR name = 'x\ny\tz\\'", FIELDS)).toBe(
      `(("name" = E'a\\\\b''c'::text) OR ("name" = E'x\\ny\\tz\\\\'::text))`,
    );
  });

  it('matches compileWhere except for the literals', () => {
    const where = "TRIM(BOTH 'x' FROM name) = 'a' AND ROUND(ratio, 2) > 1 AND created > CURRENT_TIMESTAMP - INTERVAL '2' HOUR";
    const { sql, values } = compiled(where);
    let i = 0;
    const inline = renderWhereSql(where, FIELDS);
    const literals = [`E'x'::text`, `E'a'::text`, '(2)::integer', '(1)::integer', '(2.0)::double precision'];
    expect(sql.replace(/\$\d+::(double precision|integer|text)/g, () => literals[i++])).toBe(inline);
    expect(values).toEqual(['x', 'a', 2, 1, 2]);
  });
});

describe('whereRuntimeError', () => {
  it('maps Postgres data exceptions (SQLSTATE 22xxx) to the same 400, and nothing else', () => {
    const e = whereRuntimeError({ code: '22003', message: 'value out of range: overflow' });
    expect(e?.code).toBe(400);
    expect(e?.details).toEqual(["The where clause cannot be evaluated on this layer's data (value out of range: overflow)."]);
    expect(whereRuntimeError({ code: '42883', message: 'function does not exist' })).toBeUndefined();
    expect(whereRuntimeError(new Error('x'))).toBeUndefined();
    expect(whereRuntimeError(null)).toBeUndefined();
  });
});
