import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsInt, IsOptional, IsString, Matches, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { PageDto } from '../core/http/paging';
import { BoolParam, IntParam } from '../core/http/params.decorator';
import { USERNAME_PATTERN } from '../core/ids';
import { MAX_PASSWORD_LENGTH } from './passwords';
import { COMMUNITY_SORT_FIELDS, ORG_SORT_FIELDS, UserSortField } from './user-query';

const PASSWORD_TOO_LONG = `'password' must be at most ${MAX_PASSWORD_LENGTH} characters.`;

export class GenerateTokenDto {
  // Optional only together with `serverUrl`: a client exchanging its portal token for a server token sends no password.
  @ValidateIf((o) => !o.serverUrl)
  @IsString({ message: "'username' is required." })
  @MinLength(1, { message: "'username' is required." })
  @MaxLength(128, { message: "'username' must be at most 128 characters." })
  username: string;
  @ValidateIf((o) => !o.serverUrl)
  @IsString({ message: "'password' is required." })
  @MinLength(1, { message: "'password' is required." })
  @MaxLength(MAX_PASSWORD_LENGTH, { message: PASSWORD_TOO_LONG })
  password: string;
  @IsOptional() @IsString() @MaxLength(2048) serverUrl?: string;
  @IsOptional()
  @IsIn(['referer', 'ip', 'requestip'], { message: "'client' must be one of referer, ip, requestip." })
  client?: 'referer' | 'ip' | 'requestip';
  @IsOptional() @IsString() @MaxLength(2048) referer?: string;
  @IsOptional() @IsString() @MaxLength(64) ip?: string;
  @IsOptional()
  @IntParam()
  @IsInt({ message: "'expiration' must be a whole number of minutes." })
  @Min(1, { message: "'expiration' must be at least 1 minute." })
  expiration?: number;
}

export class RevokeTokenDto {
  @IsString({ message: "'auth_token' is required." }) @MinLength(1, { message: "'auth_token' is required." }) auth_token: string;
}

export class CreateUserDto {
  @Matches(USERNAME_PATTERN, { message: "'username' must be 1-128 characters of letters, digits, '_', '.', '@' or '-'." })
  username: string;
  @IsString({ message: "'password' is required." })
  @MinLength(8, { message: "'password' must be at least 8 characters." })
  @MaxLength(MAX_PASSWORD_LENGTH, { message: PASSWORD_TOO_LONG })
  password: string;
  @IsOptional() @IsString() @MaxLength(256) firstname?: string;
  @IsOptional() @IsString() @MaxLength(256) lastname?: string;
  @IsOptional() @IsString() @MaxLength(512) fullname?: string;
  @IsOptional() @IsEmail({}, { message: "'email' must be an email address." }) email?: string;
  @IsOptional() @IsString() @MaxLength(4096) description?: string;
  @IsOptional() @IsString() role?: string;
}

export class CreateRoleDto {
  @IsString({ message: "'name' is required." }) @MinLength(1, { message: "'name' is required." }) @MaxLength(128) name: string;
  @IsOptional() @IsString() @MaxLength(4096) description?: string;
}

export class SetPrivilegesDto {
  @IsString({ message: '\'privileges\' is required: a JSON object {"privileges":[...]}.' }) privileges: string;
}

export class UpdateUserRoleDto {
  @IsString({ message: "'user' is required." }) @MinLength(1, { message: "'user' is required." }) user: string;
  @IsString({ message: "'role' is required." }) @MinLength(1, { message: "'role' is required." }) role: string;
}

// ── users and the organisation (issue 27) ──

/** sortField in any case, as ArcGIS takes it; unknown values stay as sent for the validator to name. */
const oneOf = (allowed: readonly string[]) =>
  Transform(({ value }) => (typeof value === 'string' ? (allowed.find((f) => f === value.trim().toLowerCase()) ?? value) : value));

export class CommunityUserSearchDto extends PageDto {
  @IsOptional() @IsString() q?: string;
  @IsOptional()
  @oneOf(COMMUNITY_SORT_FIELDS)
  @IsIn(COMMUNITY_SORT_FIELDS, { message: `'sortField' must be one of ${COMMUNITY_SORT_FIELDS.join(', ')}.` })
  sortField?: UserSortField;
  @IsOptional() @oneOf(['asc', 'desc']) @IsIn(['asc', 'desc'], { message: "'sortOrder' must be asc or desc." }) sortOrder?: 'asc' | 'desc';
}

export class OrgUserSearchDto extends PageDto {
  @IsOptional() @IsString() q?: string;
  @IsOptional()
  @oneOf(ORG_SORT_FIELDS)
  @IsIn(ORG_SORT_FIELDS, { message: `'sortField' must be one of ${ORG_SORT_FIELDS.join(', ')}.` })
  sortField?: UserSortField;
  @IsOptional() @oneOf(['asc', 'desc']) @IsIn(['asc', 'desc'], { message: "'sortOrder' must be asc or desc." }) sortOrder?: 'asc' | 'desc';
}

/**
 * The profile fields of `community/users/<u>/update`. ArcGIS documents fullname, firstname and lastname; arcgis-rest-js
 * sends the IUser names fullName, firstName and lastName: both are read. A blank value changes nothing unless
 * clearEmptyFields is true, as in ArcGIS.
 */
export class UpdateUserDto {
  @IsOptional() @IsString() @MaxLength(512, { message: "'fullName' must be at most 512 characters." }) fullName?: string;
  @IsOptional() @IsString() @MaxLength(512, { message: "'fullname' must be at most 512 characters." }) fullname?: string;
  @IsOptional() @IsString() @MaxLength(256, { message: "'firstName' must be at most 256 characters." }) firstName?: string;
  @IsOptional() @IsString() @MaxLength(256, { message: "'firstname' must be at most 256 characters." }) firstname?: string;
  @IsOptional() @IsString() @MaxLength(256, { message: "'lastName' must be at most 256 characters." }) lastName?: string;
  @IsOptional() @IsString() @MaxLength(256, { message: "'lastname' must be at most 256 characters." }) lastname?: string;
  @IsOptional() @IsString() @MaxLength(4096, { message: "'description' must be at most 4096 characters." }) description?: string;
  @IsOptional()
  @IsString()
  @MaxLength(32 * 1024, { message: "'tags' must be at most 32768 characters." })
  tags?: string;
  /** Only blank here (to clear it); the image itself arrives as the multipart file part named `thumbnail`. */
  @IsOptional() @IsString() thumbnail?: string;
  @IsOptional() @Matches(/^(private|org|public)?$/, { message: "'access' must be one of private, org, public." }) access?: string;
  @IsOptional()
  @Matches(/^([a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*)?$/, { message: "'culture' must be a culture code such as en or en-US." })
  culture?: string;
  @IsOptional() @Matches(/^([a-zA-Z]{2,3})?$/, { message: "'region' must be a region code such as US or WO." }) region?: string;
  @IsOptional() @Matches(/^(english|metric)?$/, { message: "'units' must be english or metric." }) units?: string;
  @IsOptional() @Matches(/^(Web|GIS|null)?$/, { message: "'preferredView' must be Web or GIS." }) preferredView?: string;
  @IsOptional() @BoolParam() @IsBoolean({ message: "'clearEmptyFields' must be true or false." }) clearEmptyFields?: boolean;
}

export class SetPropertiesDto {
  @IsString({ message: '\'properties\' is required: a JSON object such as {"mapViewer":"modern"}.' }) properties: string;
}

export class PortalSettingsUpdateDto {
  @IsOptional() @IsString() @MaxLength(64 * 1024) informationalBanner?: string;
}
