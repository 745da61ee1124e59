import { Module } from '@nestjs/common';
import { AttachmentLayers, AttachmentsController, AttachmentsModule } from '../attachments';
import { ContentModule } from '../content/content.module';
import { FeatureDatabaseModule } from '../core/database/feature-database.module';
import { IdentityModule } from '../identity/identity.module';
import { LayersModule } from '../layers/layers.module';
import { FeatureAttachmentLayers } from './attachment-layers';
import { FeatureGate } from './feature-gate';
import { EditsService } from './edits.service';
import { FeatureDataRepository } from './feature-data.repository';
import {
  CreateServiceController,
  FeatureAdminController,
  FeatureServerController,
  ServerInfoController,
  ServiceNameController,
} from './feature-server.controller';
import { FeatureServerService } from './feature-server.service';
import { GeometryPool } from './geometry/geometry-pool.service';
import { PbfQueryService } from './pbf/pbf-query.service';
import { QueryService } from './query.service';
import { RelatedRecordsService } from './related.service';
import { FeatureViewsService } from './views.service';

@Module({
  imports: [IdentityModule, ContentModule, LayersModule, FeatureDatabaseModule, AttachmentsModule],
  // Attachments' routes first: `<layer>/queryAttachments` must not reach a `<layer>/<oid>` route.
  controllers: [
    CreateServiceController,
    AttachmentsController,
    FeatureServerController,
    FeatureAdminController,
    ServerInfoController,
    ServiceNameController,
  ],
  providers: [
    FeatureGate,
    FeatureDataRepository,
    FeatureServerService,
    QueryService,
    PbfQueryService,
    EditsService,
    GeometryPool,
    RelatedRecordsService,
    FeatureViewsService,
    { provide: AttachmentLayers, useClass: FeatureAttachmentLayers },
  ],
  exports: [FeatureServerService, FeatureDataRepository, QueryService],
})
export class FeatureServerModule {}
