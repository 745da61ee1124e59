import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsBoolean, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { BoolParam, CsvList } from '../core/http/params.decorator';

const BOOL = (name: string) => ({ message: `'${name}' must be true or false.` });

export class CreateGroupDto {
  @IsString({ message: "'title' is required." }) @MinLength(1, { message: "'title' is required." }) @MaxLength(256) title: string;
  // Older clients send `account`, which ArcGIS treats as `org`.
  @IsOptional()
  @Transform(({ value }) => (value === 'account' ? 'org' : value))
  @IsIn(['private', 'org', 'public'], { message: "'access' must be one of private, org, public." })
  access: 'private' | 'org' | 'public' = 'private';
  @IsOptional() @CsvList() @IsString({ each: true }) @MaxLength(256, { each: true }) tags?: string[];
  @IsOptional() @IsString() @MaxLength(64000) description?: string;
  @IsOptional() @IsString() @MaxLength(2048) snippet?: string;
  @IsOptional() @IsString() @MaxLength(64) phone?: string;
  @IsOptional()
  @IsIn(['title', 'owner', 'avgrating', 'numviews', 'created', 'modified'], { message: "'sortField' is not a valid sort field." })
  sortField?: string;
  @IsOptional() @IsIn(['asc', 'desc'], { message: "'sortOrder' must be asc or desc." }) sortOrder?: string;
  @IsOptional() @BoolParam() @IsBoolean(BOOL('isViewOnly')) isViewOnly?: boolean;
  @IsOptional() @BoolParam() @IsBoolean(BOOL('isInvitationOnly')) isInvitationOnly?: boolean;
  @IsOptional() @BoolParam() @IsBoolean(BOOL('autoJoin')) autoJoin?: boolean;
}

export class AddUsersDto {
  @IsOptional() @CsvList() @IsString({ each: true }) @ArrayMaxSize(1000, { message: 'At most 1000 users per request.' }) users?: string[];
  @IsOptional() @CsvList() @IsString({ each: true }) @ArrayMaxSize(1000, { message: 'At most 1000 admins per request.' }) admins?: string[];
}

export class RemoveUsersDto {
  @CsvList()
  @IsString({ each: true, message: "'users' is required." })
  @ArrayMaxSize(1000, { message: 'At most 1000 users per request.' })
  users: string[];
}

export class UpdateMembershipsDto {
  @CsvList()
  @IsString({ each: true, message: "'users' is required." })
  @ArrayMaxSize(1000, { message: 'At most 1000 users per request.' })
  users: string[];
  @IsIn(['member', 'admin'], { message: "'newMemberType' must be member or admin." }) newMemberType: 'member' | 'admin';
}
