import { parseWhere, printWhere } from '../../../src/where/compile';
import { FIELDS, bare, rejection } from './fixtures';

const print = (where: string) => printWhere(parseWhere(where, FIELDS));

describe('where parser: accepted clauses', () => {
  it.each([
    // the default clients send
    ['1=1', '1 = 1'],
    ['objectid = 5', 'OBJECTID = 5'],
    ['POP <> 5', 'POP <> 5'],
    ['pop != 5', 'POP <> 5'],
    ['pop < 5 AND pop <= 6 OR pop > 7 AND pop >= 8', 'POP < 5 AND POP <= 6 OR POP > 7 AND POP >= 8'],
    ["(pop < 5 OR pop > 7) AND name = 'x'", "(POP < 5 OR POP > 7) AND NAME = 'x'"],
    ['(((pop = 1)))', 'POP = 1'],
    ['pop = 1 and pop = 2 AnD pop = 3', 'POP = 1 AND POP = 2 AND POP = 3'],
    ['NOT pop = 1', 'NOT POP = 1'],
    ['not not pop = 1', 'NOT NOT POP = 1'],
    ['NOT (pop = 1 OR pop = 2)', 'NOT (POP = 1 OR POP = 2)'],
    ['pop = 1\n AND\tpop = 2\r\n', 'POP = 1 AND POP = 2'],
    // arithmetic and precedence
    ['pop + 2 * 3 > (pop - 1) / 2', 'POP + 2 * 3 > (POP - 1) / 2'],
    ['pop - (1 - 2) = 0', 'POP - (1 - 2) = 0'],
    ['(pop - 1) - 2 = 0', 'POP - 1 - 2 = 0'],
    ['pop * (2 + 3) = 0', 'POP * (2 + 3) = 0'],
    ['-pop < - 5', '-POP < -5'],
    ['- -5 = pop', '-(-5) = POP'],
    ['+pop = 1', 'POP = 1'],
    // IN, BETWEEN, IS NULL, LIKE
    ['pop IN (1, 2,3)', 'POP IN (1, 2, 3)'],
    ['pop NOT IN (1)', 'POP NOT IN (1)'],
    ['pop BETWEEN 1 AND 10', 'POP BETWEEN 1 AND 10'],
    ["pop NOT BETWEEN 1 AND 10 AND name = 'a'", "POP NOT BETWEEN 1 AND 10 AND NAME = 'a'"],
    ['name IS NULL', 'NAME IS NULL'],
    ['name is not null', 'NAME IS NOT NULL'],
    ["name LIKE 'A%'", "NAME LIKE 'A%'"],
    ["name NOT LIKE '_b%'", "NAME NOT LIKE '_b%'"],
    ["name LIKE '50!%' ESCAPE '!'", "NAME LIKE '50!%' ESCAPE '!'"],
    ["name like 'a\\%' escape '\\'", "NAME LIKE 'a\\%' ESCAPE '\\'"],
    ["globalid LIKE '6f%'", "GLOBALID LIKE '6f%'"],
    // literals
    ["name = 'O''Brien'", "NAME = 'O''Brien'"],
    ["name = ''", "NAME = ''"],
    ["name = 'Zürich ’q’ -- /* not a comment */ ;'", "NAME = 'Zürich ’q’ -- /* not a comment */ ;'"],
    ['ratio > 1.50', 'RATIO > 1.5'],
    ['ratio > 1e3', 'RATIO > 1000.0'],
    ['ratio < .5', 'RATIO < 0.5'],
    ['ratio < 2.5E-3', 'RATIO < 0.0025'],
    ['ratio < 7.', 'RATIO < 7.0'],
    ['pop = 007', 'POP = 7'],
    ['big = 9223372036854775807', 'BIG = 9223372036854775807'],
    ['ratio = 99999999999999999999', 'RATIO = 100000000000000000000.0'],
    ["created > DATE '2020-02-29'", "CREATED > DATE '2020-02-29'"],
    ["created >= timestamp '2020-01-01 12:30:00.123'", "CREATED >= TIMESTAMP '2020-01-01 12:30:00.123'"],
    ["created < date '2020-01-01 00:00:00'", "CREATED < TIMESTAMP '2020-01-01 00:00:00'"],
    ["created < TIMESTAMP '2020-01-01'", "CREATED < TIMESTAMP '2020-01-01 00:00:00'"],
    ['created > CURRENT_DATE', 'CREATED > CURRENT_DATE'],
    ['created < current_timestamp()', 'CREATED < CURRENT_TIMESTAMP'],
    ["created > CURRENT_TIMESTAMP - INTERVAL '7' DAY", "CREATED > CURRENT_TIMESTAMP - INTERVAL '7' DAY"],
    ["created > DATE '2020-01-01' + interval '1.5' hour", "CREATED > DATE '2020-01-01' + INTERVAL '1.5' HOUR"],
    // string literals meeting typed values are converted when they spell one
    ["pop = '5'", 'POP = 5'],
    ["pop IN ('5', '-6')", 'POP IN (5, -6)'],
    ["'5' IN (pop, 6)", '5 IN (POP, 6)'],
    ["created > '2020-01-01'", "CREATED > DATE '2020-01-01'"],
    ["created BETWEEN '2020-01-01' AND '2020-01-02 03:04:05'", "CREATED BETWEEN DATE '2020-01-01' AND TIMESTAMP '2020-01-02 03:04:05'"],
    ["globalid = '{6F1D3C1A-0000-4000-8000-00000000000A}'", "GLOBALID = '6f1d3c1a-0000-4000-8000-00000000000a'"],
    ["globalid = 'not-a-guid'", "GLOBALID = 'not-a-guid'"],
    ['globalid = owner_guid', 'GLOBALID = OWNER_GUID'],
    ['globalid = name', 'GLOBALID = NAME'],
    // functions
    ['EXTRACT(month FROM created) = 11', 'EXTRACT(MONTH FROM CREATED) = 11'],
    ['EXTRACT(SECOND FROM CURRENT_TIMESTAMP) >= 0', 'EXTRACT(SECOND FROM CURRENT_TIMESTAMP) >= 0'],
    ["upper(name) = 'X'", "UPPER(NAME) = 'X'"],
    ["LOWER(name) = 'x'", "LOWER(NAME) = 'x'"],
    ['CHAR_LENGTH(name) > 3', 'CHAR_LENGTH(NAME) > 3'],
    ["SUBSTRING(name FROM 1 FOR 2) = 'ab'", "SUBSTRING(NAME FROM 1 FOR 2) = 'ab'"],
    ["substring(name, 2) = 'b'", "SUBSTRING(NAME FROM 2) = 'b'"],
    ["substring(name, 2, 1) = 'b'", "SUBSTRING(NAME FROM 2 FOR 1) = 'b'"],
    ["TRIM(name) = 'a'", "TRIM(NAME) = 'a'"],
    ["TRIM(BOTH ' ' FROM name) = 'a'", "TRIM(BOTH ' ' FROM NAME) = 'a'"],
    ["TRIM(leading FROM name) = 'a'", "TRIM(LEADING FROM NAME) = 'a'"],
    ["TRIM('x' FROM name) = 'a'", "TRIM('x' FROM NAME) = 'a'"],
    ["POSITION('a' IN name) > 0", "POSITION('a' IN NAME) > 0"],
    ["CONCAT(name, '-', pop, globalid) = 'a-1'", "CONCAT(NAME, '-', POP, GLOBALID) = 'a-1'"],
    ["CAST(pop AS VARCHAR(10)) = '1'", "CAST(POP AS VARCHAR(10)) = '1'"],
    ["CAST(created AS varchar) = '1'", "CAST(CREATED AS VARCHAR) = '1'"],
    ['CAST(name AS INTEGER) = 1', 'CAST(NAME AS INT) = 1'],
    ['CAST(ratio AS DOUBLE PRECISION) > 1', 'CAST(RATIO AS DOUBLE) > 1'],
    ['CAST(ratio AS real) > CAST(pop AS float)', 'CAST(RATIO AS REAL) > CAST(POP AS FLOAT)'],
    ['CAST(ratio AS SMALLINT) = 1', 'CAST(RATIO AS SMALLINT) = 1'],
    ["CAST(created AS DATE) = DATE '2020-01-01'", "CAST(CREATED AS DATE) = DATE '2020-01-01'"],
    ["CAST('2020-01-01' AS DATE) < created", "DATE '2020-01-01' < CREATED"],
    ["CAST('2020-01-01 10:00:00' AS DATE) < created", "CAST(TIMESTAMP '2020-01-01 10:00:00' AS DATE) < CREATED"],
    ['CAST(CURRENT_DATE AS TIMESTAMP) < created', 'CAST(CURRENT_DATE AS TIMESTAMP) < CREATED'],
    ['ABS(pop) > 1', 'ABS(POP) > 1'],
    ['CEILING(ratio) = 2 AND FLOOR(ratio) = 1', 'CEILING(RATIO) = 2 AND FLOOR(RATIO) = 1'],
    ['ROUND(ratio) = 1 OR ROUND(ratio, 1) = 1.5', 'ROUND(RATIO) = 1 OR ROUND(RATIO, 1) = 1.5'],
    ['MOD(pop, 2) = 0', 'MOD(POP, 2) = 0'],
    ['POWER(pop, 2) > 4', 'POWER(POP, 2) > 4'],
    ['LOG(ratio) > 0 AND log10(pop) = 2', 'LOG(RATIO) > 0 AND LOG10(POP) = 2'],
    // identifiers
    ['"NAME" = \'x\'', "NAME = 'x'"],
    ['"name" = \'x\'', "NAME = 'x'"],
    ['"Odd ""Name""" = \'x\'', '"Odd ""Name""" = \'x\''],
    ["DATE = 'x'", '"DATE" = \'x\''],
    ['"DATE" = \'x\'', '"DATE" = \'x\''],
    ["UPPER(date) = 'X'", 'UPPER("DATE") = \'X\''],
  ])('%j', (where, printed) => {
    expect(print(where)).toBe(printed);
    // printing is a fixed point: the printed form parses back to itself
    expect(print(printed)).toBe(printed);
  });

  it('builds the expected trees', () => {
    expect(bare(parseWhere("pop = 1 AND (name LIKE 'a%' OR NOT ratio > 2.5)", FIELDS))).toEqual({
      kind: 'and',
      args: [
        { kind: 'compare', op: '=', left: { kind: 'field', name: 'POP' }, right: { kind: 'number', text: '1', numType: 'int' } },
        {
          kind: 'or',
          args: [
            { kind: 'like', negated: false, expr: { kind: 'field', name: 'NAME' }, pattern: { kind: 'string', value: 'a%' } },
            {
              kind: 'not',
              arg: {
                kind: 'compare',
                op: '>',
                left: { kind: 'field', name: 'RATIO' },
                right: { kind: 'number', text: '2.5', numType: 'float' },
              },
            },
          ],
        },
      ],
    });
    expect(bare(parseWhere('pop - 1 - 2 = -x', [...FIELDS, { name: 'x', type: 'esriFieldTypeInteger', column: 'x' }]))).toEqual({
      kind: 'compare',
      op: '=',
      left: {
        kind: 'arith',
        op: '-',
        left: { kind: 'arith', op: '-', left: { kind: 'field', name: 'POP' }, right: { kind: 'number', text: '1', numType: 'int' } },
        right: { kind: 'number', text: '2', numType: 'int' },
      },
      right: { kind: 'neg', arg: { kind: 'field', name: 'x' } },
    });
  });

  it('annotates types and resolved fields', () => {
    const t = parseWhere("CREATED > '2020-01-01'", FIELDS);
    expect(t).toMatchObject({
      type: 'bool',
      left: { type: 'timestamptz', field: { column: 'created' } },
      right: { kind: 'date', value: '2020-01-01', type: 'date', pos: 11 },
    });
  });

  it('resolves case-insensitively, exact spelling first, and reports ties', () => {
    const fields = [
      { name: 'a', type: 'esriFieldTypeInteger' as const, column: 'a1' },
      { name: 'A', type: 'esriFieldTypeInteger' as const, column: 'a2' },
    ];
    expect(parseWhere('A = 1', fields)).toMatchObject({ left: { field: { column: 'a2' } } });
    expect(rejection(() => parseWhere('"a" = 1 AND b = 1', fields)).details[0]).toBe("Unknown field 'b' at position 13.");
    const tie = [
      fields[0],
      { name: 'B', type: 'esriFieldTypeInteger' as const, column: 'b' },
      { name: 'b ', type: 'esriFieldTypeInteger' as const, column: 'c' },
    ];
    expect(parseWhere('b = 1', tie)).toMatchObject({ left: { field: { column: 'b' } } });
    const twins = [
      { name: 'Ab', type: 'esriFieldTypeInteger' as const, column: 'x' },
      { name: 'aB', type: 'esriFieldTypeInteger' as const, column: 'y' },
    ];
    expect(rejection(() => parseWhere('AB = 1', twins)).details[0]).toBe("Field name 'AB' is ambiguous at position 1.");
  });
});

