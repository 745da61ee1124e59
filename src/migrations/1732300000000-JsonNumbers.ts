import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rare cases of printing numbers as JavaScript does, for query replies PostgreSQL writes (feature-server/query/json-sql.ts
 * handles the common case inline). As functions they are planned once, not expanded into every reply's statement.
 *
 * PostgreSQL and V8 print the same shortest digits of a double but switch to exponent notation at different
 * magnitudes (PostgreSQL outside [1e-4, 1e15), V8 outside [1e-6, 1e21), and V8 writes 1e-7 where PostgreSQL writes
 * 1e-07). Beyond 2^53 PostgreSQL's digits can also be one longer: it never prints a midpoint to the neighbouring
 * double, V8 does when the significand is even (that midpoint reads back as the double, as PostgreSQL's own input
 * confirms). Such a midpoint is an integer ending in zero: the digits with the last one dropped or raised.
 */
export class JsonNumbers1732300000000 implements MigrationInterface {
  name = 'JsonNumbers1732300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION arcgis_json_number(v double precision) RETURNS text
      LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
      DECLARE
        t text := v::text;
        digits int;
        scale int;
        down numeric;
        up numeric;
        shorter numeric;
        c text;
      BEGIN
        IF t IN ('NaN', 'Infinity', '-Infinity') THEN RETURN 'null'; END IF;
        IF v = 0 THEN RETURN '0'; END IF;
        IF abs(v) >= 1e-4 AND abs(v) < 1e15 THEN RETURN t; END IF;
        IF abs(v) < 1e-6 THEN RETURN replace(t, 'e-0', 'e-'); END IF;
        IF abs(v) < 9007199254740992 THEN RETURN t::numeric::text; END IF;
        digits := length(regexp_replace(split_part(t, 'e', 1), '[-.]', '', 'g'));
        scale := split_part(t, 'e', 2)::int - digits + 2;
        down := trunc(t::numeric, -scale);
        up := down + sign(v)::numeric * ('1e' || scale)::numeric;
        IF down::float8 = v THEN
          shorter := down;
        ELSIF abs(up) < 1.797693134862316e308 AND up::float8 = v THEN -- past the largest double it would not read back
          shorter := up;
        END IF;
        IF abs(v) < 1e21 THEN RETURN coalesce(shorter, t::numeric)::text; END IF;
        IF shorter IS NULL THEN RETURN t; END IF;
        c := abs(shorter)::text;
        RETURN CASE WHEN v < 0 THEN '-' ELSE '' END || left(c, 1)
          || CASE WHEN length(rtrim(c, '0')) > 1 THEN '.' || substr(rtrim(c, '0'), 2) ELSE '' END
          || 'e+' || (length(c) - 1);
      END $$`);
    // Every number of a GeoJSON coordinates text, re-read and printed as above.
    await q.query(`
      CREATE FUNCTION arcgis_json_coordinates(coordinates text) RETURNS text
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT string_agg(CASE WHEN tok ~ '^[-0-9]' THEN arcgis_json_number(tok::float8) ELSE tok END, '' ORDER BY i)
          FROM regexp_matches(coordinates, '[^][,]+|[][,]+', 'g') WITH ORDINALITY AS m(parts, i), LATERAL (SELECT parts[1] AS tok) p
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION arcgis_json_coordinates(text)`);
    await q.query(`DROP FUNCTION arcgis_json_number(double precision)`);
  }
}
