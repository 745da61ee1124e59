import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export type BaseAccess = 'private' | 'org' | 'public';
export type ItemStatus = 'processing' | 'completed' | 'failed' | 'partsUploading';

/**
 * `access` holds the item's own level; "shared" (in groups only) is derived from item_shares when read,
 * so concurrent share and unshare can never leave it stale.
 */
@Entity('items')
export class ItemEntity {
  @PrimaryColumn() id: string;
  @Column({ name: 'owner_id' }) ownerId: string;
  @Column({ name: 'org_id' }) orgId: string;
  @Column() title: string;
  @Column() type: string;
  @Column('text', { name: 'type_keywords', array: true }) typeKeywords: string[];
  @Column('text', { array: true }) tags: string[];
  @Column() description: string;
  @Column() snippet: string;
  @Column({ type: 'text', nullable: true }) url: string | null;
  @Column({ type: 'text' }) access: BaseAccess;
  @Column({ type: 'text', nullable: true }) name: string | null;
  @Column({ name: 'file_path', type: 'text', nullable: true, select: false }) filePath: string | null;
  @Column({ name: 'content_type', type: 'text', nullable: true }) contentType: string | null;
  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } }) size: number;
  @Column({ type: 'text', nullable: true, select: false }) data: string | null;
  @Column({ type: 'jsonb' }) extent: number[][];
  @Column({ name: 'spatial_reference', type: 'text', nullable: true }) spatialReference: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeORM's update() types refuse Record<string, unknown>
  @Column({ type: 'jsonb', nullable: true }) properties: Record<string, any> | null;
  @Column({
    name: 'num_views',
    type: 'bigint',
    insert: false,
    update: false,
    transformer: { to: (v: number) => v, from: (v: string) => Number(v) },
  })
  numViews: number;
  @Column({ name: 'access_information', type: 'text', nullable: true }) accessInformation: string | null;
  @Column({ name: 'license_info', type: 'text', nullable: true }) licenseInfo: string | null;
  @Column({ type: 'text', nullable: true }) culture: string | null;
  /** `thumbnail/<name>`, as the item JSON names it; the object's key is thumbnail_key. */
  @Column({ type: 'text', nullable: true }) thumbnail: string | null;
  @Column({ name: 'thumbnail_key', type: 'text', nullable: true, select: false }) thumbnailKey: string | null;
  @Column({ name: 'protected', type: 'boolean', default: false }) isProtected: boolean;
  /** The owner's folder (folders module); null at the root. */
  @Column({ name: 'owner_folder', type: 'text', nullable: true }) ownerFolder: string | null;
  @Column({ type: 'text' }) status: ItemStatus;
  @Column({ name: 'status_message' }) statusMessage: string;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) modified: Date;
}
