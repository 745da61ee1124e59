/** The item properties `update` and its companions change (content.repository.ts writes them). */
export interface ItemPatch {
  title?: string;
  tags?: string[];
  typeKeywords?: string[];
  description?: string;
  snippet?: string;
  accessInformation?: string | null;
  licenseInfo?: string | null;
  culture?: string | null;
  properties?: Record<string, unknown> | null;
  url?: string | null;
  extent?: number[][];
  spatialReference?: string | null;
  /** The data: JSON text, or a stored file (key, name, type), never both. */
  data?: string | null;
  filePath?: string | null;
  name?: string | null;
  contentType?: string | null;
  size?: number;
  thumbnail?: string | null;
  thumbnailKey?: string | null;
  protected?: boolean;
}

/** Column and SQL cast of each property; the only names an UPDATE of items is built from. */
export const PATCH_COLUMNS: Record<keyof ItemPatch, [string, string]> = {
  title: ['title', 'text'],
  tags: ['tags', 'text[]'],
  typeKeywords: ['type_keywords', 'text[]'],
  description: ['description', 'text'],
  snippet: ['snippet', 'text'],
  accessInformation: ['access_information', 'text'],
  licenseInfo: ['license_info', 'text'],
  culture: ['culture', 'text'],
  properties: ['properties', 'jsonb'],
  url: ['url', 'text'],
  extent: ['extent', 'jsonb'],
  spatialReference: ['spatial_reference', 'text'],
  data: ['data', 'text'],
  filePath: ['file_path', 'text'],
  name: ['name', 'text'],
  contentType: ['content_type', 'text'],
  size: ['size', 'bigint'],
  thumbnail: ['thumbnail', 'text'],
  thumbnailKey: ['thumbnail_key', 'text'],
  protected: ['protected', 'boolean'],
};

/** What a patch replaced in storage: the keys the row named before, for the caller to remove once they changed. */
export interface ReplacedKeys {
  file_path: string | null;
  thumbnail_key: string | null;
}
