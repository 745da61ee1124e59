import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CsvList } from '../core/http/params.decorator';

/**
 * addRelationship / deleteRelationship. arcgis-rest-js sends `relationshipType`, ArcGIS's reference says
 * `relationshipTypes`: either is taken.
 */
export class RelationshipDto {
  @IsString({ message: "'originItemId' is required." }) @MaxLength(64) originItemId: string;
  @IsString({ message: "'destinationItemId' is required." }) @MaxLength(64) destinationItemId: string;
  @IsOptional() @IsString() @MaxLength(64) relationshipType?: string;
  @IsOptional() @IsString() @MaxLength(64) relationshipTypes?: string;
}

/** relatedItems: one type (`relationshipType`) or several (`relationshipTypes`, comma-separated), and a direction. */
export class RelatedItemsDto {
  @IsOptional() @CsvList() @IsString({ each: true }) @MaxLength(64, { each: true }) relationshipType?: string[];
  @IsOptional() @CsvList() @IsString({ each: true }) @MaxLength(64, { each: true }) relationshipTypes?: string[];
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() || undefined : value))
  @IsIn(['forward', 'reverse'], { message: "'direction' must be forward or reverse." })
  direction: 'forward' | 'reverse' = 'forward';
}
