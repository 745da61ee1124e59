import { Injectable } from '@nestjs/common';
import { ContentRepository } from '../content/content.repository';
import { Caller, isAdminFor, Privilege } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { newId } from '../core/ids';
import { JobsService } from '../core/jobs/jobs.service';
import { FeaturesRepository } from '../features/features.repository';
import { IdentityService } from '../identity/identity.service';
import { ExportJob } from './export.job';
import { parseExportRequest, resolveExportFormat } from './export-parameters';
import { FORMATS } from './writer/formats';
import { ExportItemDto } from './export.dto';
import { ExportRepository } from './export.repository';

@Injectable()
export class ExportService {
  constructor(
    private readonly repo: ExportRepository,
    private readonly features: FeaturesRepository,
    private readonly content: ContentRepository,
    private readonly identity: IdentityService,
    private readonly jobs: JobsService,
  ) {}

  /**
   * Validates everything, commits the result item and the job row, then enqueues; the reply does not wait for
   * any data to be read. Only the service's owner or an administrator may export; the path user owns the result.
   */
  async export(caller: Caller, ownerName: string, p: ExportItemDto) {
    const owner = await this.identity.requireUser(ownerName);
    // The result is a new item in the path user's content: writing there is an update of their content, which the
    // privileges to view it (or the service) never grant.
    if (owner.id !== caller.userId && !isAdminFor(caller, owner.orgId, Privilege.AdminUpdateItems)) {
      throw Errors.forbidden('Exports can only be created in your own content, or by an administrator who may update it.');
    }
    const itemId = p.itemId.toLowerCase();
    const item = await this.content.findVisibleItem(itemId, caller);
    if (!item) throw Errors.itemNotFound(itemId);
    const service = await this.features.findServiceByItem(itemId);
    if (item.type !== 'Feature Service' || !service) {
      throw Errors.badRequest('Only hosted feature services can be exported.', [`Item '${itemId}' is a ${item.type}.`]);
    }
    if (service.owner_id !== caller.userId && !isAdminFor(caller, service.org_id, Privilege.AdminViewItems)) {
      throw Errors.forbidden('Only the owner of the service or an administrator may export it.');
    }
    // The copy is the path user's to read and share: it may only land with someone who may read the service already.
    if (owner.id !== caller.userId && !(await this.content.findVisibleItem(itemId, await this.identity.callerFor(owner)))) {
      throw Errors.forbidden(`'${owner.username}' may not read this service, so an export of it cannot be placed in their content.`);
    }
    const format = resolveExportFormat(p.exportFormat);
    const { name: formatName, itemType } = FORMATS[format];
    const parsed = parseExportRequest(p.exportParameters, format, await this.features.layers(itemId));
    if (parsed.targetSR && 'srid' in parsed.targetSR && !(await this.features.sridExists(parsed.targetSR.srid))) {
      throw Errors.badRequest('Invalid export parameters.', [`Unknown targetSR wkid ${parsed.targetSR.srid}.`]);
    }
    if (parsed.targetSR && 'wkt' in parsed.targetSR && !(await this.repo.wktUsable(parsed.targetSR.wkt))) {
      throw Errors.badRequest('Invalid export parameters.', ['targetSR wkt is not a usable spatial reference.']);
    }
    const title = p.title?.trim() || `${item.title} (${formatName} export)`;
    const exportItemId = newId();
    const jobId = await this.jobs.create(ExportJob, {
      ownerId: owner.id,
      sourceItemId: itemId,
      resultItemId: exportItemId,
      params: { format, title, serviceItemId: itemId, ...parsed },
      createItem: (m) =>
        this.content.insert(
          {
            id: exportItemId,
            ownerId: owner.id,
            orgId: owner.orgId,
            title,
            type: itemType,
            typeKeywords: ['Data', 'Export'],
            tags: [],
            status: 'processing',
            statusMessage: 'processing',
          },
          m,
        ),
    });
    return { type: itemType, size: 0, jobId, exportItemId, serviceItemId: itemId, exportFormat: formatName };
  }
}
