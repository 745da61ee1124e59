import { Injectable } from '@nestjs/common';
import { Caller, isAdminFor, Privilege } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { IdentityService } from '../identity/identity.service';
import { ContentRepository } from './content.repository';
import { ItemRow } from './item-sql';

/** Who may change an item: its owner, or an administrator of its organisation who may update others' items. */
export function mayEdit(caller: Caller | undefined, row: Pick<ItemRow, 'owner_id' | 'org_id'>): boolean {
  return !!caller && (row.owner_id === caller.userId || isAdminFor(caller, row.org_id, Privilege.AdminUpdateItems));
}

/**
 * The item a `content/users/<owner>/items/<id>/...` operation changes, as `delete` finds it: the path's owner must
 * exist and own the item; a caller who cannot see it is told it does not exist, one who sees it but may not change
 * it is refused (403).
 */
@Injectable()
export class ItemEditors {
  constructor(
    private readonly repo: ContentRepository,
    private readonly identity: IdentityService,
  ) {}

  async requireEditable(caller: Caller, ownerName: string, id: string): Promise<ItemRow> {
    await this.identity.requireUser(ownerName);
    const row = await this.repo.findItem(id);
    const owned = row && row.owner.toLowerCase() === ownerName.toLowerCase();
    const allowed = owned && mayEdit(caller, row);
    if (!owned || (!allowed && !(await this.repo.findVisibleItem(id, caller)))) throw Errors.itemNotFound(id);
    if (!allowed) throw Errors.forbidden('Only the owner or an administrator may change this item.');
    return row;
  }
}
