import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

const bigint = { to: (v: number) => v, from: (v: string) => Number(v) };

/**
 * A file attached to a feature of a hosted layer: the feature by its layer and object id, the name and type it is
 * listed and served with, and the file store key of its bytes (each version a key of its own).
 */
@Entity('feature_attachments')
export class FeatureAttachmentEntity {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT' }) id: number;
  @Column({ name: 'service_item_id' }) serviceItemId: string;
  @Column({ name: 'layer_id', type: 'integer' }) layerId: number;
  @Column({ name: 'object_id', type: 'integer' }) objectId: number;
  @Column({ name: 'global_id', type: 'uuid' }) globalId: string;
  @Column() name: string;
  @Column({ name: 'content_type' }) contentType: string;
  @Column({ type: 'bigint', transformer: bigint }) size: number;
  @Column() keywords: string;
  @Column({ name: 'storage_key' }) storageKey: string;
  @Column({ type: 'timestamptz' }) created: Date;
  @Column({ type: 'timestamptz' }) modified: Date;
}
