import { Module } from '@nestjs/common';
import { FeatureDatabaseModule } from '../core/database/feature-database.module';
import { AttachmentEdits } from './attachment-edits';
import { AttachmentsRepository } from './attachments.repository';
import { AttachmentsService } from './attachments.service';

/**
 * Feature attachments. The FeatureServer module imports this one and declares AttachmentsController with its own
 * AttachmentLayers, so the layer access rules stay in feature-server and nothing here imports it.
 */
@Module({
  imports: [FeatureDatabaseModule],
  providers: [AttachmentsRepository, AttachmentsService, AttachmentEdits],
  exports: [AttachmentsService, AttachmentEdits],
})
export class AttachmentsModule {}
