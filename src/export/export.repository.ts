import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { JobsRepository } from '../core/jobs/jobs.repository';
import { ExportJobParams } from './export-parameters';

export interface NewExport {
  jobId: string;
  itemId: string;
  ownerId: string;
  orgId: string;
  title: string;
  itemType: string;
  serviceItemId: string;
  params: ExportJobParams;
}

@Injectable()
export class ExportRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly jobs: JobsRepository,
  ) {}

  /** The result item (processing) and the job row (queued), committed together before anything is enqueued. */
  async create(e: NewExport): Promise<void> {
    await this.db.transaction(async (m) => {
      await m.query(
        `INSERT INTO items (id, owner_id, org_id, title, type, type_keywords, tags, status, status_message)
         VALUES ($1, $2, $3, $4, $5, $6, '{}', 'processing', 'processing')`,
        [e.itemId, e.ownerId, e.orgId, e.title, e.itemType, ['Data', 'Export']],
      );
      await this.jobs.create(
        { id: e.jobId, type: 'export', ownerId: e.ownerId, sourceItemId: e.serviceItemId, resultItemId: e.itemId, params: e.params },
        m,
      );
    });
  }

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
