import { Caller } from '../core/auth/caller';
import { LayerRow, ServiceRow } from '../layers/types';

export interface AttachmentTarget {
  service: ServiceRow;
  layer: LayerRow;
}

/**
 * What attachments need from the FeatureServer that owns the layers, provided by it (feature-server imports this
 * module, so the rules stay where they are): reading and editing a layer under exactly the rules of its query and
 * edits, and the feature pool's gate every read and edit of layer data passes.
 */
export abstract class AttachmentLayers {
  /** The layer as its query resolves it, for a caller who may read the service. */
  abstract readable(caller: Caller | undefined, name: string, layerId: string): Promise<AttachmentTarget>;
  /** The layer as its edits resolve it: the caller may edit the service and it allows `capability`. */
  abstract writable(
    caller: Caller | undefined,
    name: string,
    layerId: string,
    capability: 'Create' | 'Update' | 'Delete',
  ): Promise<AttachmentTarget>;
  abstract run<T>(caller: Caller | undefined, fn: () => Promise<T>): Promise<T>;
}
