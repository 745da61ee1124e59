import { Caller } from '../core/auth/caller';
import { MemberType } from './group.entities';
import { ApplicationRow, InvitationRow, MemberRow } from './group-list.repository';
import { GroupRow, toGroupRow } from './group-sql';

/** The IGroup shape arcgis-rest-js expects; `userMembership` is the caller's. */
export function toGroup(g: GroupRow, caller: Caller | undefined, memberType: MemberType | 'none', applications = 0) {
  return {
    id: g.id,
    title: g.title,
    isInvitationOnly: g.isInvitationOnly,
    owner: g.owner,
    description: g.description,
    snippet: g.snippet,
    tags: g.tags,
    typeKeywords: g.typeKeywords,
    phone: g.phone,
    sortField: g.sortField,
    sortOrder: g.sortOrder,
    isViewOnly: g.isViewOnly,
    isFav: g.isFav,
    thumbnail: g.thumbnail,
    created: g.created.getTime(),
    modified: g.modified.getTime(),
    access: g.access,
    capabilities: [],
    isReadOnly: false,
    protected: g.protected,
    autoJoin: g.autoJoin,
    membershipAccess: g.membershipAccess,
    orgId: g.orgId,
    userMembership: { username: caller?.username ?? null, memberType, applications },
  };
}

/** One member as `userlist` lists them. */
export function toMember(m: MemberRow) {
  return {
    username: m.username,
    fullName: m.full_name,
    memberType: m.member_type,
    thumbnail: null,
    joined: m.joined.getTime(),
    orgId: m.org_id,
  };
}

export function toApplication(a: ApplicationRow) {
  return { username: a.username, fullname: a.full_name, received: a.received.getTime() };
}

/** IInvitation of arcgis-rest-portal. */
export function toInvitation(r: InvitationRow, caller: Caller) {
  return {
    id: r.inv_id,
    targetType: 'group',
    targetId: r.id,
    received: r.inv_created.getTime(),
    accepted: false,
    mustApprove: false,
    email: '',
    role: r.inv_role,
    type: 'invitation',
    dateAccepted: -1,
    expiration: r.inv_expires.getTime(),
    created: r.inv_created.getTime(),
    username: r.inv_username,
    fromUsername: { username: r.from_username, fullname: r.from_full_name ?? '' },
    group: toGroup(toGroupRow(r), caller, 'none'),
    groupId: r.id,
  };
}
