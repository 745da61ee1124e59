import { Injectable } from '@nestjs/common';
import { ContentService } from '../content/content.service';
import { Caller } from '../core/auth/caller';
import { GroupsService } from './groups.service';

/**
 * The groups an item is shared with that the caller may see, split as ArcGIS's Item Groups splits them by the
 * caller's membership: groups they own or manage (admin), belong to (member), and the others they can see (other).
 */
@Injectable()
export class ItemGroupsService {
  constructor(
    private readonly items: ContentService,
    private readonly groups: GroupsService,
  ) {}

  async itemGroups(caller: Caller | undefined, id: string) {
    await this.items.requireVisible(caller, id);
    const out: Record<'admin' | 'member' | 'other', unknown[]> = { admin: [], member: [], other: [] };
    for (const g of await this.groups.sharedWith(caller, id)) {
      const m = g.userMembership.memberType;
      out[m === 'owner' || m === 'admin' ? 'admin' : m === 'member' ? 'member' : 'other'].push(g);
    }
    return out;
  }
}
