import { Inject, Injectable } from '@nestjs/common';
import { ContentRepository } from '../content/content.repository';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { jsonParam, requiredJsonParam } from '../core/http/param-values';
import { JobsService } from '../core/jobs/jobs.service';
import { FileStore } from '../core/storage/file-store';
import { FeatureServerService } from '../feature-server/feature-server.service';
import { PublishError } from './errors';
import { PUBLISH_FILE_TYPES, publishFileType } from './file-types';
import { publishableSource } from './publish-access';
import { PublishJob } from './publish.job';
import { PublishDto } from './publish.dto';
import { checkZipDirectory } from './zip-limits';

@Injectable()
export class PublishRequestService {
  constructor(
    private readonly features: FeatureServerService,
    private readonly content: ContentRepository,
    private readonly jobs: JobsService,
    private readonly files: FileStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Creates the service item (processing) and the job in one transaction, then enqueues; loading happens in the worker. */
  async publish(caller: Caller, ownerName: string, p: PublishDto, root: string) {
    const fileType = publishFileType(p.filetype);
    if (!fileType)
      throw Errors.badRequest(`Unsupported filetype '${p.filetype.slice(0, 32)}'.`, ['Supported: geojson, csv, shapefile, geoPackage.']);
    const { itemTypes } = PUBLISH_FILE_TYPES[fileType];
    const sourceId = p.itemId.toLowerCase();
    const source = await publishableSource(this.content, caller, sourceId);
    const storage = await this.content.findStorage(sourceId);
    if (!storage?.file_path || !(itemTypes as readonly string[]).includes(source.type)) {
      throw Errors.badRequest('The item cannot be published as this file type.', [
        `filetype '${p.filetype}' needs an uploaded ${itemTypes[0]} file item; this is a ${source.type}${storage?.file_path ? '' : ' without a file'}.`,
      ]);
    }
    if (fileType === 'shapefile') await this.checkZip(storage.file_path);
    const pp = requiredJsonParam<Record<string, unknown>>('publishParameters', p.publishParameters);
    const itemInfo = jsonParam<Record<string, unknown>>('itemInfo', p.itemInfo) ?? { title: source.title };
    const csv = fileType === 'csv' ? { xField: pp.longitudeFieldName ?? pp.xField, yField: pp.latitudeFieldName ?? pp.yField } : undefined;
    const service = await this.features.newService(caller, ownerName, pp, itemInfo, undefined, root, 'processing');
    // One transaction: a service item left 'processing' without a job row would never be finished by anyone.
    const jobId = await this.jobs.create(PublishJob, {
      ownerId: caller.userId,
      sourceItemId: sourceId,
      resultItemId: service.itemId,
      params: { fileType, sourceItemId: sourceId, serviceItemId: service.itemId, requesterId: caller.userId, ...(csv ? { csv } : {}) },
      createItem: (m) => this.features.insertService(service, m),
    });
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
      // Read by ranges from storage: only the central directory at the end of the file is fetched.
      const object = await this.files.stat(rel);
      if (!object) throw Errors.badRequest('The file cannot be published.', ['The file of this item is missing from storage.']);
      await checkZipDirectory(
        { size: object.size, read: (start, end) => this.files.read(rel, { start, end }, object.etag) },
        { maxUnpackedBytes, maxFeatures },
      );
    } catch (e) {
      if (e instanceof PublishError) throw Errors.badRequest('The file cannot be published.', [e.message]);
      throw e;
    }
  }
}
