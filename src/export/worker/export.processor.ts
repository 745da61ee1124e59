import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job, Worker } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FileStore } from '../../content/file-store';
import { APP_CONFIG } from '../../core/config/config.module';
import { AppConfig } from '../../core/config/env';
import { gdalPgConnection } from '../../core/database/gdal-pg';
import { JobName, jobSessionName, QueueName } from '../../core/jobs/job.types';
import { JobsRepository } from '../../core/jobs/jobs.repository';
import { JobsService } from '../../core/jobs/jobs.service';
import { PermanentJobError, startQueueWorker } from '../../core/jobs/queue-worker';
import { FeaturesRepository } from '../../features/features.repository';
import { renderWhereSql } from '../../features/where/compile';
import { ExportJobParams } from '../export-parameters';
import { ExportLayerSource, ExportWriteError, writeExport } from '../writer';

const CANCEL_POLL_MS = 2000;
const PROGRESS_EVERY_MS = 1000;
const SWEEP_EVERY_MS = 10 * 60_000;

/** Runs export jobs: reads layers from PostGIS with GDAL, writes the file, and completes the result item. */
@Injectable()
export class ExportProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ExportProcessor.name);
  private worker?: Worker;
  private sweeper?: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobsRepository,
    private readonly jobsService: JobsService,
    private readonly features: FeaturesRepository,
    private readonly files: FileStore,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = startQueueWorker(
      QueueName.Export,
      this.config,
      this.jobsService,
      { [JobName.ExportItem]: (job) => this.exportItem(job) },
      this.logger,
    );
    const sweep = () => this.sweep().catch((e) => this.logger.warn(`temp sweep failed: ${(e as Error).message}`));
    void sweep();
    this.sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  }

  /**
   * A killed worker leaves its temporary folder behind. Folders of finished jobs are removed; a job still running
   * elsewhere keeps its folder (the folder name carries the job id).
   */
  private async sweep(): Promise<void> {
    const tmp = path.resolve(this.config.dataDir, 'tmp');
    const entries = await fs.readdir(tmp).catch(() => [] as string[]);
    for (const name of entries) {
      const m = /^export-([0-9a-f]{32})-/.exec(name);
      if (!m) continue;
      const row = await this.jobs.find(m[1]).catch(() => undefined);
      if (row === undefined || (row && (row.status === 'queued' || row.status === 'processing'))) continue;
      await fs.rm(path.join(tmp, name), { recursive: true, force: true });
    }
  }

  /** SIGTERM: running exports finish (and write their result) before the database closes; a killed process's job is handed on. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    await this.worker?.close();
  }

  private async exportItem(job: Job<{ jobId: string }>): Promise<void> {
    const row = await this.jobs.start(job.data.jobId);
    if (!row) return; // finished, cancelled or deleted meanwhile: nothing to do
    const params = row.params as unknown as ExportJobParams;
    const layers = await this.sources(params);
    const workDir = path.resolve(this.config.dataDir, 'tmp', `export-${row.id}-${randomBytes(4).toString('hex')}`);
    await fs.mkdir(workDir, { recursive: true });
    const cancel = this.jobs.watchCancellation(row.id, CANCEL_POLL_MS);
    let lastProgress = 0;
    try {
      const out = await writeExport({
        format: params.format,
        layers,
        target: params.targetSR,
        pg: gdalPgConnection(this.config.databaseUrl),
        workDir,
        baseName: params.title,
        signal: cancel.signal,
        zipLevel: this.config.exportZipLevel,
        sessionName: jobSessionName(row.id, 'export'),
        onProgress: (p) => {
          const now = Date.now();
          if (now - lastProgress < PROGRESS_EVERY_MS && p.fraction < 1) return;
          lastProgress = now;
          const pct = Math.round(((p.layerIndex + p.fraction) / p.layerCount) * 100);
          void job.updateProgress({ layer: p.layerIndex, layers: p.layerCount, percent: pct }).catch(() => undefined);
          void this.jobs
            .progress(row.id, `processing: ${pct}% (layer ${p.layerIndex + 1} of ${p.layerCount}) ${p.message}`.trim())
            .catch(() => undefined);
        },
      });
      if (cancel.signal.aborted) return;
      await this.complete(row.id, row.result_item_id!, out);
    } catch (e) {
      if (cancel.signal.aborted) return; // cancelled: the row already says so
      if (e instanceof ExportWriteError) throw new PermanentJobError(e.message);
      throw e;
    } finally {
      cancel.stop();
      await fs.rm(workDir, { recursive: true, force: true });
    }
  }

  /** The file is moved into place before the row says completed, so a completed item always has its file. */
  private async complete(jobId: string, itemId: string, out: { path: string; fileName: string; contentType: string; size: number }) {
    const filePath = await this.files.adopt(itemId, out.path, out.fileName);
    const done = await this.jobs.finish(jobId, 'completed', 'completed', {
      size: out.size,
      filePath,
      name: out.fileName,
      contentType: out.contentType,
    });
    // Not finished by us: cancelled, or failed meanwhile (a stall past its lock, the reconciler): such an item must
    // have no file, so drop the one just moved in. Completed by an earlier delivery of the same job: the file is
    // the same export; keep it.
    if (!done && (await this.jobs.find(jobId))?.status !== 'completed') await this.files.removeItemFolder(itemId);
  }

  /** Layers as they are now: a layer or service deleted while the job waited fails the job with a message. */
  private async sources(p: ExportJobParams): Promise<ExportLayerSource[]> {
    const service = await this.features.findServiceByItem(p.serviceItemId);
    if (!service) throw new PermanentJobError('The feature service no longer exists.');
    return Promise.all(
      p.layers.map(async (l) => {
        const layer = await this.features.layer(p.serviceItemId, l.id);
        if (!layer) throw new PermanentJobError(`Layer ${l.id} no longer exists in the service.`);
        return {
          id: layer.layer_id,
          name: layer.name,
          schema: service.schema_name,
          table: layer.table_name,
          fields: layer.fields,
          geometryType: layer.geometry_type,
          srid: layer.srid,
          where: renderWhereSql(l.where, layer.fields),
          includeGeometry: l.includeGeometry,
          xColumnName: l.xColumnName,
          yColumnName: l.yColumnName,
        };
      }),
    );
  }
}
