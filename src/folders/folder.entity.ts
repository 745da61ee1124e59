import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A user's folder: one level, only the owner's items in it (items.owner_folder). */
@Entity('folders')
export class FolderEntity {
  @PrimaryColumn() id: string;
  @Column({ name: 'owner_id' }) ownerId: string;
  @Column() title: string;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
}
