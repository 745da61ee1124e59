import { Inject, Injectable } from '@nestjs/common';
import { ContentRepository } from '../content/content.repository';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { gdalPgConnection } from '../core/database/gdal-pg';
import { ArcgisError } from '../core/errors/arcgis-error';
import { InvalidInputError } from '../core/errors/invalid-input';
import { PermanentJobError } from '../core/jobs/failure';
import { defineJob, JobContext, JobHandler, JobOutcome } from '../core/jobs/job-contract';
import { FileStore } from '../core/storage/file-store';
import { UserCallers } from '../identity/user-callers';
import { LayersRepository, LayerDefinitionError } from '../layers/layers.repository';
import { assertMayCreateService } from '../layers/service-access';
import { PublishError } from './errors';
import { PUBLISH_FILE_TYPES, PublishFileType } from './file-types';
import { publishableSource } from './publish-access';
import { checkZipContents, checkZipDirectory, tooManyFeatures } from './zip-limits';

/** What the publish job row stores for the worker. */
export interface PublishJobParams {
  fileType: PublishFileType;
  sourceItemId: string;
  serviceItemId: string;
  /** Who asked (the service's owner): the job asks the request's rules about them again when it runs. */
  requesterId: string;
  csv?: { xField?: string; yField?: string };
}

const ID = /^[0-9a-f]{32}$/;

/** The spec of a publish job's parameters, for the request (before storing) and the worker (after reading). */
export function publishJobParams(raw: unknown): PublishJobParams {
  const r = (raw ?? {}) as Record<string, unknown>;
  if (typeof r.fileType !== 'string' || !Object.hasOwn(PUBLISH_FILE_TYPES, r.fileType))
    throw new InvalidInputError(`Unsupported filetype '${String(r.fileType).slice(0, 32)}'.`);
  if (typeof r.sourceItemId !== 'string' || !ID.test(r.sourceItemId)) throw new InvalidInputError('The publish job names no source item.');
  if (typeof r.serviceItemId !== 'string' || !ID.test(r.serviceItemId)) throw new InvalidInputError('The publish job names no service.');
  // A job stored before the requester was recorded cannot be checked again, so it cannot run.
  if (typeof r.requesterId !== 'string' || !ID.test(r.requesterId))
    throw new InvalidInputError('The publish job names no requesting user; publish again.');
  const csv = r.csv as { xField?: unknown; yField?: unknown } | undefined;
  const field = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  return {
    fileType: r.fileType as PublishFileType,
    sourceItemId: r.sourceItemId,
    serviceItemId: r.serviceItemId,
    requesterId: r.requesterId,
    ...(r.fileType === 'csv' && csv && typeof csv === 'object' ? { csv: { xField: field(csv.xField), yField: field(csv.yField) } } : {}),
  };
}

/**
 * Publishing an uploaded file as a hosted feature service: the API creates the service item (processing) with
 * this job (PublishRequestService); the worker inspects the file, defines the layers and loads them.
 */
export const PublishJob = defineJob<PublishJobParams>({
  type: 'publish',
  queue: 'publish',
  params: publishJobParams,
  // A delete also ends the job's sessions at once; the poll catches a cancel between statements.
  cancelPollMs: 500,
  // The file's content or the layers it defines: retrying the same file cannot help.
  permanent: (e) => e instanceof PublishError || e instanceof LayerDefinitionError || e instanceof InvalidInputError,
  itemEvent: true,
  handler: () => PublishJobHandler,
});

@Injectable()
export class PublishJobHandler implements JobHandler<PublishJobParams> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly features: LayersRepository,
    private readonly content: ContentRepository,
    private readonly files: FileStore,
    private readonly users: UserCallers,
  ) {}

  async run(p: PublishJobParams, ctx: JobContext): Promise<JobOutcome> {
    const service = await this.features.findServiceByItem(p.serviceItemId);
    if (!service) throw new PermanentJobError('The service item was deleted before publishing finished.');
    await this.stillAllowed(p, service.owner_id);
    const storage = await this.content.findStorage(p.sourceItemId);
    if (!storage?.file_path) throw new PermanentJobError('The source file item no longer exists.');
    // GDAL opens files by name and reads each several times (inspect, count, load; a zip is inflated first to
    // check it): on S3 the source is downloaded once into the job's private folder, removed with it.
    const file = await this.files.localFile(storage.file_path, await ctx.workDir(), ctx.signal);
    const { maxUnpackedBytes, maxFeatures } = this.config.publish;
    if (p.fileType === 'shapefile') {
      // GDAL trusts the zip's headers: they are checked, then every member is inflated and counted, before it reads.
      await checkZipDirectory(file, { maxUnpackedBytes, maxFeatures });
      await checkZipContents(file, { maxUnpackedBytes }, ctx.signal);
    }
    ctx.signal.throwIfAborted();
    // Loaded on the first publish only: the API reads this file for the declaration above and never loads GDAL.
    const { inspectSource, loadLayer } = await import('./index');
    const sources = await inspectSource(file, p.fileType, { csv: p.csv });
    const declared = sources.reduce((n, s) => n + s.featureCount, 0);
    if (declared > maxFeatures) throw tooManyFeatures(declared, maxFeatures);
    ctx.signal.throwIfAborted();
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
    const weight = (n: number) => Math.max(1, n);
    const total = sources.reduce((n, s) => n + weight(s.featureCount), 0);
    let done = 0;
    let loaded = 0;
    for (const [i, src] of sources.entries()) {
      ctx.signal.throwIfAborted();
      const layer = (await this.features.layer(service.item_id, added[i].id))!;
      const result = await loadLayer(
        file,
        p.fileType,
        src,
        { pg: gdalPgConnection(this.config.databaseUrl), schema: service.schema_name, table: layer.table_name, srid: layer.srid },
        {
          signal: ctx.signal,
          sessionName: ctx.sessionName('publish'),
          // The file's own counts can lie (a GeoPackage's cached count, a .shx): the load enforces the rest of the budget.
          maxFeatures: maxFeatures - loaded,
          onProgress: (f) => ctx.progress((done + f * weight(src.featureCount)) / total, `(layer ${i + 1} of ${sources.length})`),
        },
      );
      loaded += result.loaded;
      done += weight(src.featureCount);
    }
  }

  /**
   * The request's rules asked again now: the requester is still an active user who owns and sees the file item, and
   * may still create a service in the content the service is in. A refusal fails the job before anything is read.
   */
  private async stillAllowed(p: PublishJobParams, serviceOwnerId: string): Promise<void> {
    const requester = await this.users.current(p.requesterId);
    if (!requester || requester.disabled) throw new PermanentJobError('Publish refused: the user who requested it no longer has access.');
    try {
      await publishableSource(this.content, requester.caller, p.sourceItemId);
      assertMayCreateService(requester.caller, serviceOwnerId);
    } catch (e) {
      if (!(e instanceof ArcgisError)) throw e;
      throw new PermanentJobError(`Publish refused: ${e.details.length ? e.details.join(' ') : e.message}`);
    }
  }
}
