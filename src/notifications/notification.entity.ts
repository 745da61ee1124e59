import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One built-in notification in one user's list (`community/users/<u>/notifications`). */
@Entity('notifications')
export class NotificationEntity {
  @PrimaryColumn() id: string;
  @Column({ name: 'user_id' }) userId: string;
  @Column() type: string;
  @Column({ type: 'jsonb' }) data: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
}
