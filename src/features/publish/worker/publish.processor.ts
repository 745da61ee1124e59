import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job, Worker } from 'bullmq';
import { ContentRepository } from '../../../content/content.repository';
import { FileStore } from '../../../content/file-store';
import { APP_CONFIG } from '../../../core/config/config.module';
import { AppConfig } from '../../../core/config/env';
import { gdalPgConnection } from '../../../core/database/gdal-pg';
import { JobName, jobSessionName, QueueName } from '../../../core/jobs/job.types';
import { JobsRepository } from '../../../core/jobs/jobs.repository';
import { JobsService } from '../../../core/jobs/jobs.service';
import { PermanentJobError, startQueueWorker } from '../../../core/jobs/queue-worker';
import { FeaturesRepository } from '../../features.repository';
import { PublishJobParams } from '../publish-request.service';
import { inspectSource, loadLayer, PublishAbortedError, PublishError } from '../index';
import { checkZipContents, checkZipDirectory, tooManyFeatures } from '../zip-limits';

const PROGRESS_EVERY_MS = 1000;
/** How often a running publish looks for its cancellation (a delete also ends its sessions at once). */
const CANCEL_POLL_MS = 500;

/** Runs publish jobs: inspects the uploaded file, defines the service's layers and loads them through GDAL. */
@Injectable()
export class PublishProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PublishProcessor.name);
  private worker?: Worker;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobsRepository,
    private readonly jobsService: JobsService,
    private readonly features: FeaturesRepository,
    private readonly content: ContentRepository,
    private readonly files: FileStore,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = startQueueWorker(
      QueueName.Publish,
      this.config,
      this.jobsService,
      { [JobName.PublishItem]: (job) => this.publish(job) },
      this.logger,
    );
  }

  /** Before the database closes: the running job finishes (and writes its result) first. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
  }

  private async publish(job: Job<{ jobId: string }>): Promise<void> {
    const row = await this.jobs.start(job.data.jobId);
    if (!row) return;
    const cancel = this.jobs.watchCancellation(row.id, CANCEL_POLL_MS);
    try {
      await this.run(job, row.id, row.params as unknown as PublishJobParams, cancel.signal);
    } catch (e) {
      // Cancelled (the service was deleted): the row already says so.
      if (cancel.signal.aborted || e instanceof PublishAbortedError) return;
      if (e instanceof PublishError) throw new PermanentJobError(e.message);
      throw e;
    } finally {
      cancel.stop();
    }
  }

  private async run(job: Job<{ jobId: string }>, jobId: string, p: PublishJobParams, signal: AbortSignal): Promise<void> {
    const service = await this.features.findServiceByItem(p.serviceItemId);
    if (!service) throw new PermanentJobError('The service item was deleted before publishing finished.');
    const storage = await this.content.findStorage(p.sourceItemId);
    if (!storage?.file_path) throw new PermanentJobError('The source file item no longer exists.');
    const file = this.files.absolute(storage.file_path);
    const { maxUnpackedBytes, maxFeatures } = this.config.publish;
    if (p.fileType === 'shapefile') {
      // GDAL trusts the zip's headers: they are checked, then every member is inflated and counted, before it reads.
      await checkZipDirectory(file, { maxUnpackedBytes, maxFeatures });
      await checkZipContents(file, { maxUnpackedBytes }, signal);
    }
    signal.throwIfAborted();
    const sources = await inspectSource(file, p.fileType, { csv: p.csv });
    const declared = sources.reduce((n, s) => n + s.featureCount, 0);
    if (declared > maxFeatures) throw tooManyFeatures(declared, maxFeatures);
    signal.throwIfAborted();
    // A retried attempt starts over: layers a failed attempt created are dropped with their data.
    const previous = await this.features.layers(service.item_id);
    if (previous.length)
      await this.features.deleteLayers(
        service.item_id,
        previous.map((l) => l.layer_id),
      );
    const added = await this.features.addLayers(
      service,
      sources.map((s) => ({ def: s.definition })),
    );
    if (typeof added === 'string') throw new PermanentJobError(added);
    const total = sources.reduce((n, s) => n + Math.max(1, s.featureCount), 0);
    let done = 0;
    let loaded = 0;
    let last = 0;
    for (const [i, src] of sources.entries()) {
      signal.throwIfAborted();
      const layer = (await this.features.layer(service.item_id, added[i].id))!;
      const result = await loadLayer(
        file,
        p.fileType,
        src,
        { pg: gdalPgConnection(this.config.databaseUrl), schema: service.schema_name, table: layer.table_name, srid: layer.srid },
        {
          signal,
          sessionName: jobSessionName(jobId, 'publish'),
          // The file's own counts can lie (a GeoPackage's cached count, a .shx): the load enforces the rest of the budget.
          maxFeatures: maxFeatures - loaded,
          onProgress: (fraction) => {
            const now = Date.now();
            if (now - last < PROGRESS_EVERY_MS) return;
            last = now;
            const pct = Math.round(((done + fraction * Math.max(1, src.featureCount)) / total) * 100);
            void job.updateProgress({ layer: i, layers: sources.length, percent: pct }).catch(() => undefined);
            void this.jobs.progress(jobId, `processing: ${pct}% (layer ${i + 1} of ${sources.length})`).catch(() => undefined);
          },
        },
      );
      loaded += result.loaded;
      done += Math.max(1, src.featureCount);
    }
    await this.jobs.finish(jobId, 'completed', 'completed');
  }
}
