/** Hostile where clauses, shared by the unit suite and the end-to-end suite (which runs them on a real table). */

const big = (n: number, unit: string) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

/**
 * Inputs an attacker might send, each with the substring its detail must contain. Shared with the end-to-end
 * suite, which also runs them against a real table.
 */
export const HOSTILE: [string, string][] = [
  // statement stacking and comments
  ['1=1; DROP TABLE x', 'Semicolons are not allowed at position 4'],
  ['1=1;', 'Semicolons'],
  ["name = 'a'; DELETE FROM t", 'Semicolons'],
  ['1=1 -- ', 'Comments are not allowed'],
  ['1=1 --', 'Comments'],
  ['pop = 1/**/OR 1=1', 'Comments'],
  ['pop = 1 /* */', 'Comments'],
  ['pop = 1 */', 'Unexpected'],
  ['pop = 1 #', "Unexpected character '#'"],
  // classic quote breaking
  ["' OR '1'='1", 'Unexpected number 1 at position 7'],
  ["' OR 1=1", 'Unterminated string at position 1'],
  ["name = 'x' OR 'a'='a", 'Unterminated string'],
  ["name = 'x'' OR 1=1 --", 'Unterminated string'],
  ["admin' --", 'Unterminated string'],
  ["name = 'a' UNION SELECT usename FROM pg_user", "Unexpected 'UNION'"],
  // functions and subqueries
  ['pg_sleep(10)', "Unknown function 'pg_sleep'"],
  ['pop = pg_sleep(10)', "Unknown function 'pg_sleep'"],
  ['1=1 AND pg_sleep(10) IS NULL', "Unknown function 'pg_sleep'"],
  ['version() IS NOT NULL', "Unknown function 'version'"],
  ["current_setting('is_superuser') = 'on'", "Unknown function 'current_setting'"],
  ["pg_read_file('/etc/passwd') = 'x'", "Unknown function 'pg_read_file'"],
  ["lo_import('/etc/passwd') = 1", "Unknown function 'lo_import'"],
  ['pop = (SELECT 1)', 'Subqueries are not allowed'],
  ['pop IN (SELECT objectid FROM t)', 'Subqueries are not allowed'],
  ['EXISTS(SELECT 1 FROM pg_user)', "Unknown function 'EXISTS'"],
  ['EXISTS (SELECT 1 FROM pg_catalog.pg_shadow)', "Unexpected character '.'"],
  ['EXISTS (SELECT 1 FROM pg_shadow)', "Unknown function 'EXISTS'"],
  ['pop = (select count(*) from pg_class)', 'Subqueries are not allowed'],
  ['pg_catalog.pg_user IS NULL', "Unexpected character '.'"],
  ['"pg_catalog"."pg_user" IS NULL', "Unexpected character '.'"],
  ['"pg_user" IS NULL', 'Quoted identifier "pg_user" is not a field'],
  ['current_user = name', "Unknown field 'current_user'"],
  ['session_user IS NULL', "Unknown field 'session_user'"],
  ['pop::text = name', "Unexpected character ':'"],
  ["name = 'a' || 'b'", "Unexpected character '|'"],
  ["name ~ 'a'", "Unexpected character '~'"],
  ['CAST(pop AS regclass) = 1', "Unknown type 'regclass'"],
  ['CAST(pop AS VARCHAR(1)); DROP TABLE t', 'Semicolons'],
  ['CASE WHEN 1=1 THEN 1 END = 1', "Unexpected 'WHEN'"],
  ['$1 = 1', "Unexpected character '$'"],
  ['pop = $$x$$', "Unexpected character '$'"],
  ["E'\\x27' = name", 'Unexpected string'],
  ['U&"\\0061" = 1', "Unexpected character '&'"],
  // quoted identifiers used to smuggle SQL
  ['"name""; DROP TABLE t; --" = 1', 'is not a field'],
  ['"pop" = 1 OR "1"="1"', 'Quoted identifier "1" is not a field'],
  ['[pop] = 1', "Unexpected character '['"],
  ['`pop` = 1', "Unexpected character '`'"],
  // look-alike quotes
  ['name = ’x’ OR ’1’=’1’', "Unexpected character '’'"],
  ['name = ʼxʼ', "Unexpected character 'ʼ'"],
  ['name = ＇x＇', "Unexpected character '＇'"],
  ['name = “x”', "Unexpected character '“'"],
  // backslash tricks: backslash is an ordinary character in ArcGIS strings, and outside them it is rejected
  ["name = '\\' OR 1=1 --'", 'Comments are not allowed'],
  ["name = '\\' OR 1=1 OR 'a'", 'Expected a condition but found a string'],
  ["name = 'a\\'' OR 1=1", 'Unterminated string'],
  ['name = \\x27', "Unexpected character '\\'"],
  // control characters and NUL
  ["name = 'a\u0000' OR 1=1", 'Control character U+0000'],
  ['1=1\u0000; DROP TABLE x', 'Control character U+0000'],
  ['pop = 1\u001a', 'Control character U+001A'],
  ['pop = 1\u001b[31m', 'Control character U+001B'],
  ['pop\u00a0= 1', "Unexpected character ' '"],
  ['pop\u2028= 1', 'Unexpected character'],
  ['pop = 1\u202e', 'Unexpected character'],
  ['\ufeffpop = 1', 'Unexpected character'],
  // size and nesting
  [big(10_001, 'pop = 1 OR '), 'longer than 10000 characters'],
  [big(10_000_000, "'"), 'longer than 10000 characters'],
  ['('.repeat(5_000) + 'pop = 1' + ')'.repeat(4_993), 'Nesting is deeper than 100 levels'],
  ['('.repeat(9_999), 'Nesting is deeper than 100 levels'],
  ['NOT '.repeat(2_400) + 'pop = 1', 'Nesting is deeper than 100 levels'],
  ['pop = ' + '- '.repeat(4_000) + '1', 'Nesting is deeper than 100 levels'],
  ['pop = ' + 'UPPER('.repeat(1_500), 'Nesting is deeper than 100 levels'],
  ['pop = 1' + ' + 1'.repeat(2_000), 'Nesting is deeper than 100 levels'],
  [`pop IN (${Array.from({ length: 1_001 }, (_, i) => i).join(',')})`, 'The IN list has more than 1000 values'],
  [`pop IN (${'1,'.repeat(4_900)}1)`, 'The IN list has more than 1000 values'],
  [`CONCAT(${'pop,'.repeat(1_000)}pop) = 'x'`, 'CONCAT has too many arguments'],
  // string growth: CONCATs of CONCATs copy a long field thousands of times per row (3,200 here)
  [
    `CHAR_LENGTH(CONCAT(${Array(40)
      .fill(`CONCAT(${Array(40).fill('name').join(',')})`)
      .join(',')})) > 0`,
    'copy field values 3200 times per row (at most 64)',
  ],
  [
    Array(5)
      .fill(`CHAR_LENGTH(CONCAT(${Array(13).fill('name').join(',')})) > 0`)
      .join(' OR '),
    'copy field values 65 times per row',
  ],
  // pathological lexer input
  [`name = '${"''".repeat(4_990)}`, 'Unterminated string'],
  [`"${'""'.repeat(4_990)}`, 'Unterminated quoted identifier'],
  ['9'.repeat(9_999), 'out of range'],
  [`1${'0'.repeat(400)} = pop`, 'out of range'],
  [`1e${'9'.repeat(9_000)} = pop`, 'out of range'],
  ['pop = 1' + 'e'.repeat(9_000), 'Invalid number'],
  [big(9_999, 'a'), "Unknown field 'aaaa"],
  [big(9_999, '1.'), 'Invalid number'],
];

/** Clauses that look dangerous but are plain values: accepted, with the text only ever in bound parameters. */
export const HARMLESS: string[] = [
  "name = '1=1; DROP TABLE x'",
  "name = ''' OR ''1''=''1'",
  "name = 'x''; DROP TABLE t; --'",
  "name = 'pg_sleep(10)' OR name = '(SELECT 1)'",
  "name = '/* */ -- ; \\'",
  "name LIKE '%''; DROP TABLE t; --%'",
  "name LIKE '%\\%' ESCAPE '\\'",
  "UPPER(name) = 'EXISTS(SELECT 1 FROM PG_USER)'",
  "name = '’ ʼ ＇'",
  "name = '' OR '1'='1'",
  // string growth at the bound: 64 copies of a field per row
  Array(4)
    .fill(`CONCAT(${Array(16).fill('name').join(',')}) = 'x'`)
    .join(' OR '),
];
