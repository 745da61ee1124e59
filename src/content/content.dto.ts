import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { PageDto } from '../core/http/paging';
import { BoolParam, CsvList } from '../core/http/params.decorator';

export { PageDto };

const REQUIRED = "'type' and 'title' property required.";

export class AddItemDto {
  @IsString({ message: REQUIRED }) @MaxLength(256, { message: "'title' must be at most 256 characters." }) title: string;
  @IsString({ message: REQUIRED }) @MaxLength(128, { message: "'type' must be at most 128 characters." }) type: string;
  @IsOptional() @CsvList() @IsString({ each: true }) tags?: string[];
  @IsOptional() @CsvList() @IsString({ each: true }) typeKeywords?: string[];
  @IsOptional() @IsString() @MaxLength(64000) description?: string;
  @IsOptional() @IsString() @MaxLength(2048) snippet?: string;
  @IsOptional() @IsString() @MaxLength(4096) url?: string;
  @IsOptional() @IsString() @MaxLength(50 * 1024 * 1024, { message: "'text' is larger than 50 MB." }) text?: string;
  @IsOptional() @IsString() extent?: string;
  @IsOptional() @IsString() @MaxLength(4096) spatialReference?: string;
  @IsOptional() @IsString() @MaxLength(1024 * 1024) properties?: string;
  @IsOptional() @IsString() @MaxLength(256) filename?: string;
  /** The data follows in parts (addPart, then commit); `filename` names it. */
  @IsOptional() @BoolParam() @IsBoolean({ message: "'multipart' must be true or false." }) multipart?: boolean;
}

const SORT_FIELDS = ['title', 'created', 'modified', 'type', 'owner', 'size', 'id', 'numViews'] as const;

export class SearchDto extends PageDto {
  @ValidateIf((o) => o.q !== undefined) @IsString() q?: string;
  @IsOptional()
  // ArcGIS takes sort fields in any case (numviews, numViews, Title).
  @Transform(({ value }) =>
    typeof value === 'string' ? (SORT_FIELDS.find((f) => f.toLowerCase() === value.trim().toLowerCase()) ?? value) : value,
  )
  @IsIn(SORT_FIELDS, { message: `'sortField' must be one of ${SORT_FIELDS.join(', ')}.` })
  sortField?: (typeof SORT_FIELDS)[number];
  @IsOptional() @IsIn(['asc', 'desc'], { message: "'sortOrder' must be asc or desc." }) sortOrder?: 'asc' | 'desc';
}

/** My content's page: a search (same syntax as `search`) within one owner's items, and its filters. */
export class OwnerItemsDto extends SearchDto {
  @IsOptional() @IsString() @MaxLength(128) type?: string;
  @IsOptional()
  @IsIn(['private', 'shared', 'org', 'public'], { message: "'access' must be private, shared, org or public." })
  access?: string;
  @IsOptional() @IsString() @MaxLength(64) group?: string;
}

export class StatusDto {
  @IsOptional() @IsString() @MaxLength(128) jobId?: string;
  @IsOptional()
  @IsIn(['publish', 'generateFeatures', 'export', 'createService'], {
    message: "'jobType' must be one of publish, generateFeatures, export, createService.",
  })
  jobType?: string;
}
