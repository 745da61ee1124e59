import { Injectable } from '@nestjs/common';
import { Caller, isAdminFor, Privilege } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { ContentRepository } from './content.repository';
import { ItemRow } from './item-sql';

/** Who may change an item: its owner, or an administrator of its organisation holding `privilege` (update by default). */
export function mayEdit(
  caller: Caller | undefined,
  row: Pick<ItemRow, 'owner_id' | 'org_id'>,
  privilege: string = Privilege.AdminUpdateItems,
): boolean {
  return !!caller && (row.owner_id === caller.userId || isAdminFor(caller, row.org_id, privilege));
}

/**
 * The item a `content/users/<owner>/items/<id>/...` operation changes (update, delete, thumbnails, info files,
 * resources, protection): the path's owner must own it. That name is compared with the item's owner, never looked up,
 * so a name that is no user gets the answer another user's name gets and the path tells nothing of who exists. A
 * caller who cannot see the item is told it does not exist; one who sees it but may not change it is refused (403).
 */
@Injectable()
export class ItemEditors {
  constructor(private readonly repo: ContentRepository) {}

  async requireEditable(
    caller: Caller,
    ownerName: string,
    id: string,
    privilege: string = Privilege.AdminUpdateItems,
    refusal = 'Only the owner or an administrator may change this item.',
  ): Promise<ItemRow> {
    const row = await this.repo.findItem(id);
    const owned = row && row.owner.toLowerCase() === ownerName.toLowerCase();
    const allowed = owned && mayEdit(caller, row, privilege);
    if (!owned || (!allowed && !(await this.repo.findVisibleItem(id, caller)))) throw Errors.itemNotFound(id);
    if (!allowed) throw Errors.forbidden(refusal);
    return row;
  }
}
