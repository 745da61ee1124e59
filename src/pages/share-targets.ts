import { Injectable } from '@nestjs/common';
import { Caller, can, Privilege } from '../core/auth/caller';
import { GroupSearchDto } from '../groups/groups.dto';
import { GroupsService } from '../groups/groups.service';

/** A group the user belongs to, as the pages list it. */
export interface MemberGroup {
  id: string;
  title: string;
  access: string;
  memberType: string;
  /** Whether shareItems would share into it for this user (a view-only group takes only its owner's and managers'). */
  canShare: boolean;
}

/** ArcGIS's page size for group searches; the pages show at most this many of a user's groups. */
const MAX_GROUPS = 100;

/** The groups the pages offer: those the user belongs to, from the groups search `searchUserAccess=groupMember`. */
@Injectable()
export class ShareTargets {
  constructor(private readonly groups: GroupsService) {}

  async memberOf(caller: Caller): Promise<MemberGroup[]> {
    const p = Object.assign(new GroupSearchDto(), {
      q: '*',
      searchUserAccess: 'groupMember',
      sortField: 'title',
      sortOrder: 'asc',
      start: 1,
      num: MAX_GROUPS,
    } satisfies Partial<GroupSearchDto>);
    const { results } = await this.groups.searchGroups(caller, p);
    const admin = can(caller, Privilege.AdminShare);
    return results.map((g) => {
      const memberType = g.userMembership.memberType;
      return {
        id: g.id,
        title: g.title,
        access: g.access,
        memberType,
        canShare: admin || !g.isViewOnly || memberType === 'owner' || memberType === 'admin',
      };
    });
  }
}
