import { Inject, Injectable } from '@nestjs/common';
import { Caller, isAdminFor, Privilege } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { nextStart } from '../core/http/paging';
import { ID_PATTERN } from '../core/ids';
import { MembersService } from '../groups/members.service';
import { IdentityService } from '../identity/identity.service';
import { GroupNotificationDto, NotificationsPageDto, OrgNotificationDto } from './notifications.dto';
import { NotificationEntity } from './notification.entity';
import { NotificationsRepository } from './notifications.repository';

/** The type of every notification this portal delivers itself: ArcGIS's `builtin` channel. */
export const BUILTIN = 'builtin';

const notFound = (id: string) =>
  Errors.badRequest('Notification does not exist or is inaccessible.', [`No notification '${id.slice(0, 64)}' for this user.`]);

/** Only the built-in channel is delivered here; email and push need services this portal does not run. */
function assertBuiltin(channel: string | undefined): void {
  if (channel === undefined || channel === BUILTIN) return;
  // The reason goes in the message itself: arcgis-rest-js shows only the message of an error.
  throw Errors.badRequest(`Unsupported notificationChannelType '${channel}': this portal delivers only builtin notifications.`, [
    "Notifications go to users' notification lists (notificationChannelType=builtin); it sends no email and has no push service.",
  ]);
}

/** Built-in notifications: delivered to group members and organisation users, read and removed by their recipients. */
@Injectable()
export class NotificationsService {
  constructor(
    private readonly repo: NotificationsRepository,
    private readonly identity: IdentityService,
    private readonly members: MembersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A page of the caller's notifications (`start`, `num`: our extension, as ArcGIS's own listing pages are not
   * documented; a client that sends neither gets the newest 100), so a long list never loads whole into memory.
   */
  async list(caller: Caller, username: string, page: NotificationsPageDto) {
    const user = await this.recipient(caller, username);
    const { total, rows } = await this.repo.list(user.id, page.start, page.num);
    return {
      total,
      start: page.start,
      num: rows.length,
      nextStart: nextStart(page, total),
      notifications: rows.map((n) => this.toJson(n, user.username)),
    };
  }

  async get(caller: Caller, username: string, id: string) {
    const user = await this.recipient(caller, username);
    const n = ID_PATTERN.test(id) ? await this.repo.find(user.id, id.toLowerCase()) : null;
    if (!n) throw notFound(id);
    return this.toJson(n, user.username);
  }

  async remove(caller: Caller, username: string, id: string) {
    const user = await this.recipient(caller, username);
    if (!ID_PATTERN.test(id) || !(await this.repo.remove(user.id, id.toLowerCase()))) throw notFound(id);
    return { success: true, notificationId: id.toLowerCase() };
  }

  /**
   * `community/groups/<id>/createNotification`, for those who manage the group: to the members named in `users`
   * (each must be a member), or to every member when none are named or notifyAll is true.
   */
  async toGroup(caller: Caller, groupId: string, p: GroupNotificationDto) {
    const { groupId: gid, title, members } = await this.members.managedGroupMembers(caller, groupId);
    assertBuiltin(p.notificationChannelType);
    let recipients = members;
    if (p.users?.length && p.notifyAll !== true) {
      const byName = new Map(members.map((m) => [m.username.toLowerCase(), m]));
      const outside = p.users.filter((u) => !byName.has(u.toLowerCase()));
      if (outside.length)
        throw Errors.badRequest(
          'Unable to create notification.',
          outside.slice(0, 20).map((u) => `'${u.slice(0, 64)}' is not a member of the group.`),
        );
      recipients = [...new Set(p.users.map((u) => byName.get(u.toLowerCase())!))];
    }
    const data = { subject: p.subject ?? '', message: p.message, groupId: gid, groupTitle: title, sender: caller.username };
    await this.repo.deliver(
      recipients.map((m) => m.userId),
      BUILTIN,
      data,
      this.config.limits.notificationsPerUser,
    );
    return { success: true };
  }

  /** `portals/<id>/createNotification`, for the organisation's user administrators: to the users named. */
  async toOrg(caller: Caller, portalId: string, p: OrgNotificationDto) {
    const org = await this.identity.orgOfPortal(caller, portalId);
    if (!isAdminFor(caller, org.id, Privilege.AdminUsers))
      throw Errors.forbidden("Only the organization's administrators may notify its users.");
    assertBuiltin(p.notificationChannelType);
    if (!p.users?.length)
      throw Errors.badRequest('Invalid or missing input parameters.', ["'users' is required: a comma-separated list of user names."]);
    const { found, missing } = await this.identity.orgUsers(org.id, [...new Set(p.users)]);
    if (missing.length)
      throw Errors.badRequest(
        'Unable to create notification.',
        missing.slice(0, 20).map((u) => `'${u.slice(0, 64)}' is not a user of the organization.`),
      );
    const data = { subject: p.subject ?? '', message: p.message, orgId: org.id, sender: caller.username };
    await this.repo.deliver(
      found.map((u) => u.id),
      BUILTIN,
      data,
      this.config.limits.notificationsPerUser,
    );
    return { success: true };
  }

  /** Notifications are the recipient's alone, as in ArcGIS: administrators do not read or remove others'. */
  /** The caller, named in the path; any other name is refused alike, so the answer does not tell whether it exists. */
  private async recipient(caller: Caller, username: string) {
    const forbidden = () => Errors.forbidden('Only the recipient may read or remove their notifications.');
    if (username.toLowerCase() !== caller.username.toLowerCase()) throw forbidden();
    const user = await this.identity.requireUser(username);
    if (user.id !== caller.userId) throw forbidden();
    return user;
  }

  private toJson(n: NotificationEntity, username: string) {
    return { id: n.id, type: n.type, target: username, targetType: 'user', received: n.created.getTime(), data: n.data };
  }
}
