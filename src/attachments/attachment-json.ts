import { LayerRow } from '../layers/types';

/** What a layer's JSON says of attachments: hasAttachments always, the rest only when the definition enabled them. */
export function attachmentLayerJson(layer: Pick<LayerRow, 'has_attachments'>) {
  if (!layer.has_attachments) return { hasAttachments: false };
  return {
    hasAttachments: true,
    supportsQueryAttachments: true,
    supportsAttachmentsByUploadId: false,
    supportsAttachmentsResizing: false,
    attachmentProperties: ['name', 'size', 'contentType', 'keywords', 'exifInfo', 'globalId'].map((name) => ({
      name,
      isEnabled: name !== 'exifInfo',
    })),
  };
}

/** The advancedQueryCapabilities entries of an attachment-enabled layer. */
export function attachmentQueryCapabilities(layer: Pick<LayerRow, 'has_attachments'>) {
  return layer.has_attachments ? { supportsQueryAttachments: true, supportsQueryAttachmentsCountOnly: false } : {};
}
