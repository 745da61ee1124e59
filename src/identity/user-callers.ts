import { Injectable } from '@nestjs/common';
import { builtInPrivileges, Caller } from '../core/auth/caller';
import { UserEntity } from './identity.entities';
import { IdentityRepository } from './identity.repository';

/**
 * A user as a Caller: what they may do now, to ask the rules about someone other than the one making the request
 * (the user an export lands with) or about a request again when its job runs. The worker has it without the rest
 * of identity.
 */
@Injectable()
export class UserCallers {
  constructor(private readonly repo: IdentityRepository) {}

  /** What `user` holds now: their custom role's privileges, else their built-in role's (as token resolution does). */
  async privilegesOf(user: Pick<UserEntity, 'role' | 'roleId'>): Promise<string[]> {
    const role = user.roleId ? await this.repo.findRole(user.roleId) : null;
    return role?.privileges ?? builtInPrivileges(user.role);
  }

  async callerFor(user: UserEntity): Promise<Caller> {
    return {
      userId: user.id,
      username: user.username,
      orgId: user.orgId,
      role: user.role,
      roleId: user.roleId,
      privileges: await this.privilegesOf(user),
    };
  }

  /** The user with this id as they stand now, and whether they are disabled (their tokens no longer resolve); null when gone. */
  async current(userId: string): Promise<{ caller: Caller; disabled: boolean } | null> {
    const user = await this.repo.findUserById(userId);
    return user ? { caller: await this.callerFor(user), disabled: user.disabled } : null;
  }
}
