import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export type MemberType = 'owner' | 'admin' | 'member';

@Entity('groups')
export class GroupEntity {
  @PrimaryColumn() id: string;
  @Column({ name: 'org_id' }) orgId: string;
  @Column({ name: 'owner_id' }) ownerId: string;
  @Column() title: string;
  @Column({ type: 'text' }) access: 'private' | 'org' | 'public';
  @Column('text', { array: true }) tags: string[];
  @Column() description: string;
  @Column() snippet: string;
  @Column() phone: string;
  @Column({ name: 'sort_field' }) sortField: string;
  @Column({ name: 'sort_order' }) sortOrder: string;
  @Column({ name: 'is_invitation_only' }) isInvitationOnly: boolean;
  @Column({ name: 'is_view_only' }) isViewOnly: boolean;
  @Column({ name: 'is_fav' }) isFav: boolean;
  @Column({ name: 'auto_join' }) autoJoin: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) modified: Date;
}

@Entity('group_members')
export class GroupMemberEntity {
  @PrimaryColumn({ name: 'group_id' }) groupId: string;
  @PrimaryColumn({ name: 'user_id' }) userId: string;
  @Column({ name: 'member_type', type: 'text' }) memberType: MemberType;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
}
