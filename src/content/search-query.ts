import { parseQuery, QueryNode } from '../core/search/query';

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

/** Parsed form of the item search `q` (the grammar is core/search/query.ts). */
export type SearchNode = QueryNode<SearchField, RangeField>;

/**
 * What one search may make the database do, bounded before it runs: each term is a pattern matched against every
 * visible item's title, snippet, description (up to 64,000 characters) and tags that the trigram indexes cannot rule
 * out, so the work grows with the terms (OR'd ones share one pass over the text), their length and their wildcards.
 */
export const SEARCH_BOUNDS = { terms: 32, patternChars: 512, wildcards: 8 } as const;

export function parseSearchQuery(q: string): SearchNode {
  return parseQuery(q, { fields: SEARCH_FIELDS, rangeFields: RANGE_FIELDS, bounds: SEARCH_BOUNDS });
}
