import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A multipart upload in progress (addItem multipart=true until commit ends it). */
@Entity('item_uploads')
export class ItemUploadEntity {
  @PrimaryColumn({ name: 'item_id' }) itemId: string;
  @Column({ name: 'file_name' }) fileName: string;
  /** The storage backend's handle of the upload (S3's UploadId); null on local disk. */
  @Column({ name: 'storage_ref', type: 'text', nullable: true }) storageRef: string | null;
  @Column({ type: 'text' }) state: 'uploading' | 'committing';
  @Column({ type: 'timestamptz' }) started: Date;
  @Column({ type: 'timestamptz' }) touched: Date;
}

/** One received part: its bytes are in storage under the upload. */
@Entity('item_upload_parts')
export class ItemUploadPartEntity {
  @PrimaryColumn({ name: 'item_id' }) itemId: string;
  @PrimaryColumn({ name: 'part_num' }) partNum: number;
  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } }) size: number;
  @Column() etag: string;
}
