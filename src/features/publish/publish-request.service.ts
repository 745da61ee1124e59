import { Inject, Injectable } from '@nestjs/common';
import { ContentRepository } from '../../content/content.repository';
import { FileStore } from '../../content/file-store';
import { Caller } from '../../core/auth/caller';
import { APP_CONFIG } from '../../core/config/config.module';
import { AppConfig } from '../../core/config/env';
import { Errors } from '../../core/errors/arcgis-error';
import { newId } from '../../core/ids';
import { JobName } from '../../core/jobs/job.types';
import { JobsRepository } from '../../core/jobs/jobs.repository';
import { JobsService } from '../../core/jobs/jobs.service';
import { FeaturesService } from '../features.service';
import { jsonParam, requiredJsonParam } from '../json-param';
import { PublishError } from './errors';
import { PublishDto } from './publish.dto';
import { checkZipDirectory } from './zip-limits';

export type PublishFileKind = 'geojson' | 'csv' | 'shapefile' | 'geopackage';

/** What the publish job row stores for the worker. */
export interface PublishJobParams {
  fileType: PublishFileKind;
  sourceItemId: string;
  serviceItemId: string;
  csv?: { xField?: string; yField?: string };
}

/** filetype values and the item types they may be published from. */
const FILE_TYPES: Record<string, { kind: PublishFileKind; itemTypes: string[] }> = {
  geojson: { kind: 'geojson', itemTypes: ['GeoJson', 'GeoJSON'] },
  csv: { kind: 'csv', itemTypes: ['CSV'] },
  shapefile: { kind: 'shapefile', itemTypes: ['Shapefile'] },
  geopackage: { kind: 'geopackage', itemTypes: ['GeoPackage'] },
};

@Injectable()
export class PublishRequestService {
  private readonly files: FileStore;

  constructor(
    private readonly features: FeaturesService,
    private readonly content: ContentRepository,
    private readonly jobs: JobsRepository,
    private readonly jobsService: JobsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    // FileStore only resolves paths under DATA_DIR here; the content module keeps its provider to itself.
    this.files = new FileStore(config);
  }

  /** Creates the service item (processing) and the job, then enqueues; loading happens in the worker. */
  async publish(caller: Caller, ownerName: string, p: PublishDto, root: string) {
    const type = FILE_TYPES[p.filetype.trim().toLowerCase()];
    if (!type)
      throw Errors.badRequest(`Unsupported filetype '${p.filetype.slice(0, 32)}'.`, ['Supported: geojson, csv, shapefile, geoPackage.']);
    const sourceId = p.itemId.toLowerCase();
    const source = await this.content.findVisibleItem(sourceId, caller);
    if (!source) throw Errors.itemNotFound(sourceId);
    if (source.owner_id !== caller.userId) throw Errors.forbidden('Only the owner of the file item may publish it.');
    const storage = await this.content.findStorage(sourceId);
    if (!storage?.file_path || !type.itemTypes.includes(source.type)) {
      throw Errors.badRequest('The item cannot be published as this file type.', [
        `filetype '${p.filetype}' needs an uploaded ${type.itemTypes[0]} file item; this is a ${source.type}${storage?.file_path ? '' : ' without a file'}.`,
      ]);
    }
    if (type.kind === 'shapefile') await this.checkZip(storage.file_path);
    const pp = requiredJsonParam<Record<string, unknown>>('publishParameters', p.publishParameters);
    const itemInfo = jsonParam<Record<string, unknown>>('itemInfo', p.itemInfo) ?? { title: source.title };
    const csv =
      type.kind === 'csv' ? { xField: str(pp.longitudeFieldName ?? pp.xField), yField: str(pp.latitudeFieldName ?? pp.yField) } : undefined;
    const service = await this.features.newService(caller, ownerName, pp, itemInfo, undefined, root, 'processing');
    const jobId = newId();
    const params: PublishJobParams = {
      fileType: type.kind,
      sourceItemId: sourceId,
      serviceItemId: service.itemId,
      ...(csv ? { csv } : {}),
    };
    // One transaction: a service item left 'processing' without a job row would never be finished by anyone.
    await this.jobs.createWith(
      { id: jobId, type: 'publish', ownerId: caller.userId, sourceItemId: sourceId, resultItemId: service.itemId, params },
      (m) => this.features.insertService(service, m),
    );
    await this.jobsService.submit({ name: JobName.PublishItem, data: { jobId } }, 'publish job');
    return {
      services: [
        {
          type: 'Feature Service',
          serviceurl: service.url,
          encodedServiceURL: encodeURI(service.url),
          size: -1,
          jobId,
          serviceItemId: service.itemId,
          serviceItemName: service.name,
          success: true,
        },
      ],
    };
  }

  /** What the zip's central directory declares is checked now (milliseconds); the job inflates and counts for real. */
  private async checkZip(rel: string): Promise<void> {
    const { maxUnpackedBytes, maxFeatures } = this.config.publish;
    try {
      await checkZipDirectory(this.files.absolute(rel), { maxUnpackedBytes, maxFeatures });
    } catch (e) {
      if (e instanceof PublishError) throw Errors.badRequest('The file cannot be published.', [e.message]);
      throw e;
    }
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}
