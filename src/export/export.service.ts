import { Injectable } from '@nestjs/common';
import { ContentRepository } from '../content/content.repository';
import { Caller, isAdminFor, Privilege } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { newId } from '../core/ids';
import { JobsService } from '../core/jobs/jobs.service';
import { LayersRepository } from '../layers/layers.repository';
import { IdentityService } from '../identity/identity.service';
import { ExportAccess } from './export-access';
import { ExportJob } from './export.job';
import { parseExportRequest, resolveExportFormat } from './export-parameters';
import { FORMAT_CATALOGUE } from './formats';
import { CancelJobDto, ExportItemDto } from './export.dto';
import { ExportHistoryRepository } from './export-history.repository';
import { ExportRepository } from './export.repository';

@Injectable()
export class ExportService {
  constructor(
    private readonly repo: ExportRepository,
    private readonly features: LayersRepository,
    private readonly content: ContentRepository,
    private readonly identity: IdentityService,
    private readonly jobs: JobsService,
    private readonly access: ExportAccess,
    private readonly history: ExportHistoryRepository,
  ) {}

  /** The owner's export jobs, newest first, for the owner and administrators of the owner's organisation. */
  async list(caller: Caller, ownerName: string, start: number, num: number) {
    const owner = await this.identity.actingFor(
      caller,
      ownerName,
      Privilege.AdminViewItems,
      "Only the owner or an administrator may list a user's exports.",
    );
    return { username: owner.username, start, num, ...(await this.history.forOwner(owner.id, start, num)) };
  }

  /** An item's exports the caller made; an administrator of the item's organisation sees everyone's. */
  async forItem(caller: Caller, item: { id: string; orgId: string }, limit = 20) {
    const all = isAdminFor(caller, item.orgId, Privilege.AdminViewItems);
    return this.history.forSource(item.id, all ? null : caller.userId, limit);
  }

  /**
   * cancelJob on a queued or running export: the job's owner (whose content its result goes to) or an administrator
   * of that owner's organisation. A job that has ended is a 400 saying so; another user's is not found, as status.
   */
  async cancel(caller: Caller, ownerName: string, itemId: string, p: CancelJobDto) {
    const owner = await this.identity.requireUser(ownerName);
    const id = itemId.toLowerCase();
    const jobId = p.jobId.toLowerCase();
    const job = await this.history.job(jobId, id);
    const allowed = owner.id === caller.userId || isAdminFor(caller, owner.orgId, Privilege.AdminUpdateItems);
    if (!job || job.owner_id !== owner.id || !allowed) throw Errors.itemNotFound(id);
    if (!(await this.jobs.cancel(jobId, `Cancelled by ${caller.username}.`))) {
      throw Errors.badRequest('The job has already ended.', [`Export job '${jobId}' is ${job.status}.`]);
    }
    return { success: true, itemId: id, jobId, status: 'cancelled' };
  }

  /**
   * Validates everything, commits the result item and the job row, then enqueues; the reply does not wait for
   * any data to be read. Who may export what into whose content is ExportAccess's rule, which the job asks again.
   */
  async export(caller: Caller, ownerName: string, p: ExportItemDto) {
    const owner = await this.identity.requireUser(ownerName);
    const receiver = owner.id === caller.userId ? caller : await this.identity.callerFor(owner);
    const itemId = p.itemId.toLowerCase();
    const { item } = await this.access.check(caller, receiver, itemId);
    const format = resolveExportFormat(p.exportFormat);
    const { name: formatName, itemType } = FORMAT_CATALOGUE[format];
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
      params: { format, title, serviceItemId: itemId, requesterId: caller.userId, ownerId: owner.id, ...parsed },
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
