import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { PageDto } from '../content/content.dto';
import { CsvList, IntParam } from '../core/http/params.decorator';
import { MEMBER_SORT_FIELDS } from './group-list.repository';

/** The request's user names; how many one request may name is GROUP_USERS_PER_REQUEST, checked by the service. */
const Names = () => (target: object, key: string) => {
  CsvList()(target, key);
  IsString({ each: true, message: `'${key}' is required.` })(target, key);
  MaxLength(128, { each: true, message: `A user name in '${key}' is longer than 128 characters.` })(target, key);
};

export class AddUsersDto {
  @IsOptional() @Names() users?: string[];
  @IsOptional() @Names() admins?: string[];
}

export class RemoveUsersDto {
  @Names() users: string[];
}

/** `users` become members, `admins` become managers (what updateUserMemberships sends, by newMemberType). */
export class UpdateUsersDto {
  @IsOptional() @Names() users?: string[];
  @IsOptional() @Names() admins?: string[];
}

export class InviteDto {
  @Names() users: string[];
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' && value.trim() === '' ? undefined : value))
  @IsIn(['group_member', 'group_admin'], { message: "'role' must be group_member or group_admin." })
  role: 'group_member' | 'group_admin' = 'group_member';
  /** Minutes; ArcGIS offers one day to two weeks. */
  @IsOptional()
  @IntParam()
  @IsInt({ message: "'expiration' must be a whole number of minutes." })
  @Min(1, { message: "'expiration' must be at least 1 minute." })
  @Max(20160, { message: "'expiration' must be at most 20160 minutes (two weeks)." })
  expiration = 1440;
}

export class UserListDto extends PageDto {
  @IsOptional()
  @IntParam()
  @IsInt({ message: "'num' must be a whole number." })
  @Min(0, { message: "'num' must be 0 or more." })
  @Max(100, { message: "'num' must be at most 100." })
  num = 25;
  @IsOptional() @IsString() @MaxLength(256, { message: "'name' must be at most 256 characters." }) name?: string;
  @IsOptional()
  @CsvList()
  @IsIn(['owner', 'admin', 'member'], { each: true, message: "'memberType' must be owner, admin or member." })
  memberType?: ('owner' | 'admin' | 'member')[];
  @IsOptional()
  @Transform(({ value }) =>
    typeof value === 'string' ? (MEMBER_SORT_FIELDS.find((f) => f.toLowerCase() === value.trim().toLowerCase()) ?? value) : value,
  )
  @IsIn(MEMBER_SORT_FIELDS, { message: `'sortField' must be one of ${MEMBER_SORT_FIELDS.join(', ')}.` })
  sortField: (typeof MEMBER_SORT_FIELDS)[number] = 'username';
  @IsOptional() @IsIn(['asc', 'desc'], { message: "'sortOrder' must be asc or desc." }) sortOrder: 'asc' | 'desc' = 'asc';
  /** Joined between two dates in epoch ms, `from,to`; either may be empty. */
  @IsOptional() @IsString() @MaxLength(64) joined?: string;
}
