import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { PageDto } from '../core/http/paging';
import { IntParam } from '../core/http/params.decorator';

/** `createWebhook` and `update`: `events` and `config` are JSON (or `events` comma-separated), read by the service. */
export class WebhookDto {
  @IsOptional() @IsString() @MaxLength(256, { message: "'name' must be at most 256 characters." }) name?: string;
  @IsOptional() @IsString() @MaxLength(2048, { message: "'url' must be at most 2048 characters." }) url?: string;
  @IsOptional() @IsString() @MaxLength(65536, { message: "'events' must be at most 65536 characters." }) events?: string;
  @IsOptional() @IsIn(['allChanges'], { message: "'changes' must be allChanges." }) changes?: string;
  @IsOptional() @IsString() @MaxLength(1024, { message: "'secret' must be at most 1024 characters." }) secret?: string;
  @IsOptional() @IsString() @MaxLength(16384, { message: "'config' must be at most 16384 characters." }) config?: string;
}

export class DeliveriesPageDto extends PageDto {}

export class RedeliverDto {
  @IsString({ message: "'deliveryId' is required." })
  @MaxLength(64, { message: "'deliveryId' must be a delivery id." })
  deliveryId: string;
}

/** `webhooks/settings/update`: each omitted value keeps its current setting. */
export class WebhookSettingsDto {
  @IsOptional()
  @IntParam()
  @IsInt({ message: "'notificationAttempts' must be a whole number." })
  @Min(0, { message: "'notificationAttempts' must be 0 to 5." })
  @Max(5, { message: "'notificationAttempts' must be 0 to 5." })
  notificationAttempts?: number;
  @IsOptional()
  @IntParam()
  @IsInt({ message: "'notificationTimeOutInSeconds' must be a whole number." })
  @Min(1, { message: "'notificationTimeOutInSeconds' must be 1 to 60." })
  @Max(60, { message: "'notificationTimeOutInSeconds' must be 1 to 60." })
  notificationTimeOutInSeconds?: number;
  @IsOptional()
  @IntParam()
  @IsInt({ message: "'notificationElapsedTimeInSeconds' must be a whole number." })
  @Min(0, { message: "'notificationElapsedTimeInSeconds' must be 0 to 300." })
  @Max(300, { message: "'notificationElapsedTimeInSeconds' must be 0 to 300." })
  notificationElapsedTimeInSeconds?: number;
}
