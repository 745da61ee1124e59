import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** What an export request asks PostGIS before it is queued; the result item and job row are written by their owners. */
@Injectable()
export class ExportRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Whether PostGIS (PROJ) understands a WKT spatial reference; checked before queueing. */
  async wktUsable(wkt: string): Promise<boolean> {
    // The worker takes WKT only (never PROJ strings or names), so the request is held to the same rule.
    if (!/^[A-Za-z_]+\s*\[/.test(wkt.trim())) return false;
    try {
      await this.db.query(`SELECT ST_Transform(ST_SetSRID(ST_MakePoint(0, 0), 4326), $1::text)`, [wkt]);
      return true;
    } catch {
      return false;
    }
  }
}
