import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { visibleSql } from '../content/item-sql';
import { Caller } from '../core/auth/caller';
import { ListingDatabase } from '../core/database/request-pools.module';
import { SqlParams } from '../core/database/sql-params';

/** Web Mercator stops short of the poles: an extent reaching them would be infinitely tall. */
const MERCATOR_LAT = 85.05112878;

/** What the catalog and the map preview read besides what FeatureServerService already answers. */
@Injectable()
export class DirectoryRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly listing: ListingDatabase,
  ) {}

  /** Names of the hosted services whose items the caller may see (a listing: on the listing pool, as searches are). */
  async visibleServiceNames(caller: Caller | undefined): Promise<string[]> {
    const p = new SqlParams();
    const rows = await this.listing.query<{ name: string }>(
      `SELECT s.name FROM feature_services s JOIN items i ON i.id = s.item_id
        WHERE ${visibleSql('i', caller, p)} ORDER BY lower(s.name)`,
      p.values,
    );
    return rows.map((r) => r.name);
  }

  /**
   * A layer's extent in Web Mercator (EPSG:3857), for the map preview to fit. The envelope is densified before it is
   * reprojected so a curved edge in the target still bounds what it held; latitudes beyond Mercator's are cut off.
   */
  async mercatorExtent(e: { xmin: number; ymin: number; xmax: number; ymax: number }, srid: number): Promise<number[] | null> {
    const rows: { xmin: number | null; ymin: number; xmax: number; ymax: number }[] = await this.db.query(
      `WITH env AS (SELECT ST_MakeEnvelope($1, $2, $3, $4, $5) AS g),
            geo AS (SELECT ST_Intersection(ST_Transform(ST_Segmentize(g, greatest(ST_XMax(g) - ST_XMin(g), ST_YMax(g) - ST_YMin(g), 1e-9) / 32), 4326),
                                           ST_MakeEnvelope(-180, -$6::float8, 180, $6::float8, 4326)) AS g FROM env),
            merc AS (SELECT ST_Transform(g, 3857) AS g FROM geo WHERE NOT ST_IsEmpty(g))
       SELECT ST_XMin(g) AS xmin, ST_YMin(g) AS ymin, ST_XMax(g) AS xmax, ST_YMax(g) AS ymax FROM merc`,
      [e.xmin, e.ymin, e.xmax, e.ymax, srid, MERCATOR_LAT],
    );
    const r = rows[0];
    return r && r.xmin !== null ? [r.xmin, r.ymin, r.xmax, r.ymax] : null;
  }
}
