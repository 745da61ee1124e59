import { IsOptional, IsString, MaxLength } from 'class-validator';

export class AddAttachmentDto {
  @IsOptional() @IsString() @MaxLength(1024, { message: "'keywords' must be at most 1024 characters." }) keywords?: string;
  @IsOptional() @IsString() @MaxLength(64) uploadId?: string;
  @IsOptional() @IsString() @MaxLength(64) gdbVersion?: string;
}

export class UpdateAttachmentDto extends AddAttachmentDto {
  @IsOptional() @IsString() @MaxLength(32) attachmentId?: string;
}

export class DeleteAttachmentsDto {
  @IsOptional() @IsString() @MaxLength(64000) attachmentIds?: string;
  @IsOptional() @IsString() @MaxLength(64) gdbVersion?: string;
  @IsOptional() @IsString() rollbackOnFailure?: string;
}

export class QueryAttachmentsDto {
  @IsOptional() @IsString() @MaxLength(1024 * 1024) objectIds?: string;
  @IsOptional() @IsString() @MaxLength(4 * 1024 * 1024) globalIds?: string;
  @IsOptional() @IsString() definitionExpression?: string;
  @IsOptional() @IsString() @MaxLength(10000) attachmentsDefinitionExpression?: string;
  @IsOptional() @IsString() @MaxLength(4096) attachmentTypes?: string;
  @IsOptional() @IsString() @MaxLength(64) size?: string;
  @IsOptional() @IsString() @MaxLength(26000) keywords?: string;
  @IsOptional() @IsString() resultOffset?: string;
  @IsOptional() @IsString() resultRecordCount?: string;
  @IsOptional() @IsString() returnUrl?: string;
  @IsOptional() @IsString() returnMetadata?: string;
  @IsOptional() @IsString() returnCountOnly?: string;
  @IsOptional() @IsString() f?: string;
}
