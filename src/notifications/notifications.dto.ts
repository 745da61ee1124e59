import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { BoolParam, CsvList } from '../core/http/params.decorator';

const CHANNELS = ['builtin', 'email', 'push'];

class NotificationDto {
  @IsOptional() @IsString() @MaxLength(1024, { message: "'subject' must be at most 1024 characters." }) subject?: string;
  @IsString({ message: "'message' is required." })
  @MinLength(1, { message: "'message' is required." })
  @MaxLength(64 * 1024, { message: "'message' must be at most 65536 characters." })
  message: string;
  @IsOptional()
  @IsIn(CHANNELS, { message: "'notificationChannelType' must be one of builtin, email, push." })
  notificationChannelType?: 'builtin' | 'email' | 'push';
  @IsOptional() @IsString() @MaxLength(256) clientId?: string;
}

/** `community/groups/<id>/createNotification`: to the listed members, or (no `users`, or notifyAll) to every member. */
export class GroupNotificationDto extends NotificationDto {
  @IsOptional()
  @CsvList()
  @IsString({ each: true })
  @MaxLength(128, { each: true, message: "Each of 'users' must be a user name." })
  users?: string[];
  @IsOptional() @BoolParam() @IsBoolean({ message: "'notifyAll' must be true or false." }) notifyAll?: boolean;
  @IsOptional() @BoolParam() @IsBoolean({ message: "'silentNotification' must be true or false." }) silentNotification?: boolean;
}

/** `portals/self/createNotification`: to the listed users of the organisation. */
export class OrgNotificationDto extends NotificationDto {
  @CsvList()
  @IsString({ each: true, message: "'users' is required: a comma-separated list of user names." })
  @MaxLength(128, { each: true, message: "Each of 'users' must be a user name." })
  users: string[];
}
