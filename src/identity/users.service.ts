import { Inject, Injectable, Logger } from '@nestjs/common';
import { Caller, canAny, holdsAll, Privilege } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { eventBy } from '../core/events/outbox.repository';
import { UploadedFile } from '../core/http/arcgis-request';
import { nextStart } from '../core/http/paging';
import { requiredJsonParam } from '../core/http/param-values';
import { checkTags } from '../core/http/tag-list';
import { Download } from '../core/storage/download';
import { FileStore } from '../core/storage/file-store';
import { sniffThumbnail, thumbnailMime, thumbnailName } from '../core/storage/thumbnail';
import { CommunityUserSearchDto, OrgUserSearchDto, UpdateUserDto } from './identity.dto';
import { UserEntity } from './identity.entities';
import { IdentityRepository, ProfilePatch } from './identity.repository';
import { IdentityService } from './identity.service';
import { privateUser, privilegesOfRow, profileView, publicUser, viewsUsersOf } from './user-json';
import { UserListRepository } from './user-list.repository';
import { parseUserQuery } from './user-query';

/** User search, profile updates (thumbnail included) and the user's app settings. */
@Injectable()
export class UsersService {
  private readonly logger = new Logger(UsersService.name);

  constructor(
    private readonly repo: IdentityRepository,
    private readonly lists: UserListRepository,
    private readonly identity: IdentityService,
    private readonly files: FileStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `portals/<id>/users/search`: the organisation's users with their whole records, for its user administrators. */
  async searchOrg(caller: Caller, portalId: string, p: OrgUserSearchDto) {
    const org = await this.identity.orgOfPortal(caller, portalId);
    if (!viewsUsersOf(caller, org.id)) throw Errors.forbidden('Only administrators of the organization may search its users.');
    const page = { start: p.start, num: p.num, sortField: p.sortField ?? 'username', sortOrder: p.sortOrder ?? 'asc' };
    const { total, rows } = await this.lists.searchOrg(org.id, parseUserQuery(p.q, 'org'), page);
    const results = rows.map((r) => privateUser(r, privilegesOfRow(r, r.rolePrivileges)));
    return { query: p.q ?? '', total, start: p.start, num: p.num, nextStart: nextStart(p, total), results };
  }

  /** `community/users`: the profiles the caller may see, as each user's `access` says, public part only. */
  async searchCommunity(caller: Caller, p: CommunityUserSearchDto) {
    const page = { start: p.start, num: p.num, sortField: p.sortField ?? 'username', sortOrder: p.sortOrder ?? 'asc' };
    const { total, rows } = await this.lists.searchCommunity(
      caller,
      viewsUsersOf(caller, caller.orgId),
      parseUserQuery(p.q, 'community'),
      page,
    );
    return { query: p.q ?? '', total, start: p.start, num: p.num, nextStart: nextStart(p, total), results: rows.map(publicUser) };
  }

  /**
   * `community/users/<u>/update`: users change their own profile; a user administrator of the organisation
   * (updateUsers, or manageUsers) changes others' who hold nothing the administrator lacks.
   */
  async update(caller: Caller, username: string, p: UpdateUserDto, file: UploadedFile | undefined) {
    const user = await this.requireUpdatable(caller, username);
    const patch = this.profilePatch(p);
    let stored: string | undefined;
    if (file) {
      stored = await this.storeThumbnail(user, file);
      patch.thumbnail = stored;
    }
    let previous: string | null;
    try {
      ({ previousThumbnail: previous } = await this.repo.updateProfile(user.id, patch, eventBy(caller, 'user', 'update', [user.username])));
    } catch (e) {
      if (stored && stored !== user.thumbnail) await this.removeThumbnail(user.id, stored);
      throw e;
    }
    if (patch.thumbnail !== undefined && previous && previous !== patch.thumbnail) await this.removeThumbnail(user.id, previous);
    return { success: true, username: user.username };
  }

  /** `community/users/<u>/properties`: the user's app settings, for the user and the organisation's user administrators. */
  async properties(caller: Caller, username: string) {
    const user = await this.identity.requireUser(username);
    if (profileView(caller, user) !== 'full') {
      if (!profileView(caller, user)) throw Errors.userNotFound(username);
      throw Errors.forbidden("Only the user and the organization's administrators may read a user's properties.");
    }
    return { properties: await this.repo.findProperties(user.id) };
  }

  /** `community/users/<u>/setProperties`: merges the keys given into the user's app settings (null removes a key). */
  async setProperties(caller: Caller, username: string, raw: string) {
    const user = await this.requireUpdatable(caller, username);
    const properties = requiredJsonParam<Record<string, unknown>>('properties', raw, 'object');
    const max = this.config.limits.userPropertiesMaxChars;
    if (!(await this.repo.mergeProperties(user.id, properties, max))) {
      throw Errors.badRequest('Unable to set properties.', [
        `A user's properties are limited to ${max} characters of JSON (USER_PROPERTIES_MAX_KB).`,
      ]);
    }
    return { success: true };
  }

  /** `community/users/<u>/info/<name>`: the user's thumbnail, to whoever may see the profile. */
  async thumbnail(caller: Caller | undefined, username: string, name: string): Promise<Download> {
    const user = await this.identity.requireUser(username);
    if (!profileView(caller, user)) throw Errors.userNotFound(username);
    const missing = () =>
      Errors.badRequest('File does not exist or is inaccessible.', [`User '${user.username}' has no file '${name.slice(0, 64)}'.`]);
    if (!user.thumbnail || user.thumbnail !== name) throw missing();
    const key = FileStore.userKey(user.id, user.thumbnail);
    const object = await this.files.stat(key);
    if (!object) throw missing();
    return { key, object, fileName: user.thumbnail, contentType: thumbnailMime(user.thumbnail) };
  }

  private async requireUpdatable(caller: Caller, username: string): Promise<UserEntity> {
    const user = await this.identity.requireUser(username);
    if (user.id === caller.userId) return user;
    if (!profileView(caller, user)) throw Errors.userNotFound(username);
    const admin = caller.orgId === user.orgId && canAny(caller, Privilege.AdminUsers, Privilege.AdminUpdateUsers);
    if (!admin) throw Errors.forbidden("Only the user and the organization's administrators may change a user's profile.");
    // As for roles: a lesser administrator must not rewrite the profiles of those above it.
    if (!holdsAll(caller, await this.identity.privilegesOf(user)))
      throw Errors.forbidden(`You cannot update '${user.username}': that user holds privileges you do not hold.`);
    return user;
  }

  /** The parameters as columns: a blank one is skipped, or cleared with clearEmptyFields=true, as ArcGIS does. */
  private profilePatch(p: UpdateUserDto): ProfilePatch {
    const clear = p.clearEmptyFields === true;
    const patch: ProfilePatch = {};
    const given = (v: string | undefined): v is string => v !== undefined && (clear || v.trim() !== '');
    const text = (v: string | undefined, set: (value: string) => void) => given(v) && set(v.trim());
    const code = <T extends string>(v: string | undefined, set: (value: T | null) => void) =>
      given(v) && set(v.trim() === '' || v.trim() === 'null' ? null : (v.trim() as T));
    text(p.fullName ?? p.fullname, (v) => (patch.fullName = v));
    text(p.firstName ?? p.firstname, (v) => (patch.firstName = v));
    text(p.lastName ?? p.lastname, (v) => (patch.lastName = v));
    text(p.description, (v) => (patch.description = v));
    if (given(p.tags)) {
      const tags = [
        ...new Set(
          p.tags
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
        ),
      ];
      checkTags('tags', tags, this.config.limits);
      patch.tags = tags;
    }
    // access has no empty value: a blank one changes nothing, clearEmptyFields or not.
    if (p.access?.trim()) patch.access = p.access.trim() as UserEntity['access'];
    code(p.culture, (v) => (patch.culture = v));
    code(p.region, (v) => (patch.region = v));
    code<'english' | 'metric'>(p.units, (v) => (patch.units = v));
    code<'Web' | 'GIS'>(p.preferredView, (v) => (patch.preferredView = v));
    if (p.thumbnail !== undefined) {
      if (p.thumbnail.trim() !== '')
        throw Errors.badRequest('Invalid or missing input parameters.', [
          "'thumbnail' must be a PNG, GIF or JPEG file sent as the multipart part 'thumbnail'.",
        ]);
      if (clear) patch.thumbnail = null;
    }
    return patch;
  }

  /** Checks the upload is a thumbnail image and stores it under the user; returns the stored name. */
  private async storeThumbnail(user: UserEntity, file: UploadedFile): Promise<string> {
    if (file.fieldname !== 'thumbnail')
      throw Errors.badRequest('Invalid or missing input parameters.', [
        `This operation takes a file only as 'thumbnail', not '${file.fieldname.slice(0, 64)}'.`,
      ]);
    const kind = await sniffThumbnail(file.path);
    if (!kind) throw Errors.badRequest('Invalid thumbnail.', ["'thumbnail' must be a PNG, GIF or JPEG image."]);
    const name = thumbnailName(FileStore.safeName(file.originalname), kind);
    await this.files.adoptAs(FileStore.userKey(user.id, name), file.path);
    return name;
  }

  /** A failed removal leaves a file no row names; nothing serves it, and the next upload of that name replaces it. */
  private async removeThumbnail(userId: string, name: string): Promise<void> {
    await this.files
      .remove(FileStore.userKey(userId, name))
      .catch((e) => this.logger.warn(`could not remove thumbnail ${name} of ${userId}: ${(e as Error).message}`));
  }
}
