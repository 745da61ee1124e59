import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export type MemberType = 'owner' | 'admin' | 'member';
export type MembershipAccess = 'org' | 'collaboration' | 'none';
export type InvitationRole = 'group_member' | 'group_admin';

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
  @Column() protected: boolean;
  /** Who may be in the group besides invited users: `org` members only, `collaboration` (here the same), `none` (anyone); null as `none`. */
  @Column({ name: 'membership_access', type: 'text', nullable: true }) membershipAccess: MembershipAccess | null;
  @Column('text', { name: 'type_keywords', array: true }) typeKeywords: string[];
  @Column({ name: 'category_schema', type: 'jsonb', nullable: true }) categorySchema: unknown[] | null;
  /** The thumbnail's file name as clients see it (`info/<thumbnail>`), and its key in the file store. */
  @Column({ type: 'text', nullable: true }) thumbnail: string | null;
  @Column({ name: 'thumbnail_key', type: 'text', nullable: true }) thumbnailKey: string | null;
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

/** A user's request to join a group that needs a manager's approval. */
@Entity('group_applications')
export class GroupApplicationEntity {
  @PrimaryColumn({ name: 'group_id' }) groupId: string;
  @PrimaryColumn({ name: 'user_id' }) userId: string;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
}

/** A manager's invitation of a user into a group, until it is accepted, declined or expires. */
@Entity('group_invitations')
export class GroupInvitationEntity {
  @PrimaryColumn() id: string;
  @Column({ name: 'group_id' }) groupId: string;
  @Column({ name: 'user_id' }) userId: string;
  @Column({ name: 'from_user_id', type: 'text', nullable: true }) fromUserId: string | null;
  @Column({ type: 'text' }) role: InvitationRole;
  @Column({ type: 'timestamptz' }) expires: Date;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
}
