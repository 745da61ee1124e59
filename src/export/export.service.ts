import { Injectable } from '@nestjs/common';
import { ContentRepository } from '../content/content.repository';
import { Caller } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { newId } from '../core/ids';
import { JobsService } from '../core/jobs/jobs.service';
import { LayersRepository } from '../layers/layers.repository';
import { IdentityService } from '../identity/identity.service';
import { ExportAccess } from './export-access';
import { ExportJob } from './export.job';
import { parseExportRequest, resolveExportFormat } from './export-parameters';
import { FORMAT_CATALOGUE } from './formats';
import { ExportItemDto } from './export.dto';
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
  ) {}

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
