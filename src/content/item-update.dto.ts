import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { pageDto } from '../core/http/paging';
import { BoolParam, CsvList } from '../core/http/params.decorator';

/**
 * `update`: every property ArcGIS's Update Item takes that this service stores. The client sends the whole item it was
 * given (id, owner, created, numViews, thumbnail as a path ...); what is not listed here is dropped by the whitelist.
 */
export class UpdateItemDto {
  @IsOptional() @IsString() @MaxLength(256, { message: "'title' must be at most 256 characters." }) title?: string;
  @IsOptional() @CsvList() @IsString({ each: true }) tags?: string[];
  @IsOptional() @CsvList() @IsString({ each: true }) typeKeywords?: string[];
  @IsOptional() @IsString() @MaxLength(64000) description?: string;
  @IsOptional() @IsString() @MaxLength(2048) snippet?: string;
  @IsOptional() @IsString() @MaxLength(64000) accessInformation?: string;
  @IsOptional() @IsString() @MaxLength(64000) licenseInfo?: string;
  @IsOptional() @IsString() @MaxLength(16, { message: "'culture' must be a language code such as en-us." }) culture?: string;
  @IsOptional() @IsString() @MaxLength(1024 * 1024) properties?: string;
  @IsOptional() @IsString() @MaxLength(4096) url?: string;
  @IsOptional() @IsString() @MaxLength(1024) extent?: string;
  @IsOptional() @IsString() @MaxLength(4096) spatialReference?: string;
  @IsOptional() @IsString() @MaxLength(50 * 1024 * 1024, { message: "'text' is larger than 50 MB." }) text?: string;
  @IsOptional() @IsString() @MaxLength(256) filename?: string;
  /** Refused unless it names the thumbnail the item already has: the service fetches nothing from other hosts. */
  @IsOptional() @IsString() @MaxLength(4096) thumbnailUrl?: string;
  /** Refused: the service fetches nothing from other hosts. */
  @IsOptional() @IsString() @MaxLength(4096) dataUrl?: string;
  @IsOptional() @BoolParam() @IsBoolean({ message: "'clearEmptyFields' must be true or false." }) clearEmptyFields?: boolean;
}

/** What a resource is named by: a prefix (folders) and a file name. Both are checked in item-files.ts. */
export class ResourceDto {
  @IsOptional() @IsString() @MaxLength(256) fileName?: string;
  @IsOptional() @IsString() @MaxLength(256) resourcesPrefix?: string;
  @IsOptional() @IsString() @MaxLength(50 * 1024 * 1024, { message: "'text' is larger than 50 MB." }) text?: string;
  @IsOptional()
  @IsIn(['inherit', 'private'], { message: "'access' must be inherit or private." })
  access?: 'inherit' | 'private';
  /** ArcGIS unpacks a zip into resources when true; refused here (item-resources.service.ts says why). */
  @IsOptional() @BoolParam() @IsBoolean({ message: "'archive' must be true or false." }) archive?: boolean;
}

export class RemoveResourcesDto {
  @IsOptional() @IsString() @MaxLength(512) resource?: string;
  @IsOptional() @BoolParam() @IsBoolean({ message: "'deleteAll' must be true or false." }) deleteAll?: boolean;
}

const RESOURCE_SORT = ['resource', 'created', 'size'] as const;

/** Paging of `content/items/<id>/resources`; arcgis-rest-js asks for num=1000 by default. */
export class ResourcesPageDto extends pageDto(1000) {
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? (RESOURCE_SORT.find((f) => f === value.trim().toLowerCase()) ?? value) : value))
  @IsIn(RESOURCE_SORT, { message: "'sortField' must be one of resource, created, size." })
  sortField: (typeof RESOURCE_SORT)[number] = 'resource';
  @IsOptional() @IsIn(['asc', 'desc'], { message: "'sortOrder' must be asc or desc." }) sortOrder: 'asc' | 'desc' = 'asc';
}

export class UpdateInfoDto {
  @IsOptional() @IsString() @MaxLength(256) folderName?: string;
}
