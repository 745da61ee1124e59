import { CreateDateColumn, Entity, PrimaryColumn, Column } from 'typeorm';

/** A directed, typed link from an origin item to a destination item, owned by the user who made it. */
@Entity('item_relationships')
export class ItemRelationshipEntity {
  @PrimaryColumn({ name: 'origin_id' }) originId: string;
  @PrimaryColumn() type: string;
  @PrimaryColumn({ name: 'destination_id' }) destinationId: string;
  @Column({ name: 'creator_id' }) creatorId: string;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
}
