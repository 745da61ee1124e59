import { IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';

export class ExportItemDto {
  @Matches(/^[0-9a-fA-F]{32}$/, { message: "'itemId' must be the id of a hosted feature service item (32 hexadecimal characters)." })
  itemId: string;
  @IsString({ message: "'exportFormat' is required." })
  @MinLength(1, { message: "'exportFormat' is required." })
  @MaxLength(64)
  exportFormat: string;
  @IsOptional() @IsString() @MaxLength(256, { message: "'title' must be at most 256 characters." }) title?: string;
  @IsOptional() @IsString() @MaxLength(1024 * 1024) exportParameters?: string;
}

/** cancelJob: the job, as status names it (the item in the path is the job's result or source). */
export class CancelJobDto {
  @Matches(/^[0-9a-fA-F]{32}$/, { message: "'jobId' must be a job id (32 hexadecimal characters)." })
  jobId: string;
  @IsOptional() @IsIn(['export'], { message: "'jobType' must be export." }) jobType?: string;
}
