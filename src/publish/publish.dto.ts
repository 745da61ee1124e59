import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class PublishDto {
  @Matches(/^[0-9a-fA-F]{32}$/, { message: "'itemId' must be the id of an uploaded file item (32 hexadecimal characters)." })
  itemId: string;
  @IsString({ message: "'filetype' is required: geojson, csv, shapefile or geoPackage." }) @MaxLength(32) filetype: string;
  @IsString({ message: "'publishParameters' is required: a JSON object with at least 'name'." })
  @MaxLength(1024 * 1024)
  publishParameters: string;
  @IsOptional() @IsString() @MaxLength(1024 * 1024) itemInfo?: string;
}
