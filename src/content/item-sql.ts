import { Caller, can, Privilege } from '../core/auth/caller';
import { SqlParams } from '../core/database/sql-params';

/** Columns of an item row as the API reports it: owner's user name and the derived access level. */
export const ITEM_COLUMNS = `
  i.id, u.username AS owner, i.org_id, i.title, i.type, i.type_keywords, i.tags, i.description, i.snippet, i.url,
  i.name, i.size, i.extent, i.spatial_reference, i.properties, i.status, i.status_message, i.created, i.modified,
  i.content_type, i.owner_id, i.num_views, i.access_information, i.license_info, i.culture, i.thumbnail, i.protected, i.owner_folder,
  CASE WHEN i.access <> 'private' THEN i.access
       WHEN EXISTS (SELECT 1 FROM item_shares s WHERE s.item_id = i.id) THEN 'shared'
       ELSE 'private' END AS access`;

export const ITEM_FROM = `items i JOIN users u ON u.id = i.owner_id`;

/**
 * The items table's access write, for the sharing statement to embed as a CTE (its single round trip is what keeps
 * a 1,000-item share at a fixed statement count). `everyone` and `org` are bound boolean parameters (NULL: leave
 * as is); `targets` names a relation of (id, for_owner) rows: only items the caller acts for as owner change.
 */
export function itemAccessUpdateSql(everyone: string, org: string, targets: string): string {
  return `UPDATE items i SET
            access = CASE WHEN COALESCE(${everyone}::boolean, i.access = 'public') THEN 'public'
                          WHEN COALESCE(${org}::boolean, i.access IN ('org','public')) THEN 'org'
                          ELSE 'private' END,
            modified = now()
           FROM ${targets} WHERE ${targets}.id = i.id AND ${targets}.for_owner
             AND (${everyone}::boolean IS NOT NULL OR ${org}::boolean IS NOT NULL)`;
}

export interface ItemRow {
  id: string;
  owner: string;
  owner_id: string;
  org_id: string;
  title: string;
  type: string;
  type_keywords: string[];
  tags: string[];
  description: string;
  snippet: string;
  url: string | null;
  name: string | null;
  size: string;
  extent: number[][];
  spatial_reference: string | null;
  properties: Record<string, unknown> | null;
  status: string;
  status_message: string;
  created: Date;
  modified: Date;
  content_type: string | null;
  access: 'private' | 'shared' | 'org' | 'public';
  num_views: string;
  access_information: string | null;
  license_info: string | null;
  culture: string | null;
  thumbnail: string | null;
  protected: boolean;
  owner_folder: string | null;
}

/**
 * Whether the caller may see item `alias`: public items to all; otherwise the owner, org members for org items,
 * members of a group it is shared with, and administrators of its organisation.
 */
export function visibleSql(alias: string, caller: Caller | undefined, p: SqlParams): string {
  if (!caller) return `${alias}.access = 'public'`;
  const uid = p.add(caller.userId);
  const org = p.add(caller.orgId);
  const admin = can(caller, Privilege.AdminViewItems) ? ` OR ${alias}.org_id = ${org}` : '';
  return `(${alias}.access = 'public' OR ${alias}.owner_id = ${uid} OR (${alias}.access = 'org' AND ${alias}.org_id = ${org})${admin}
    OR EXISTS (SELECT 1 FROM item_shares vs JOIN group_members vm ON vm.group_id = vs.group_id
               WHERE vs.item_id = ${alias}.id AND vm.user_id = ${uid}))`;
}

/** The IItem shape the client expects (arcgis-rest-portal's IItem: created and modified in ms, extent as [[xmin, ymin], [xmax, ymax]]). */
export function toItem(r: ItemRow) {
  return {
    id: r.id,
    owner: r.owner,
    orgId: r.org_id,
    created: r.created.getTime(),
    modified: r.modified.getTime(),
    guid: null,
    name: r.name,
    title: r.title,
    type: r.type,
    typeKeywords: r.type_keywords,
    description: r.description,
    tags: r.tags,
    snippet: r.snippet,
    thumbnail: r.thumbnail,
    documentation: null,
    extent: r.extent,
    categories: [],
    spatialReference: r.spatial_reference,
    accessInformation: r.access_information,
    licenseInfo: r.license_info,
    culture: r.culture ?? 'en-us',
    properties: r.properties,
    url: r.url,
    proxyFilter: null,
    access: r.access,
    size: Number(r.size),
    appCategories: [],
    industries: [],
    languages: [],
    largeThumbnail: null,
    banner: null,
    screenshots: [],
    listed: false,
    ownerFolder: r.owner_folder ?? null,
    protected: r.protected,
    commentsEnabled: false,
    numComments: 0,
    numRatings: 0,
    avgRating: 0,
    numViews: Number(r.num_views),
  };
}