describe('where parser: rejected clauses', () => {
  const ones = (n: number) => Array.from({ length: n }, () => '1').join(',');
  it.each([
    ['', 'The where clause is empty.'],
    ['  \n ', 'The where clause is empty.'],
    ['foo = 1', "Unknown field 'foo' at position 1."],
    ['pop = 1 AND FOO = 2', "Unknown field 'FOO' at position 13."],
    ['"nope" = 1', 'Quoted identifier "nope" is not a field of this layer at position 1.'],
    ['"" = 1', 'Empty quoted identifier at position 1.'],
    ['pop = pg_sleep(1)', "Unknown function 'pg_sleep' at position 7."],
    ['pop = (SELECT 1)', 'Subqueries are not allowed (SELECT) at position 8.'],
    ['pop = 1;', 'Semicolons are not allowed at position 8.'],
    ['pop = 1 -- x', 'Comments are not allowed at position 9.'],
    ['pop = /* x */ 1', 'Comments are not allowed at position 7.'],
    ["name = 'abc", 'Unterminated string at position 8.'],
    ['"name = 1', 'Unterminated quoted identifier at position 1.'],
    ['pop = 1 pop', "Unexpected 'pop' at position 9."],
    ['pop =', 'Unexpected the end of the where clause at position 6.'],
    ['pop = 1 OR', 'end of the where clause at position 11.'],
    ['(pop = 1', "Expected ')' but found the end of the where clause at position 9."],
    ['pop = 1 = 1', "Unexpected '=' at position 9."],
    ['pop', 'Expected a condition but found a number at position 1.'],
    ['pop = 1 AND 5', 'Expected a condition but found a number at position 13.'],
    ['(pop = 1) = (pop = 2)', 'Expected a value but found a condition at position 6.'],
    ['UPPER((pop = 1)) = 1', 'Expected a value but found a condition'],
    ['name LIKE 5', 'The LIKE pattern must be a string, not a number at position 11.'],
    ["pop LIKE '1%'", 'LIKE needs a string, not a number at position 5.'],
    ["created LIKE '2020%'", 'LIKE needs a string, not a date'],
    ["name LIKE 'a!' ESCAPE '!'", "The LIKE pattern ends with the escape character '!' at position 11."],
    ["name LIKE name ESCAPE '!'", 'With ESCAPE the LIKE pattern must be a string literal at position 11.'],
    ["name LIKE 'a' ESCAPE 'ab'", 'ESCAPE needs a one-character string at position 22.'],
    ["name LIKE 'a' ESCAPE ''", 'ESCAPE needs a one-character string'],
    ['name = 5', 'Cannot compare a string with a number using = at position 6.'],
    ["pop = 'abc'", "Cannot compare a number with the string 'abc' at position 7."],
    ['pop = created', 'Cannot compare a number with a date using ='],
    ['pop = globalid', 'Cannot compare a number with a GUID'],
    ['pop IN (1, name)', 'Cannot compare a number with a string at position 12.'],
    ["pop BETWEEN 1 AND 'x'", "Cannot compare a number with the string 'x'"],
    ["created > DATE '2021-02-29'", "Invalid DATE literal '2021-02-29'"],
    ["created > DATE '0000-01-01'", 'Invalid DATE literal'],
    ["created > TIMESTAMP '2021-01-01 24:00:00'", 'Invalid TIMESTAMP literal'],
    ["created > TIMESTAMP '2021-01-01T00:00:00'", 'Invalid TIMESTAMP literal'],
    ["created > '2021-13-01'", "Cannot compare a date with the string '2021-13-01'"],
    ['created > 5', 'Cannot compare a date with a number'],
    ["created > INTERVAL '3' DAY", 'Cannot compare a date with an interval'],
    ["created > CURRENT_DATE - INTERVAL 'x' DAY", "Invalid INTERVAL value 'x'"],
    ["created > CURRENT_DATE - INTERVAL '1e12' SECOND", 'Invalid INTERVAL value'],
    ["created > CURRENT_DATE - INTERVAL '1' WEEK", "Expected DAY, HOUR, MINUTE or SECOND but found 'WEEK'"],
    ["pop = -INTERVAL '1' DAY", 'Unary minus needs a number, not an interval'],
    ['created - created > 1', 'Operator - cannot combine a date with a date'],
    ["name + 'a' = 'b'", 'Operator + cannot combine a string with a string at position 6.'],
    ["pop + '1' = 2", 'Operator + cannot combine a number with a string'],
    ['CAST(pop AS TEXT) = 1', "Unknown type 'TEXT' in CAST"],
    ['CAST(pop AS) = 1', "Unknown type ')' in CAST"],
    ["CAST(name AS DATE) = DATE '2020-01-01'", 'Cannot CAST a string to DATE at position 1.'],
    ["CAST('2020-02-30' AS DATE) = created", "Invalid date '2020-02-30' in CAST"],
    ['CAST(created AS INT) = 1', 'Cannot CAST a date to INT'],
    ["CAST(pop AS VARCHAR(0)) = 'a'", 'VARCHAR length must be between 1 and 10485760'],
    ["CAST(pop AS VARCHAR(99999999)) = 'a'", 'VARCHAR length must be between 1 and 10485760'],
    ['pop IN ()', 'The IN list is empty at position 8.'],
    [`pop IN (${ones(1001)})`, 'The IN list has more than 1000 values at position 8.'],
    ['name = NULL', 'NULL is only allowed in IS NULL and IS NOT NULL at position 8.'],
    ['pop IN (1, NULL)', 'NULL is only allowed'],
    ['name IS 5', 'Expected NULL but found number 5 at position 9.'],
    ["UPPER(pop) = 'a'", 'UPPER needs a string, not a number at position 7.'],
    ["UPPER(name, name) = 'a'", 'UPPER takes 1 argument, not 2 at position 1.'],
    ["ROUND() = 'a'", 'ROUND takes 1 or 2 arguments, not 0'],
    ["CONCAT(name) = 'a'", 'CONCAT takes at least 2 arguments, not 1'],
    ["CONCAT(name, created) = 'a'", 'CONCAT needs strings or numbers, not a date'],
    ['MOD(pop) = 1', 'MOD takes 2 arguments, not 1'],
    ["SUBSTRING(name FROM 'a') = 'b'", 'SUBSTRING needs a number, not a string'],
    ["TRIM(BOTH name) = 'a'", "Expected FROM but found ')'"],
    ['POSITION(1 IN name) = 1', 'POSITION needs a string, not a number'],
    ['EXTRACT(WEEK FROM created) = 1', "Expected YEAR, MONTH, DAY, HOUR, MINUTE or SECOND but found 'WEEK'"],
    ['EXTRACT(YEAR FROM pop) = 1', 'EXTRACT needs a date, not a number'],
    ['pop = 1e999', "Number '1e999' is out of range at position 7."],
    ['pop = 1.2.3', "Invalid number '1.2.' at position 7."],
    ['pop = 12abc', "Invalid number '12a' at position 7."],
    ['pop = 1e', "Invalid number '1e' at position 7."],
    ['pop = 0x10', "Invalid number '0x' at position 7."],
    ['[pop] = 1', "Unexpected character '[' at position 1."],
    ['pop = 1 & 1', "Unexpected character '&'"],
    ['pop == 1', "Unexpected '=' at position 6."],
    ['name = ’x’', "Unexpected character '’' (strings are quoted with ') at position 8."],
    ['name = `x`', "Unexpected character '`'"],
    ['pop = 1\u0000', 'Control character U+0000 is not allowed at position 8.'],
    ["name = 'a\u0007b'", 'Control character U+0007 is not allowed at position 10.'],
    ['pop = 1\u0085', 'Control character U+0085'],
    ['AND = 1', "Unexpected keyword 'AND' at position 1."],
    ['pop = FROM', "Unexpected keyword 'FROM'"],
    ["pop = N'x'", "Unexpected string 'x' at position 8."],
    ['pop NOT = 1', "Unexpected 'NOT' at position 5."],
    ['x'.repeat(10001), 'The where clause is longer than 10000 characters.'],
    ['('.repeat(101) + 'pop = 1' + ')'.repeat(101), 'Nesting is deeper than 100 levels at position 101.'],
    ['1' + '+1'.repeat(150) + ' = 1', 'Nesting is deeper than 100 levels'],
    ['NOT '.repeat(150) + 'pop = 1', 'Nesting is deeper than 100 levels'],
    ['pop = ' + '-'.repeat(1) + ' -'.repeat(150) + '1', 'Nesting is deeper than 100 levels'],
  ])('%j', (where, detail) => {
    expect(rejection(() => parseWhere(where, FIELDS)).details[0]).toContain(detail);
  });

  it('honours configured limits', () => {
    expect(rejection(() => parseWhere('pop = 12', FIELDS, { maxLength: 7 })).details).toEqual([
      'The where clause is longer than 7 characters.',
    ]);
    expect(parseWhere('pop = 1', FIELDS, { maxLength: 7 })).toBeDefined();
    expect(rejection(() => parseWhere('pop IN (1,2,3)', FIELDS, { maxInList: 2 })).details[0]).toContain('more than 2 values');
    expect(parseWhere('pop IN (1,2)', FIELDS, { maxInList: 2 })).toBeDefined();
    expect(rejection(() => parseWhere('(((pop = 1)))', FIELDS, { maxDepth: 2 })).details[0]).toContain('deeper than 2 levels');
    expect(rejection(() => parseWhere('pop = 1 + 1', FIELDS, { maxDepth: 2 })).details[0]).toContain('deeper than 2 levels');
    expect(parseWhere('pop = 1', FIELDS, { maxDepth: 2 })).toBeDefined();
  });

  it('rejects input that is not a string', () => {
    expect(rejection(() => parseWhere(undefined as unknown as string, FIELDS)).details).toEqual(['The where clause must be text.']);
    expect(rejection(() => parseWhere(['1=1'] as unknown as string, FIELDS)).details).toEqual(['The where clause must be text.']);
  });
});
