import { IsOptional, IsString, MaxLength } from 'class-validator';
import { CsvList } from '../core/http/params.decorator';

export class CreateFolderDto {
  @IsString({ message: "'title' is required." }) @MaxLength(250, { message: "'title' must be at most 250 characters." }) title: string;
}

export class MoveItemDto {
  /** A folder id or title of the owner's, or `/` (also empty) for the root. */
  @IsOptional() @IsString() @MaxLength(256, { message: "'folder' must be at most 256 characters." }) folder?: string;
}

export class MoveItemsDto extends MoveItemDto {
  @CsvList()
  @IsString({ each: true, message: "'items' is required: a comma-separated list of item ids." })
  items: string[];
}

export class ReassignItemDto {
  @IsString({ message: "'targetUsername' is required." })
  @MaxLength(128, { message: "'targetUsername' is not a user name." })
  targetUsername: string;
  /** The new owner's folder by title, created if missing; `/` or empty for the root. */
  @IsOptional() @IsString() @MaxLength(250, { message: "'targetFolderName' must be at most 250 characters." }) targetFolderName?: string;
}

export class ReassignItemsDto extends ReassignItemDto {
  /** ArcGIS Enterprise's reassignItems spells it so. */
  @IsOptional() @IsString() @MaxLength(250, { message: "'targetFoldername' must be at most 250 characters." }) targetFoldername?: string;
  @CsvList()
  @IsString({ each: true, message: "'items' is required: a comma-separated list of item ids." })
  items: string[];
}
