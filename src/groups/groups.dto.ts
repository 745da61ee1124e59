import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { PageDto } from '../content/content.dto';
import { BoolParam, CsvList } from '../core/http/params.decorator';
import { GROUP_SORT_FIELDS } from './group-list.repository';

const BOOL = (name: string) => ({ message: `'${name}' must be true or false.` });
const SORT_FIELD = { message: "'sortField' is not a valid sort field." };
const SORT_FIELDS = ['title', 'owner', 'avgrating', 'numviews', 'created', 'modified'];
const MEMBERSHIP_ACCESS = ['org', 'collaboration', 'none'];
/** Older clients send `account`, which ArcGIS treats as `org`. */
const accountIsOrg = Transform(({ value }) => (value === 'account' ? 'org' : value));
/** A blank choice counts as not given (as blank numbers and booleans do everywhere). */
const blankIsAbsent = Transform(({ value }) => (typeof value === 'string' && value.trim() === '' ? undefined : value));

export class CreateGroupDto {
  @IsString({ message: "'title' is required." }) @MinLength(1, { message: "'title' is required." }) @MaxLength(256) title: string;
  @IsOptional()
  @accountIsOrg
  @IsIn(['private', 'org', 'public'], { message: "'access' must be one of private, org, public." })
  access: 'private' | 'org' | 'public' = 'private';
  @IsOptional() @CsvList() @IsString({ each: true }) tags?: string[];
  @IsOptional() @CsvList() @IsString({ each: true }) typeKeywords?: string[];
  @IsOptional() @IsString() @MaxLength(64000) description?: string;
  @IsOptional() @IsString() @MaxLength(2048) snippet?: string;
  @IsOptional() @IsString() @MaxLength(64) phone?: string;
  @IsOptional() @IsIn(SORT_FIELDS, SORT_FIELD) sortField?: string;
  @IsOptional() @IsIn(['asc', 'desc'], { message: "'sortOrder' must be asc or desc." }) sortOrder?: string;
  @IsOptional() @BoolParam() @IsBoolean(BOOL('isViewOnly')) isViewOnly?: boolean;
  @IsOptional() @BoolParam() @IsBoolean(BOOL('isInvitationOnly')) isInvitationOnly?: boolean;
  @IsOptional() @BoolParam() @IsBoolean(BOOL('autoJoin')) autoJoin?: boolean;
  @IsOptional()
  @blankIsAbsent
  @IsIn(MEMBERSHIP_ACCESS, { message: "'membershipAccess' must be one of org, collaboration, none." })
  membershipAccess?: 'org' | 'collaboration' | 'none';
}

/**
 * ArcGIS's update: only what is sent changes. An empty text or list is ignored unless `clearEmptyFields` is true,
 * which clears it (the title cannot be cleared). A `thumbnail` sent as text (a group read back and sent whole) is
 * ignored: a new thumbnail is a file part.
 */
export class UpdateGroupDto {
  @IsOptional() @IsString() @MaxLength(256, { message: "'title' must be at most 256 characters." }) title?: string;
  @IsOptional()
  @blankIsAbsent
  @accountIsOrg
  @IsIn(['private', 'org', 'public'], { message: "'access' must be one of private, org, public." })
  access?: 'private' | 'org' | 'public';
  @IsOptional() @CsvList() @IsString({ each: true }) tags?: string[];
  @IsOptional() @CsvList() @IsString({ each: true }) typeKeywords?: string[];
  @IsOptional() @IsString() @MaxLength(64000) description?: string;
  @IsOptional() @IsString() @MaxLength(2048) snippet?: string;
  @IsOptional() @IsString() @MaxLength(64) phone?: string;
  @IsOptional() @blankIsAbsent @IsIn(SORT_FIELDS, SORT_FIELD) sortField?: string;
  @IsOptional() @blankIsAbsent @IsIn(['asc', 'desc'], { message: "'sortOrder' must be asc or desc." }) sortOrder?: string;
  @IsOptional() @BoolParam() @IsBoolean(BOOL('isViewOnly')) isViewOnly?: boolean;
  @IsOptional() @BoolParam() @IsBoolean(BOOL('isInvitationOnly')) isInvitationOnly?: boolean;
  @IsOptional() @BoolParam() @IsBoolean(BOOL('autoJoin')) autoJoin?: boolean;
  @IsOptional()
  @IsIn([...MEMBERSHIP_ACCESS, ''], { message: "'membershipAccess' must be one of org, collaboration, none." })
  membershipAccess?: 'org' | 'collaboration' | 'none' | '';
  @IsOptional() @BoolParam() @IsBoolean(BOOL('clearEmptyFields')) clearEmptyFields?: boolean;
}

export class GroupSearchDto extends PageDto {
  @ValidateIf((o) => o.q !== undefined) @IsString() q?: string;
  @IsOptional()
  @blankIsAbsent
  // ArcGIS takes sort fields in any case (numViews, Title).
  @Transform(({ value }) =>
    typeof value === 'string' ? (GROUP_SORT_FIELDS.find((f) => f === value.trim().toLowerCase()) ?? value) : value,
  )
  @IsIn(GROUP_SORT_FIELDS, { message: `'sortField' must be one of ${GROUP_SORT_FIELDS.join(', ')}.` })
  sortField?: (typeof GROUP_SORT_FIELDS)[number];
  @IsOptional() @blankIsAbsent @IsIn(['asc', 'desc'], { message: "'sortOrder' must be asc or desc." }) sortOrder?: 'asc' | 'desc';
  /** `groupMember`: only groups the caller belongs to. */
  @IsOptional()
  @blankIsAbsent
  @IsIn(['groupMember'], { message: "'searchUserAccess' must be groupMember." })
  searchUserAccess?: 'groupMember';
}

export class CategorySchemaDto {
  @IsString({ message: "'categorySchema' is required." })
  @MaxLength(256 * 1024, { message: "'categorySchema' is larger than 256 KB." })
  categorySchema: string;
}
