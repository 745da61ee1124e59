import { IsEmail, IsIn, IsInt, IsOptional, IsString, Matches, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { IntParam } from '../core/http/params.decorator';
import { USERNAME_PATTERN } from '../core/ids';
import { MAX_PASSWORD_LENGTH } from './passwords';

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
