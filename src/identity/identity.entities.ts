import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { BuiltInRole } from '../core/auth/caller';

@Entity('orgs')
export class OrgEntity {
  @PrimaryColumn() id: string;
  @Column() name: string;
  @Column({ name: 'url_key' }) urlKey: string;
  /** What administrators set through `portals/self/settings/update` (see OrgSettings). */
  @Column({ type: 'jsonb' }) settings: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
}

/** A custom role: a named privilege list that replaces the built-in role's privileges. */
@Entity('roles')
export class RoleEntity {
  @PrimaryColumn() id: string;
  @Column({ name: 'org_id' }) orgId: string;
  @Column() name: string;
  @Column() description: string;
  @Column('text', { array: true }) privileges: string[];
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
}

@Entity('users')
export class UserEntity {
  @PrimaryColumn() id: string;
  @Column() username: string;
  @Column({ name: 'org_id' }) orgId: string;
  @Column({ type: 'text' }) role: BuiltInRole;
  @Column({ name: 'role_id', type: 'text', nullable: true }) roleId: string | null;
  @Column({ name: 'full_name' }) fullName: string;
  @Column({ name: 'first_name' }) firstName: string;
  @Column({ name: 'last_name' }) lastName: string;
  @Column() email: string;
  @Column() description: string;
  @Column({ name: 'password_hash', select: false }) passwordHash: string;
  @Column({ name: 'fav_group_id', type: 'text', nullable: true }) favGroupId: string | null;
  @Column() disabled: boolean;
  @Column('text', { array: true }) tags: string[];
  /** The thumbnail's file name (`community/users/<u>/info/<name>`); the file is in storage under FileStore.userKey. */
  @Column({ type: 'text', nullable: true }) thumbnail: string | null;
  /** Who may see the profile: only the user (and administrators), the organisation, or everyone. */
  @Column({ type: 'text' }) access: UserAccess;
  @Column({ type: 'text', nullable: true }) culture: string | null;
  @Column({ type: 'text', nullable: true }) region: string | null;
  @Column({ type: 'text', nullable: true }) units: 'english' | 'metric' | null;
  @Column({ name: 'preferred_view', type: 'text', nullable: true }) preferredView: 'Web' | 'GIS' | null;
  /** The user's app settings (`setProperties`), e.g. mapViewer and landingPage. */
  @Column({ type: 'jsonb', select: false }) properties: Record<string, unknown>;
  @Column({ name: 'last_login', type: 'timestamptz', nullable: true }) lastLogin: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) modified: Date;
}

export type UserAccess = 'private' | 'org' | 'public';

@Entity('tokens')
export class TokenEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id: string;
  @Column({ name: 'token_hash', type: 'bytea' }) tokenHash: Buffer;
  @Column({ name: 'user_id' }) userId: string;
  @Column() client: string;
  /** What the token is bound to: the referer for client=referer, the canonical IP address for ip and requestip. */
  @Column({ type: 'text', nullable: true }) referer: string | null;
  /** The token this one was derived from (federated serverUrl flow); it dies with that one. */
  @Column({ name: 'parent_token_id', type: 'bigint', nullable: true }) parentTokenId: string | null;
  @Column({ type: 'smallint' }) depth: number;
  @Column({ name: 'expires_at', type: 'timestamptz' }) expiresAt: Date;
  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true }) revokedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created: Date;
}
