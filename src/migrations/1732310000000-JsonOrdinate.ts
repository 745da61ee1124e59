import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One coordinate of a point as query replies print it: PostGIS's GeoJSON text of it (15 decimals), read back and
 * printed as JavaScript does (arcgis_json_number). Query replies write most points from the numbers themselves and
 * call this only for coordinates where that text would differ: below 10 with more than 15 decimals, very small or
 * very large ones, zero.
 */
export class JsonOrdinate1732310000000 implements MigrationInterface {
  name = 'JsonOrdinate1732310000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION arcgis_json_ordinate(v double precision) RETURNS text
      LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
      DECLARE
        printed double precision := split_part(substr(ST_AsGeoJSON(ST_MakePoint(v, 0), 15, 0), 32), ',', 1)::float8;
      BEGIN
        RETURN CASE WHEN abs(printed) >= 1e-4 AND abs(printed) < 1e15 THEN printed::text ELSE arcgis_json_number(printed) END;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION arcgis_json_ordinate(double precision)`);
  }
}
