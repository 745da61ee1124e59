import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { PageDto } from '../core/http/paging';
import { BoolParam, CsvList } from '../core/http/params.decorator';

const CHANNELS = ['builtin', 'email', 'push'];
const MESSAGE_MAX = 8192;

class NotificationDto {
  @IsOptional() @IsString() @MaxLength(1024, { message: "'subject' must be at most 1024 characters." }) subject?: string;
  @IsString({ message: "'message' is required." })
  @MinLength(1, { message: "'message' is required." })
  // Every recipient stores a copy and lists it on each poll, so a message is kept short (a notification, not a letter).
  @MaxLength(MESSAGE_MAX, { message: `'message' must be at most ${MESSAGE_MAX} characters.` })
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

/** Paging of a user's notifications: newest first, at most 100 a page, the newest 100 when not asked. */
export class NotificationsPageDto extends PageDto {
  override num = 100;
}
