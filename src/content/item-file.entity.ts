import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export type ItemFileKind = 'info' | 'resource';
export type ResourceAccess = 'inherit' | 'private';

/**
 * An item's info file (`info/<path>`) or resource (`resources/<path>`): the path clients name it by and the file store
 * key of its bytes. Each version of a file gets a key of its own, so a replaced file's old object is removed only once
 * the row names the new one.
 */
@Entity('item_files')
export class ItemFileEntity {
  @PrimaryColumn({ name: 'item_id' }) itemId: string;
  @PrimaryColumn({ type: 'text' }) kind: ItemFileKind;
  @PrimaryColumn() path: string;
  @Column() key: string;
  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } }) size: number;
  @Column({ type: 'text' }) access: ResourceAccess;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) modified: Date;
}
