/** The attachments module's entry: what other modules may use of it. */
export { AttachmentsModule } from './attachments.module';
export { AttachmentsController } from './attachments.controller';
export { AttachmentsService } from './attachments.service';
export { AttachmentEdits } from './attachment-edits';
export type { AttachmentEditPlan, AttachmentEditResult } from './attachment-edits';
export { AttachmentLayers } from './attachment-layers';
export type { AttachmentTarget } from './attachment-layers';
export { attachmentLayerJson, attachmentQueryCapabilities } from './attachment-json';
export { AttachmentExportRepository } from './attachment-export.repository';
export type { ExportedAttachment } from './attachment-export.repository';
