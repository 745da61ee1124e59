import { Injectable } from '@nestjs/common';
import { AttachmentLayers, AttachmentTarget } from '../attachments';
import { Caller } from '../core/auth/caller';
import { EditsService } from './edits.service';
import { FeatureGate } from './feature-gate';
import { FeatureServerService } from './feature-server.service';

/** Attachments reach a layer as its query does (read) and as its edits do (write), through the same gate. */
@Injectable()
export class FeatureAttachmentLayers extends AttachmentLayers {
  constructor(
    private readonly features: FeatureServerService,
    private readonly edits: EditsService,
    private readonly gate: FeatureGate,
  ) {
    super();
  }

  async readable(caller: Caller | undefined, name: string, layerId: string): Promise<AttachmentTarget> {
    const { service, layer } = await this.features.readableWithLayer(caller, name, layerId);
    if (!layer) throw this.features.layerMissing(service, layerId);
    return { service, layer: await this.features.attachmentsLayer(service, layer) };
  }

  async writable(
    caller: Caller | undefined,
    name: string,
    layerId: string,
    capability: 'Create' | 'Update' | 'Delete',
  ): Promise<AttachmentTarget> {
    const { service, layer } = await this.edits.target(caller, name, layerId, capability);
    return { service, layer: await this.features.attachmentsLayer(service, layer) };
  }

  run<T>(caller: Caller | undefined, fn: () => Promise<T>): Promise<T> {
    return this.gate.run(caller, fn);
  }
}
