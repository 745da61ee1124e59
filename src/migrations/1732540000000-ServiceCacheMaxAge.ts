import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A service's cacheMaxAge (ArcGIS's adminServiceInfo.cacheMaxAge, in seconds): how long a shared cache may serve its
 * anonymous query replies. NULL follows the deployment's CACHE_MAX_AGE_S.
 */
export class ServiceCacheMaxAge1732540000000 implements MigrationInterface {
  name = 'ServiceCacheMaxAge1732540000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE feature_services ADD COLUMN cache_max_age integer CHECK (cache_max_age BETWEEN 0 AND 86400)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE feature_services DROP COLUMN cache_max_age`);
  }
}
