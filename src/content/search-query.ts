import { parseSearchQuery as parse, SearchNode as Node } from '../core/search/search-query';

export { SEARCH_BOUNDS } from '../core/search/search-query';

/** Item fields a search term may name. */
export const SEARCH_FIELDS = [
  'id',
  'owner',
  'group',
  'type',
  'title',
  'tags',
  'typekeywords',
  'orgid',
  'access',
  'name',
  'description',
  'snippet',
] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** Fields that take `[a TO b]` (inclusive) or `{a TO b}` (exclusive) ranges, in epoch milliseconds; `*` leaves an end open. */
export const RANGE_FIELDS = ['created', 'modified'] as const;
export type RangeField = (typeof RANGE_FIELDS)[number];

/** Parsed form of the item search `q`. */
export type SearchNode = Node<SearchField, RangeField>;

export function parseSearchQuery(q: string): SearchNode {
  return parse(q, { fields: SEARCH_FIELDS, ranges: RANGE_FIELDS });
}
