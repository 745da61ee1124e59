import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity('item_shares')
export class ItemShareEntity {
  @PrimaryColumn({ name: 'item_id' }) itemId: string;
  @PrimaryColumn({ name: 'group_id' }) groupId: string;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
}
