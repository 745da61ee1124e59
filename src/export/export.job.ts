import { Inject, Injectable } from '@nestjs/common';
import { AttachmentExportRepository } from '../attachments';
import { APP_CONFIG } from '../core/config/config.module';
import { ArcgisError } from '../core/errors/arcgis-error';
import { AppConfig } from '../core/config/env';
import { gdalPgConnection } from '../core/database/gdal-pg';
import { InvalidInputError } from '../core/errors/invalid-input';
import { PermanentJobError } from '../core/jobs/failure';
import { defineJob, JobContext, JobHandler, JobOutcome } from '../core/jobs/job-contract';
import { LayersRepository } from '../layers/layers.repository';
import { serviceRelationships } from '../layers/relationships';
import { UserCallers } from '../identity/user-callers';
import { FileStore } from '../core/storage/file-store';
import { ExportAccess } from './export-access';
import { checkLayers, exportJobParams, ExportJobParams } from './export-parameters';
import { ExportAttachment, ExportLayerSource, ExportRelationship, ExportWriteError, writeExport } from './writer';

/**
 * An export: the layers of a hosted feature service written to one file, which becomes the result item's data.
 * The API creates the result item and this job together (ExportService); the worker runs ExportJobHandler.
 */
export const ExportJob = defineJob<ExportJobParams>({
  type: 'export',
  queue: 'export',
  params: exportJobParams,
  cancelPollMs: 2000,
  // Limits the format cannot hold, data the target SR cannot take, layers or fields gone: the user's to fix.
  permanent: (e) => e instanceof ExportWriteError || e instanceof InvalidInputError,
  itemEvent: true,
  handler: () => ExportJobHandler,
});

@Injectable()
export class ExportJobHandler implements JobHandler<ExportJobParams> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly features: LayersRepository,
    private readonly access: ExportAccess,
    private readonly users: UserCallers,
    private readonly attachments: AttachmentExportRepository,
    private readonly files: FileStore,
  ) {}

  async run(p: ExportJobParams, ctx: JobContext): Promise<JobOutcome> {
    await this.stillAllowed(p);
    const { layers, attachments, relationships } = await this.sources(p);
    const file = await writeExport({
      format: p.format,
      layers,
      target: p.targetSR,
      pg: gdalPgConnection(this.config.databaseUrl),
      workDir: await ctx.workDir(),
      baseName: p.title,
      signal: ctx.signal,
      zipLevel: this.config.exportZipLevel,
      sessionName: ctx.sessionName('export'),
      onOutputStarted: (path, fileName) => ctx.storeWhileWriting(path, fileName),
      onProgress: (e) => ctx.progress(e.overall, `(layer ${e.layerIndex + 1} of ${e.layerCount}) ${e.message}`.trim()),
      escapeFormulas: p.escapeFormulas,
      attachments,
      relationships,
    });
    // Access lost while the file was written: the file is dropped with the job's folder, never handed over; and
    // asked once more when the file is stored (on S3 the upload ends after this), right before the hand-over.
    await this.stillAllowed(p);
    return { file, confirm: () => this.stillAllowed(p) };
  }

  /**
   * The request's rule (ExportAccess) asked again now: the requester must still be an active user allowed to
   * export the service, and the receiver must still be allowed to get a copy. A refusal fails the job at once.
   */
  private async stillAllowed(p: ExportJobParams): Promise<void> {
    const [requester, receiver] = await Promise.all([this.users.current(p.requesterId), this.users.current(p.ownerId)]);
    if (!requester || requester.disabled) throw new PermanentJobError('Export refused: the user who requested it no longer has access.');
    if (!receiver) throw new PermanentJobError('Export refused: the user it was meant for no longer exists.');
    try {
      await this.access.check(requester.caller, receiver.caller, p.serviceItemId);
    } catch (e) {
      if (!(e instanceof ArcgisError)) throw e;
      throw new PermanentJobError(`Export refused: ${e.details.length ? e.details.join(' ') : e.message}`);
    }
  }

  /** The layers as they are now, checked again by the spec the request passed. */
  private async sources(
    p: ExportJobParams,
  ): Promise<{ layers: ExportLayerSource[]; attachments?: ExportAttachment[][]; relationships: ExportRelationship[] }> {
    const service = await this.features.findServiceByItem(p.serviceItemId);
    if (!service) throw new PermanentJobError('The feature service no longer exists.');
    const checked = checkLayers(p.layers, p.format, await this.features.layers(p.serviceItemId), 'job');
    // The list of each layer's attachments (not their bytes), read as the layers are: each file is read when written.
    const attachments = p.includeAttachments
      ? await Promise.all(
          checked.map(async ({ layer, whereSql }) =>
            (await this.attachments.forLayer(service.schema_name, await this.features.attachmentsLayer(service, layer), whereSql)).map(
              ({ key, ...a }) => ({
                ...a,
                read: () => this.files.read(key),
              }),
            ),
          ),
        )
      : undefined;
    const layers = checked.map(({ params: l, layer, whereSql }) => ({
      id: layer.layer_id,
      name: layer.name,
      schema: service.schema_name,
      table: layer.table_name,
      fields: layer.fields,
      geometryType: layer.geometry_type,
      srid: layer.srid,
      where: whereSql,
      includeGeometry: l.includeGeometry,
      xColumnName: l.xColumnName,
      yColumnName: l.yColumnName,
      domainValues: l.useDomainDescriptions,
      fieldAliases: l.useFieldAliases,
    }));
    // The service's relationships between two layers this export writes, for the formats that hold them.
    const exported = checked.map((c) => c.layer);
    const relationships = serviceRelationships(exported).map((r) => ({
      name: r.name || `${r.originLayerId}_${r.destinationLayerId}_${r.id}`,
      origin: exported.findIndex((l) => l.layer_id === r.originLayerId),
      destination: exported.findIndex((l) => l.layer_id === r.destinationLayerId),
      originKey: r.originPrimaryKey,
      destinationKey: r.originForeignKey,
      cardinality: r.cardinality,
      composite: r.composite,
      forwardLabel: r.forwardPathLabel,
      backwardLabel: r.backwardPathLabel,
    }));
    return { layers, attachments, relationships };
  }
}
