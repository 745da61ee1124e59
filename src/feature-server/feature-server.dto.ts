import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CsvList } from '../core/http/params.decorator';

export class CreateServiceDto {
  @IsString({ message: "'createParameters' is required: a JSON object with at least 'name'." })
  @MaxLength(1024 * 1024)
  createParameters: string;
  @IsIn(['featureService'], { message: "'outputType' must be featureService." }) outputType: string;
  @IsOptional() @IsString() @MaxLength(1024 * 1024) itemInfo?: string;
  @IsOptional() @CsvList() @IsString({ each: true }) tags?: string[];
  /** true: a hosted feature layer view, whose layers addToDefinition takes from their sources. */
  @IsOptional() @IsString() @MaxLength(5) isView?: string;
}

export class AddToDefinitionDto {
  @IsString({ message: "'addToDefinition' is required: a JSON object with 'layers' and/or 'tables'." })
  @MaxLength(10 * 1024 * 1024)
  addToDefinition: string;
}

export class DeleteFromDefinitionDto {
  @IsString({ message: '\'deleteFromDefinition\' is required: a JSON object {"layers":[{"id":0}]}.' })
  @MaxLength(1024 * 1024)
  deleteFromDefinition: string;
}

export class UpdateDefinitionDto {
  @IsString({ message: "'updateDefinition' is required: a JSON object of the properties to change." })
  @MaxLength(10 * 1024 * 1024)
  updateDefinition: string;
}

/** A layer's addToDefinition: fields and relationships (the service's takes layers and tables). */
export class LayerAddToDefinitionDto {
  @IsString({ message: "'addToDefinition' is required: a JSON object with 'fields' and/or 'relationships'." })
  @MaxLength(10 * 1024 * 1024)
  addToDefinition: string;
}

export class LayerDeleteFromDefinitionDto {
  @IsString({
    message: '\'deleteFromDefinition\' is required: a JSON object {"fields":[{"name":"f"}]} and/or {"relationships":[{"id":0}]}.',
  })
  @MaxLength(1024 * 1024)
  deleteFromDefinition: string;
}

/** queryRelatedRecords (ArcGIS answers it in json and html only, not pbf). */
export class QueryRelatedDto {
  @IsOptional() @IsString() @MaxLength(1024 * 1024) objectIds?: string;
  @IsOptional() @IsString() relationshipId?: string;
  @IsOptional() @IsString() @MaxLength(64000) outFields?: string;
  @IsOptional() @IsString() definitionExpression?: string;
  @IsOptional() @IsString() returnGeometry?: string;
  @IsOptional() @IsString() @MaxLength(64000) outSR?: string;
  @IsOptional() @IsString() @MaxLength(4096) orderByFields?: string;
  @IsOptional() @IsString() returnCountOnly?: string;
  @IsOptional() @IsString() resultOffset?: string;
  @IsOptional() @IsString() resultRecordCount?: string;
  @IsOptional() @IsString() maxAllowableOffset?: string;
  @IsOptional() @IsString() geometryPrecision?: string;
  @IsOptional() @IsString() f?: string;
}

export class QueryDto {
  @IsOptional() @IsString() where?: string;
  @IsOptional() @IsString() @MaxLength(64000) outFields?: string;
  @IsOptional() @IsString() returnGeometry?: string;
  @IsOptional() @IsString() @MaxLength(64000) outSR?: string;
  @IsOptional() @IsString() @MaxLength(1024 * 1024) objectIds?: string;
  @IsOptional() @IsString() @MaxLength(4096) orderByFields?: string;
  @IsOptional() @IsString() resultOffset?: string;
  @IsOptional() @IsString() resultRecordCount?: string;
  @IsOptional() @IsString() returnCountOnly?: string;
  @IsOptional() @IsString() returnIdsOnly?: string;
  @IsOptional() @IsString() returnExtentOnly?: string;
  @IsOptional() @IsString() returnExceededLimitFeatures?: string;
  @IsOptional() @IsString() @MaxLength(64000) outStatistics?: string;
  @IsOptional() @IsString() returnDistinctValues?: string;
  @IsOptional() @IsString() @MaxLength(64000) groupByFieldsForStatistics?: string;
  @IsOptional() @IsString() @MaxLength(64000) having?: string;
  @IsOptional() @IsString() @MaxLength(1024 * 1024) geometry?: string;
  @IsOptional() @IsString() geometryType?: string;
  @IsOptional() @IsString() @MaxLength(64000) inSR?: string;
  @IsOptional() @IsString() spatialRel?: string;
  @IsOptional() @IsString() @MaxLength(64000) quantizationParameters?: string;
  @IsOptional() @IsString() maxAllowableOffset?: string;
  @IsOptional() @IsString() geometryPrecision?: string;
  @IsOptional() @IsString() returnCentroid?: string;
  @IsOptional() @IsString() f?: string;
}

export class EditsDto {
  @IsOptional() @IsString() features?: string;
  @IsOptional() @IsString() adds?: string;
  @IsOptional() @IsString() updates?: string;
  @IsOptional() @IsString() deletes?: string;
  @IsOptional() @IsString() objectIds?: string;
  @IsOptional() @IsString() where?: string;
  @IsOptional() @IsString() rollbackOnFailure?: string;
  @IsOptional() @IsString() @MaxLength(64000) sr?: string;
  @IsOptional() @IsString() gdbVersion?: string;
  @IsOptional() @IsString() useGlobalIds?: string;
  @IsOptional() @IsString() attachments?: string;
}

export class ServiceNameDto {
  @IsString({ message: "'name' is required." }) @MaxLength(1024, { message: "'name' must be 1-100 letters, digits or '_'." }) name: string;
  /** ArcGIS's service type ("Feature Service"); names are unique across types here, so it does not change the answer. */
  @IsString({ message: "'type' is required, e.g. Feature Service." })
  @MaxLength(64, { message: "'type' must be at most 64 characters." })
  type: string;
}

/** The layer resource (`FeatureServer/<id>`, `FeatureServer/layers`). */
export class LayerInfoDto {
  @IsOptional() @IsString() @MaxLength(16) returnDomainNames?: string;
}

export class QueryDomainsDto {
  @IsOptional() @IsString() @MaxLength(64000) layers?: string;
}
