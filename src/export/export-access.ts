import { Injectable } from '@nestjs/common';
import { ContentRepository } from '../content/content.repository';
import { ItemRow } from '../content/item-sql';
import { Caller, isAdminFor, Privilege } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { LayersRepository } from '../layers/layers.repository';
import { ServiceRow } from '../layers/types';

/**
 * Who may export a service into whose content, in one place: the API asks it when the request arrives
 * (ExportService), the worker asks it again when the job runs and once more before the file is handed over
 * (ExportJobHandler), each time against the sharing, roles and items of that moment. Refusals are the API's
 * envelope errors; the job turns them into its failure message.
 */
@Injectable()
export class ExportAccess {
  constructor(
    private readonly content: ContentRepository,
    private readonly features: LayersRepository,
  ) {}

  /**
   * Only the service's owner or an administrator may export it; the copy is a new item of `receiver`, who must be
   * the requester or someone whose content the requester may update, and who must be able to read the service.
   */
  async check(requester: Caller, receiver: Caller, itemId: string): Promise<{ item: ItemRow; service: ServiceRow }> {
    // The result is a new item in the receiver's content: writing there is an update of their content, which the
    // privileges to view it (or the service) never grant.
    if (receiver.userId !== requester.userId && !isAdminFor(requester, receiver.orgId, Privilege.AdminUpdateItems)) {
      throw Errors.forbidden('Exports can only be created in your own content, or by an administrator who may update it.');
    }
    const item = await this.content.findVisibleItem(itemId, requester);
    if (!item) throw Errors.itemNotFound(itemId);
    const service = await this.features.findServiceByItem(itemId);
    if (item.type !== 'Feature Service' || !service) {
      throw Errors.badRequest('Only hosted feature services can be exported.', [`Item '${itemId}' is a ${item.type}.`]);
    }
    if (service.owner_id !== requester.userId && !isAdminFor(requester, service.org_id, Privilege.AdminViewItems)) {
      throw Errors.forbidden('Only the owner of the service or an administrator may export it.');
    }
    // The copy is the receiver's to read and share: it may only land with someone who may read the service already.
    if (receiver.userId !== requester.userId && !(await this.content.findVisibleItem(itemId, receiver))) {
      throw Errors.forbidden(`'${receiver.username}' may not read this service, so an export of it cannot be placed in their content.`);
    }
    return { item, service };
  }
}
