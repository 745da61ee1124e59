import { parseSearchQuery, SearchNode, SearchSchema } from '../core/search/search-query';

/** Fields of the community user search (`community/users`): what anyone who may see a profile may search by. */
export const COMMUNITY_USER_FIELDS = ['username', 'fullname', 'firstname', 'lastname', 'description', 'tags', 'orgid', 'provider'] as const;
/** The organisation's user search (`portals/self/users/search`) adds what only administrators see. */
export const ORG_USER_FIELDS = [...COMMUNITY_USER_FIELDS, 'email', 'role'] as const;
export type UserField = (typeof ORG_USER_FIELDS)[number];

export const COMMUNITY_USER_RANGES = ['created', 'modified'] as const;
export const ORG_USER_RANGES = [...COMMUNITY_USER_RANGES, 'lastlogin'] as const;
export type UserRange = (typeof ORG_USER_RANGES)[number];

export type UserQueryNode = SearchNode<UserField, UserRange>;

const COMMUNITY: SearchSchema<UserField, UserRange> = { fields: COMMUNITY_USER_FIELDS, ranges: COMMUNITY_USER_RANGES };
const ORG: SearchSchema<UserField, UserRange> = { fields: ORG_USER_FIELDS, ranges: ORG_USER_RANGES };

/** The parsed `q`, or undefined for a blank one (every user the search may show). */
export function parseUserQuery(q: string | undefined, scope: 'community' | 'org'): UserQueryNode | undefined {
  if (q === undefined || q.trim() === '') return undefined;
  return parseSearchQuery(q, scope === 'org' ? ORG : COMMUNITY);
}

export const COMMUNITY_SORT_FIELDS = ['username', 'fullname', 'created', 'modified'] as const;
export const ORG_SORT_FIELDS = [...COMMUNITY_SORT_FIELDS, 'lastlogin', 'role'] as const;
export type UserSortField = (typeof ORG_SORT_FIELDS)[number];
