import { uniq } from '../../support/client';
import { admin, Case, fx, GARBAGE_TOKEN, ghost, ids, INVALID, long, notHex, noToken, o, other, Params, Route, Want } from './support';

// Every route in src/**/*.controller.ts and its missing and malformed parameter cases, by module.
const owner = () => fx.owner.username;
const item = () => fx.itemId;
const edited = () => fx.editItemId;
const group = () => fx.groupId;
const SHARE_FLAGS = ['everyone', 'org', 'account', 'confirmItemControl'];

export const IDENTITY_ROUTES: Route[] = [
  {
    name: 'generateToken',
    kind: 'POST',
    auth: 'public',
    path: 'generateToken',
    params: () => ({ username: fx.owner.username, password: fx.owner.password }),
    fuzz: ['username', 'password', 'client', 'referer', 'ip', 'expiration'],
  },
  {
    name: 'oauth2/revokeToken',
    kind: 'POST',
    auth: 'required',
    path: 'oauth2/revokeToken',
    params: () => ({ auth_token: 'no-such-token' }),
    fuzz: ['auth_token'],
    ok: false,
  },
  { name: 'community/self', kind: 'ANY', auth: 'required', path: 'community/self' },
  { name: 'community/users/:username', kind: 'ANY', auth: 'public', path: 'community/users/:username', pathParams: { username: owner } },
  { name: 'portals/self', kind: 'ANY', auth: 'public', path: 'portals/self' },
  {
    name: 'portals/self/createRole',
    kind: 'POST',
    auth: 'required',
    path: 'portals/self/createRole',
    token: () => fx.admin,
    params: () => ({ name: uniq('role') }),
    fuzz: ['name', 'description'],
  },
  {
    name: 'portals/self/roles/:roleId/setPrivileges',
    kind: 'POST',
    auth: 'required',
    path: 'portals/self/roles/:roleId/setPrivileges',
    pathParams: { roleId: () => fx.roleId },
    token: () => fx.admin,
    params: () => ({ privileges: JSON.stringify({ privileges: ['portal:user:createItem'] }) }),
    fuzz: ['privileges'],
  },
  {
    name: 'portals/self/updateUserRole',
    kind: 'POST',
    auth: 'required',
    path: 'portals/self/updateUserRole',
    token: () => fx.admin,
    params: () => ({ user: fx.member.username, role: 'org_user' }),
    fuzz: ['user', 'role'],
  },
  {
    name: 'portaladmin/security/users/createUser',
    kind: 'POST',
    auth: 'required',
    root: true,
    path: 'portaladmin/security/users/createUser',
    token: () => fx.admin,
    params: () => ({ username: uniq('fz'), password: 'password-123' }),
    fuzz: ['username', 'password', 'firstname', 'lastname', 'fullname', 'email', 'description', 'role'],
  },
  // ── users and the organisation (issue 27) ──
  {
    name: 'community/users',
    kind: 'ANY',
    auth: 'required',
    path: 'community/users',
    params: () => ({ q: `username:${fx.owner.username}` }),
    fuzz: ['q', 'start', 'num', 'sortField', 'sortOrder'],
  },
  {
    name: 'portals/:portalId/users/search',
    kind: 'ANY',
    auth: 'required',
    path: 'portals/:portalId/users/search',
    pathParams: { portalId: () => 'self' },
    token: () => fx.admin,
    params: () => ({ q: 'user' }),
    fuzz: ['q', 'start', 'num', 'sortField', 'sortOrder'],
  },
  { name: 'portals/:portalId', kind: 'ANY', auth: 'public', path: 'portals/:portalId', pathParams: { portalId: () => 'self' } },
  {
    name: 'portals/:portalId/settings',
    kind: 'ANY',
    auth: 'public',
    path: 'portals/:portalId/settings',
    pathParams: { portalId: () => 'self' },
  },
  {
    name: 'portals/:portalId/subscriptionInfo',
    kind: 'ANY',
    auth: 'required',
    path: 'portals/:portalId/subscriptionInfo',
    pathParams: { portalId: () => 'self' },
  },
  {
    name: 'portals/:portalId/settings/update',
    kind: 'POST',
    auth: 'required',
    path: 'portals/:portalId/settings/update',
    pathParams: { portalId: () => 'self' },
    token: () => fx.admin,
    params: () => ({ informationalBanner: JSON.stringify({ text: 'hello', enabled: false }) }),
    fuzz: ['informationalBanner'],
  },
  // Answered by the feature-server module, which owns service names.
  {
    name: 'portals/:portalId/isServiceNameAvailable',
    kind: 'ANY',
    auth: 'required',
    path: 'portals/:portalId/isServiceNameAvailable',
    pathParams: { portalId: () => 'self' },
    params: () => ({ name: uniq('svc'), type: 'Feature Service' }),
    fuzz: ['name', 'type'],
  },
  {
    name: 'community/users/:username/update',
    kind: 'POST',
    auth: 'required',
    path: 'community/users/:username/update',
    pathParams: { username: owner },
    params: () => ({ description: 'about me' }),
    fuzz: [
      'fullName',
      'fullname',
      'firstName',
      'lastName',
      'description',
      'tags',
      'thumbnail',
      'access',
      'culture',
      'region',
      'units',
      'preferredView',
      'clearEmptyFields',
    ],
  },
  {
    name: 'community/users/:username/properties',
    kind: 'ANY',
    auth: 'required',
    path: 'community/users/:username/properties',
    pathParams: { username: owner },
  },
  {
    name: 'community/users/:username/setProperties',
    kind: 'POST',
    auth: 'required',
    path: 'community/users/:username/setProperties',
    pathParams: { username: owner },
    params: () => ({ properties: JSON.stringify({ mapViewer: 'modern' }) }),
    fuzz: ['properties'],
  },
  // The fixture's owner has no thumbnail: the baseline answers that the file does not exist.
  {
    name: 'community/users/:username/info/:name',
    kind: 'ANY',
    auth: 'public',
    path: 'community/users/:username/info/:name',
    pathParams: { username: owner, name: () => 'face.png' },
    ok: false,
  },
];

export const CONTENT_ROUTES: Route[] = [
  {
    name: 'content/users/:owner/addItem',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/addItem',
    pathParams: { owner },
    params: () => ({ title: uniq('item'), type: 'Web Map' }),
    fuzz: [
      'title',
      'type',
      'tags',
      'typeKeywords',
      'description',
      'snippet',
      'url',
      'text',
      'extent',
      'spatialReference',
      'properties',
      'filename',
    ],
  },
  {
    name: 'content/users/:owner',
    kind: 'ANY',
    auth: 'required',
    path: 'content/users/:owner',
    pathParams: { owner },
    fuzz: ['start', 'num'],
  },
  { name: 'content/items/:id', kind: 'ANY', auth: 'public', path: 'content/items/:id', pathParams: { id: item } },
  { name: 'content/items/:id/data', kind: 'ANY', auth: 'public', path: 'content/items/:id/data', pathParams: { id: item } },
  // The baseline id is missing so that nothing is deleted.
  {
    name: 'content/users/:owner/items/:id/delete',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/delete',
    pathParams: { owner, id: () => fx.missingId },
    ok: false,
  },
  {
    name: 'content/users/:owner/items/:id/status',
    kind: 'ANY',
    auth: 'required',
    path: 'content/users/:owner/items/:id/status',
    pathParams: { owner, id: item },
    fuzz: ['jobId', 'jobType'],
  },
  {
    name: 'search',
    kind: 'ANY',
    auth: 'public',
    path: 'search',
    params: () => ({ q: 'title: item' }),
    fuzz: ['q', 'start', 'num', 'sortField', 'sortOrder'],
  },

  // ── item details: update, thumbnail, protection, info files, resources, relationships, item groups ──
  {
    name: 'content/users/:owner/items/:id/update',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/update',
    pathParams: { owner, id: edited },
    params: () => ({ title: uniq('updated') }),
    fuzz: [
      'title',
      'tags',
      'typeKeywords',
      'description',
      'snippet',
      'accessInformation',
      'licenseInfo',
      'culture',
      'properties',
      'url',
      'extent',
      'spatialReference',
      'text',
      'filename',
      'thumbnailUrl',
      'dataUrl',
      'clearEmptyFields',
    ],
  },
  {
    name: 'content/users/:owner/:folder/items/:id/update',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/:folder/items/:id/update',
    pathParams: { owner, folder: () => '0'.repeat(32), id: edited },
    params: () => ({ snippet: uniq('in a folder') }),
    fuzz: ['snippet'],
  },
  ...(['deleteThumbnail', 'protect', 'unprotect'] as const).map((op): Route => ({
    name: `content/users/:owner/items/:id/${op}`,
    kind: 'POST',
    auth: 'required',
    path: `content/users/:owner/items/:id/${op}`,
    pathParams: { owner, id: edited },
  })),
  // Without a file part: the baseline is the envelope saying the file is required.
  {
    name: 'content/users/:owner/items/:id/updateinfo',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/updateinfo',
    pathParams: { owner, id: edited },
    fuzz: ['folderName'],
    ok: false,
  },
  {
    name: 'content/items/:id/info/:file',
    kind: 'ANY',
    auth: 'public',
    path: 'content/items/:id/info/:file',
    pathParams: { id: item, file: () => 'missing.json' },
    ok: false,
  },
  {
    name: 'content/users/:owner/items/:id/addResources',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/addResources',
    pathParams: { owner, id: edited },
    params: () => ({ fileName: `${uniq('r')}.json`, text: '{}' }),
    fuzz: ['fileName', 'resourcesPrefix', 'text', 'access', 'archive'],
  },
  {
    name: 'content/users/:owner/items/:id/updateResources',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/updateResources',
    pathParams: { owner, id: edited },
    params: () => ({ fileName: 'missing.json', text: '{}' }),
    fuzz: ['fileName', 'resourcesPrefix', 'text', 'access', 'archive'],
    ok: false,
  },
  {
    name: 'content/users/:owner/items/:id/removeResources',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/removeResources',
    pathParams: { owner, id: edited },
    params: () => ({ resource: 'missing.json' }),
    fuzz: ['resource', 'deleteAll'],
    ok: false,
  },
  {
    name: 'content/items/:id/resources',
    kind: 'ANY',
    auth: 'public',
    path: 'content/items/:id/resources',
    pathParams: { id: edited },
    fuzz: ['start', 'num', 'sortField', 'sortOrder'],
  },
  {
    name: 'content/items/:id/resources/:file',
    kind: 'ANY',
    auth: 'public',
    path: 'content/items/:id/resources/:file',
    pathParams: { id: edited, file: () => 'missing.json' },
    ok: false,
  },
  {
    name: 'content/users/:owner/addRelationship',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/addRelationship',
    pathParams: { owner },
    params: () => ({ originItemId: fx.itemId, destinationItemId: fx.editItemId, relationshipType: 'Item2Report' }),
    fuzz: ['originItemId', 'destinationItemId', 'relationshipType', 'relationshipTypes'],
  },
  {
    name: 'content/users/:owner/deleteRelationship',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/deleteRelationship',
    pathParams: { owner },
    params: () => ({ originItemId: fx.itemId, destinationItemId: fx.editItemId, relationshipType: 'Map2Service' }),
    fuzz: ['originItemId', 'destinationItemId', 'relationshipType', 'relationshipTypes'],
    ok: false,
  },
  {
    name: 'content/items/:id/relatedItems',
    kind: 'ANY',
    auth: 'public',
    path: 'content/items/:id/relatedItems',
    pathParams: { id: item },
    params: () => ({ relationshipType: 'Map2Service' }),
    fuzz: ['relationshipType', 'relationshipTypes', 'direction'],
  },
  { name: 'content/items/:id/groups', kind: 'ANY', auth: 'public', path: 'content/items/:id/groups', pathParams: { id: item } },
  // ── users (issue 27): the tags of a user's items ──
  {
    name: 'community/users/:owner/tags',
    kind: 'ANY',
    auth: 'required',
    path: 'community/users/:owner/tags',
    pathParams: { owner },
  },
  // ── cancelJob (issue 30): a missing item's job, so the baseline cancels nothing ──
  {
    name: 'content/users/:owner/items/:id/cancelJob',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/cancelJob',
    pathParams: { owner, id: () => fx.missingId },
    params: () => ({ jobId: fx.missingId, jobType: 'export' }),
    fuzz: ['jobId', 'jobType'],
    ok: false,
  },
];

export const GROUP_ROUTES: Route[] = [
  {
    name: 'content/groups/:id/search',
    kind: 'ANY',
    auth: 'public',
    path: 'content/groups/:id/search',
    pathParams: { id: group },
    params: () => ({ q: 'item' }),
    fuzz: ['q', 'start', 'num', 'sortField', 'sortOrder'],
  },
  {
    name: 'community/createGroup',
    kind: 'POST',
    auth: 'required',
    path: 'community/createGroup',
    params: () => ({ title: uniq('group') }),
    fuzz: [
      'title',
      'access',
      'tags',
      'description',
      'snippet',
      'phone',
      'sortField',
      'sortOrder',
      'isViewOnly',
      'isInvitationOnly',
      'autoJoin',
    ],
  },
  { name: 'community/groups/:id', kind: 'ANY', auth: 'public', path: 'community/groups/:id', pathParams: { id: group } },
  {
    name: 'content/groups/:id',
    kind: 'ANY',
    auth: 'public',
    path: 'content/groups/:id',
    pathParams: { id: group },
    fuzz: ['start', 'num'],
  },
  {
    name: 'community/groups/:id/addUsers',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/addUsers',
    pathParams: { id: group },
    params: () => ({ users: fx.member.username }),
    fuzz: ['users', 'admins'],
  },
  {
    name: 'community/groups/:id/removeUsers',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/removeUsers',
    pathParams: { id: group },
    params: () => ({ users: 'nobody_in_this_group' }),
    fuzz: ['users'],
  },
  // The baseline id is missing so that the fixture group is not deleted.
  {
    name: 'community/groups/:id/delete',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/delete',
    pathParams: { id: () => fx.missingId },
    ok: false,
  },

  // ── groups: search, update, protection, members, joining, invitations, category schema ──
  {
    name: 'community/groups',
    kind: 'ANY',
    auth: 'public',
    path: 'community/groups',
    params: () => ({ q: 'title: group' }),
    fuzz: ['q', 'start', 'num', 'sortField', 'sortOrder', 'searchUserAccess'],
  },
  {
    name: 'community/groups/:id/update',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/update',
    pathParams: { id: group },
    params: () => ({ snippet: 'updated' }),
    fuzz: [
      'title',
      'access',
      'tags',
      'typeKeywords',
      'description',
      'snippet',
      'phone',
      'sortField',
      'sortOrder',
      'isViewOnly',
      'isInvitationOnly',
      'autoJoin',
      'membershipAccess',
      'clearEmptyFields',
    ],
  },
  { name: 'community/groups/:id/protect', kind: 'POST', auth: 'required', path: 'community/groups/:id/protect', pathParams: { id: group } },
  // After protect, so the fixture group ends unprotected.
  {
    name: 'community/groups/:id/unprotect',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/unprotect',
    pathParams: { id: group },
  },
  { name: 'community/groups/:id/users', kind: 'ANY', auth: 'required', path: 'community/groups/:id/users', pathParams: { id: group } },
  {
    name: 'community/groups/:id/userlist',
    kind: 'ANY',
    auth: 'required',
    path: 'community/groups/:id/userlist',
    pathParams: { id: group },
    params: () => ({ memberType: 'owner,member' }),
    fuzz: ['name', 'memberType', 'sortField', 'sortOrder', 'joined', 'start', 'num'],
  },
  {
    name: 'community/groups/:id/updateUsers',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/updateUsers',
    pathParams: { id: group },
    params: () => ({ users: fx.member.username }),
    fuzz: ['users', 'admins'],
  },
  // `other` asks to join (the group needs approval); asking again is answered alike.
  {
    name: 'community/groups/:id/join',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/join',
    pathParams: { id: group },
    token: other,
  },
  // `other` is no member, so leaving is refused (and nobody leaves the fixture group).
  {
    name: 'community/groups/:id/leave',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/leave',
    pathParams: { id: group },
    token: other,
    ok: false,
  },
  {
    name: 'community/groups/:id/invite',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/invite',
    pathParams: { id: group },
    params: () => ({ users: fx.other.username, role: 'group_member', expiration: '1440' }),
    fuzz: ['users', 'role', 'expiration'],
  },
  {
    name: 'community/groups/:id/applications',
    kind: 'ANY',
    auth: 'required',
    path: 'community/groups/:id/applications',
    pathParams: { id: group },
  },
  // The member never asked to join: the application routes answer that it does not exist.
  ...['', '/accept', '/decline'].map((op): Route => ({
    name: `community/groups/:id/applications/:username${op}`,
    kind: op ? 'POST' : 'ANY',
    auth: 'required',
    path: `community/groups/:id/applications/:username${op}`,
    pathParams: { id: group, username: () => fx.member.username },
    ok: false,
  })),
  {
    name: 'community/users/:username/invitations',
    kind: 'ANY',
    auth: 'required',
    path: 'community/users/:username/invitations',
    pathParams: { username: owner },
  },
  ...['', '/accept', '/decline'].map((op): Route => ({
    name: `community/users/:username/invitations/:invitationId${op}`,
    kind: op ? 'POST' : 'ANY',
    auth: 'required',
    path: `community/users/:username/invitations/:invitationId${op}`,
    pathParams: { username: owner, invitationId: () => fx.missingId },
    ok: false,
  })),
  {
    name: 'community/groups/:id/categorySchema',
    kind: 'ANY',
    auth: 'public',
    path: 'community/groups/:id/categorySchema',
    pathParams: { id: group },
  },
  {
    name: 'community/groups/:id/assignCategorySchema',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/assignCategorySchema',
    pathParams: { id: group },
    params: () => ({ categorySchema: JSON.stringify({ categorySchema: [{ title: 'Categories', categories: [{ title: 'Parks' }] }] }) }),
    fuzz: ['categorySchema'],
  },
  // The fixture group has no thumbnail.
  {
    name: 'community/groups/:id/info/:name',
    kind: 'ANY',
    auth: 'public',
    path: 'community/groups/:id/info/:name',
    pathParams: { id: group, name: () => 'thumbnail.png' },
    ok: false,
  },
];

export const SHARING_ROUTES: Route[] = [
  {
    name: 'content/users/:owner/unshareItems',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/unshareItems',
    pathParams: { owner },
    params: () => ({ items: fx.itemId, groups: fx.groupId }),
    fuzz: ['items', 'groups'],
  },
  {
    name: 'content/users/:owner/shareItems',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/shareItems',
    pathParams: { owner },
    params: () => ({ items: fx.itemId, groups: fx.groupId }),
    fuzz: ['items', 'groups', ...SHARE_FLAGS],
  },
  {
    name: 'content/users/:owner/items/:id/unshare',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/unshare',
    pathParams: { owner, id: item },
    params: () => ({ groups: fx.groupId }),
    fuzz: ['groups'],
  },
  {
    name: 'content/users/:owner/items/:id/share',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/share',
    pathParams: { owner, id: item },
    params: () => ({ groups: fx.groupId }),
    fuzz: ['groups', ...SHARE_FLAGS],
  },
  {
    name: 'content/items/:id/unshare',
    kind: 'POST',
    auth: 'required',
    path: 'content/items/:id/unshare',
    pathParams: { id: item },
    params: () => ({ groups: fx.groupId }),
    fuzz: ['groups'],
  },
  {
    name: 'content/items/:id/share',
    kind: 'POST',
    auth: 'required',
    path: 'content/items/:id/share',
    pathParams: { id: item },
    params: () => ({ groups: fx.groupId }),
    fuzz: ['groups', ...SHARE_FLAGS],
  },
];

export const NOTIFICATION_ROUTES: Route[] = [
  {
    name: 'community/users/:username/notifications',
    kind: 'ANY',
    auth: 'required',
    path: 'community/users/:username/notifications',
    pathParams: { username: owner },
  },
  // The baseline id is missing so that nothing is read or deleted.
  {
    name: 'community/users/:username/notifications/:id',
    kind: 'ANY',
    auth: 'required',
    path: 'community/users/:username/notifications/:id',
    pathParams: { username: owner, id: () => fx.missingId },
    ok: false,
  },
  {
    name: 'community/users/:username/notifications/:id/delete',
    kind: 'POST',
    auth: 'required',
    path: 'community/users/:username/notifications/:id/delete',
    pathParams: { username: owner, id: () => fx.missingId },
    ok: false,
  },
  {
    name: 'community/groups/:id/createNotification',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/createNotification',
    pathParams: { id: group },
    params: () => ({ subject: 'hello', message: 'group message', notificationChannelType: 'builtin' }),
    fuzz: ['subject', 'message', 'users', 'notificationChannelType', 'notifyAll', 'silentNotification', 'clientId'],
  },
  {
    name: 'portals/:portalId/createNotification',
    kind: 'POST',
    auth: 'required',
    path: 'portals/:portalId/createNotification',
    pathParams: { portalId: () => 'self' },
    token: () => fx.admin,
    params: () => ({ users: fx.member.username, message: 'org message', notificationChannelType: 'builtin' }),
    fuzz: ['users', 'subject', 'message', 'notificationChannelType'],
  },
];

// ── folders, move, reassign, multipart upload ──
const folder = () => fx.folderId;
const uploading = () => fx.uploadId;
export const FOLDER_ROUTES: Route[] = [
  {
    name: 'content/users/:owner/createFolder',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/createFolder',
    pathParams: { owner },
    params: () => ({ title: uniq('folder') }),
    fuzz: ['title'],
  },
  {
    name: 'content/users/:owner/:folderId',
    kind: 'ANY',
    getPostOnly: true,
    auth: 'required',
    path: 'content/users/:owner/:folderId',
    pathParams: { owner, folderId: folder },
    fuzz: ['start', 'num'],
  },
  {
    name: 'content/users/:owner/:folderId/addItem',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/:folderId/addItem',
    pathParams: { owner, folderId: folder },
    params: () => ({ title: uniq('item'), type: 'Web Map' }),
    fuzz: ['title', 'type', 'multipart', 'filename'],
  },
  // The baseline folder is missing so that nothing is deleted.
  {
    name: 'content/users/:owner/:folderId/delete',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/:folderId/delete',
    pathParams: { owner, folderId: () => fx.missingId },
    ok: false,
  },
  // The item is at the root already: a clear error by design, and nothing moves.
  {
    name: 'content/users/:owner/items/:id/move',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/move',
    pathParams: { owner, id: item },
    params: () => ({ folder: '/' }),
    fuzz: ['folder'],
    ok: false,
  },
  {
    name: 'content/users/:owner/moveItems',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/moveItems',
    pathParams: { owner },
    params: () => ({ items: fx.itemId, folder: '/' }),
    fuzz: ['items', 'folder'],
  },
  // A missing item, so that nothing changes owner.
  {
    name: 'content/users/:owner/items/:id/reassign',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/reassign',
    pathParams: { owner, id: () => fx.missingId },
    token: () => fx.admin,
    params: () => ({ targetUsername: fx.member.username }),
    fuzz: ['targetUsername', 'targetFolderName'],
    ok: false,
  },
  {
    name: 'content/users/:owner/reassignItems',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/reassignItems',
    pathParams: { owner },
    token: () => fx.admin,
    params: () => ({ items: fx.missingId, targetUsername: fx.member.username }),
    fuzz: ['items', 'targetUsername', 'targetFolderName', 'targetFoldername'],
  },
  // A part without a file: refused, and the upload stays as it was.
  {
    name: 'content/users/:owner/items/:id/addPart',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/addPart',
    pathParams: { owner, id: uploading },
    params: () => ({ partNum: '1' }),
    fuzz: ['partNum'],
    ok: false,
  },
  {
    name: 'content/users/:owner/items/:id/parts',
    kind: 'ANY',
    auth: 'required',
    path: 'content/users/:owner/items/:id/parts',
    pathParams: { owner, id: uploading },
  },
  // The fixture item has no upload: commit and cancel answer so, and change nothing.
  {
    name: 'content/users/:owner/items/:id/commit',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/commit',
    pathParams: { owner, id: item },
    ok: false,
  },
  {
    name: 'content/users/:owner/items/:id/cancel',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/items/:id/cancel',
    pathParams: { owner, id: item },
    ok: false,
  },
];

export const ROUTES: Route[] = [
  ...IDENTITY_ROUTES,
  ...CONTENT_ROUTES,
  ...GROUP_ROUTES,
  ...SHARING_ROUTES,
  ...NOTIFICATION_ROUTES,
  ...FOLDER_ROUTES,
];

export const IDENTITY_CASES: Record<string, Case> = {
  // generateToken
  'generateToken: username missing': {
    path: () => 'generateToken',
    token: noToken,
    params: () => ({ password: 'x' }),
    want: () => ({ code: 400, message: INVALID, detail: "'username' is required." }),
  },
  'generateToken: password missing': {
    path: () => 'generateToken',
    token: noToken,
    params: () => ({ username: o() }),
    want: () => ({ code: 400, message: INVALID, detail: "'password' is required." }),
  },
  'generateToken: client=foo': {
    path: () => 'generateToken',
    token: noToken,
    params: () => ({ username: o(), password: 'x', client: 'foo' }),
    want: () => ({ code: 400, detail: "'client' must be one of referer, ip, requestip." }),
  },
  'generateToken: client=referer without referer': {
    path: () => 'generateToken',
    token: noToken,
    params: () => ({ username: o(), password: fx.owner.password, client: 'referer' }),
    want: () => ({ code: 400, message: 'Unable to generate token.', detail: "'referer' must be specified" }),
  },
  'generateToken: expiration=abc': {
    path: () => 'generateToken',
    token: noToken,
    params: () => ({ username: o(), password: 'x', expiration: 'abc' }),
    want: () => ({ code: 400, detail: "'expiration' must be a whole number of minutes." }),
  },
  'generateToken: expiration=0': {
    path: () => 'generateToken',
    token: noToken,
    params: () => ({ username: o(), password: 'x', expiration: '0' }),
    want: () => ({ code: 400, detail: "'expiration' must be at least 1 minute." }),
  },
  'generateToken: wrong password': {
    path: () => 'generateToken',
    token: noToken,
    params: () => ({ username: o(), password: 'wrong-password' }),
    want: () => ({ code: 400, message: 'Unable to generate token.', detail: 'Invalid username or password.' }),
  },
  'generateToken: unknown user': {
    path: () => 'generateToken',
    token: noToken,
    params: () => ({ username: ghost, password: 'whatever-1' }),
    want: () => ({ code: 400, message: 'Unable to generate token.', detail: 'Invalid username or password.' }),
  },

  // revokeToken
  'oauth2/revokeToken: auth_token missing': {
    path: () => 'oauth2/revokeToken',
    want: () => ({ code: 400, message: INVALID, detail: "'auth_token' is required." }),
  },
  'oauth2/revokeToken: auth_token unknown': {
    path: () => 'oauth2/revokeToken',
    params: () => ({ auth_token: GARBAGE_TOKEN }),
    want: () => ({ code: 400, message: 'Unable to revoke token.' }),
  },

  // community/users
  'community/users/:username unknown user → COM_0019': {
    method: 'GET',
    path: () => `community/users/${ghost}`,
    want: () => ({ code: 400, messageCode: 'COM_0019', message: 'User does not exist or is inaccessible.', detail: ghost }),
  },
  'community/users/:username malformed name → COM_0019': {
    method: 'GET',
    path: () => `community/users/${encodeURIComponent('bad name!')}`,
    want: () => ({ code: 400, messageCode: 'COM_0019', message: 'User does not exist or is inaccessible.' }),
  },
  'community/users/:username 10k-char name → COM_0019': {
    method: 'GET',
    path: () => `community/users/${long(10000)}`,
    want: () => ({ code: 400, messageCode: 'COM_0019', message: 'User does not exist or is inaccessible.' }),
  },

  // createRole / setPrivileges / updateUserRole
  'createRole: name missing': {
    path: () => 'portals/self/createRole',
    token: admin,
    want: () => ({ code: 400, message: INVALID, detail: "'name' is required." }),
  },
  'createRole: name of 129 characters': {
    path: () => 'portals/self/createRole',
    token: admin,
    params: () => ({ name: long(129) }),
    want: () => ({ code: 400, message: INVALID, text: /name.*128/ }),
  },
  'createRole: name already used in the org': {
    path: () => 'portals/self/createRole',
    token: admin,
    params: () => ({ name: fx.roleName }),
    want: () => ({ code: 400, text: /already|exists|taken|in use|duplicate/i }),
  },
  'createRole: not an administrator → 403': {
    path: () => 'portals/self/createRole',
    token: other,
    params: () => ({ name: uniq('role') }),
    want: () => ({ code: 403, messageCode: 'GWM_0003', message: 'You do not have permissions' }),
  },
  'setPrivileges: privileges missing': {
    path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
    token: admin,
    want: () => ({ code: 400, message: INVALID, detail: "'privileges' is required" }),
  },
  'setPrivileges: privileges not JSON': {
    path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
    token: admin,
    params: () => ({ privileges: 'portal:user:createItem' }),
    want: () => ({ code: 400, message: "'privileges' is not valid JSON." }),
  },
  'setPrivileges: privileges truncated JSON': {
    path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
    token: admin,
    params: () => ({ privileges: '{"privileges":["portal:user:createItem"' }),
    want: () => ({ code: 400, message: "'privileges' is not valid JSON." }),
  },
  'setPrivileges: privileges not a list': {
    path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
    token: admin,
    params: () => ({ privileges: '{"privileges":"portal:user:createItem"}' }),
    want: () => ({ code: 400, message: "'privileges' must be a JSON object" }),
  },
  'setPrivileges: privileges JSON null': {
    path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
    token: admin,
    params: () => ({ privileges: 'null' }),
    want: () => ({ code: 400, message: "'privileges' must be a JSON object" }),
  },
  'setPrivileges: unknown privilege': {
    path: () => `portals/self/roles/${fx.roleId}/setPrivileges`,
    token: admin,
    params: () => ({ privileges: '{"privileges":["portal:user:fly"]}' }),
    want: () => ({ code: 400, message: 'Unknown privileges.', detail: "Unknown privilege 'portal:user:fly'." }),
  },
  'setPrivileges: role id not hex': {
    path: () => 'portals/self/roles/not-a-role/setPrivileges',
    token: admin,
    params: () => ({ privileges: '{"privileges":[]}' }),
    want: () => ({ code: 400, message: 'Role does not exist.', detail: 'not-a-role' }),
  },
  'setPrivileges: unknown role id': {
    path: () => `portals/self/roles/${fx.missingId}/setPrivileges`,
    token: admin,
    params: () => ({ privileges: '{"privileges":[]}' }),
    want: () => ({ code: 400, message: 'Role does not exist.' }),
  },
  'updateUserRole: user missing': {
    path: () => 'portals/self/updateUserRole',
    token: admin,
    params: () => ({ role: 'org_user' }),
    want: () => ({ code: 400, message: INVALID, detail: "'user' is required." }),
  },
  'updateUserRole: role missing': {
    path: () => 'portals/self/updateUserRole',
    token: admin,
    params: () => ({ user: fx.member.username }),
    want: () => ({ code: 400, message: INVALID, detail: "'role' is required." }),
  },
  'updateUserRole: unknown user → COM_0019': {
    path: () => 'portals/self/updateUserRole',
    token: admin,
    params: () => ({ user: ghost, role: 'org_user' }),
    want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
  },
  'updateUserRole: unknown role': {
    path: () => 'portals/self/updateUserRole',
    token: admin,
    params: () => ({ user: fx.member.username, role: 'org_superhero' }),
    want: () => ({ code: 400, message: 'Invalid role.', detail: "'role' must be one of org_admin, org_publisher, org_user" }),
  },

  // createUser
  'createUser: username missing': {
    root: true,
    path: () => 'portaladmin/security/users/createUser',
    token: admin,
    params: () => ({ password: 'password-123' }),
    want: () => ({ code: 400, message: INVALID, detail: "'username' must be 1-128 characters" }),
  },
  'createUser: username with spaces': {
    root: true,
    path: () => 'portaladmin/security/users/createUser',
    token: admin,
    params: () => ({ username: 'bad name!', password: 'password-123' }),
    want: () => ({ code: 400, detail: "'username' must be 1-128 characters" }),
  },
  'createUser: password missing': {
    root: true,
    path: () => 'portaladmin/security/users/createUser',
    token: admin,
    params: () => ({ username: uniq('u') }),
    want: () => ({ code: 400, detail: "'password' is required." }),
  },
  'createUser: password too short': {
    root: true,
    path: () => 'portaladmin/security/users/createUser',
    token: admin,
    params: () => ({ username: uniq('u'), password: 'short' }),
    want: () => ({ code: 400, detail: "'password' must be at least 8 characters." }),
  },
  'createUser: email malformed': {
    root: true,
    path: () => 'portaladmin/security/users/createUser',
    token: admin,
    params: () => ({ username: uniq('u'), password: 'password-123', email: 'not-an-email' }),
    want: () => ({ code: 400, detail: "'email' must be an email address." }),
  },
  'createUser: unknown role': {
    root: true,
    path: () => 'portaladmin/security/users/createUser',
    token: admin,
    params: () => ({ username: uniq('u'), password: 'password-123', role: 'org_superhero' }),
    want: () => ({ code: 400, message: 'Invalid role.' }),
  },
  'createUser: user name taken (other case)': {
    root: true,
    path: () => 'portaladmin/security/users/createUser',
    token: admin,
    params: () => ({ username: fx.owner.username.toUpperCase(), password: 'password-123' }),
    want: () => ({ code: 400, message: 'Unable to create user.', detail: 'already taken' }),
  },
  'createUser: not an administrator → 403': {
    root: true,
    path: () => 'portaladmin/security/users/createUser',
    token: other,
    params: () => ({ username: uniq('u'), password: 'password-123' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },

  // ── users and the organisation (issue 27) ──
  'community/users: unknown search field': {
    method: 'GET',
    path: () => 'community/users',
    params: () => ({ q: 'email:x@example.com' }),
    want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "Unknown search field 'email'" }),
  },
  'community/users: sortField=lastlogin is for the org search': {
    method: 'GET',
    path: () => 'community/users',
    params: () => ({ q: 'a', sortField: 'lastlogin' }),
    want: () => ({ code: 400, message: INVALID, detail: "'sortField' must be one of username, fullname, created, modified." }),
  },
  'community/users: num=101': {
    method: 'GET',
    path: () => 'community/users',
    params: () => ({ q: 'a', num: '101' }),
    want: () => ({ code: 400, detail: "'num' must be at most 100." }),
  },
  'portals/self/users/search: not an administrator → 403': {
    method: 'GET',
    path: () => 'portals/self/users/search',
    params: () => ({ q: 'a' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'portals/self/users/search: range on username': {
    method: 'GET',
    path: () => 'portals/self/users/search',
    token: admin,
    params: () => ({ q: 'username:[a TO b]' }),
    want: () => ({ code: 400, detail: "'username' takes no range; ranges apply to created and modified and lastlogin" }),
  },
  'portals/self/users/search: sortOrder=up': {
    method: 'GET',
    path: () => 'portals/self/users/search',
    token: admin,
    params: () => ({ sortOrder: 'up' }),
    want: () => ({ code: 400, detail: "'sortOrder' must be asc or desc." }),
  },
  'portals/:id: another id': {
    method: 'GET',
    path: () => `portals/${fx.missingId}`,
    want: () => ({ code: 400, message: 'Portal does not exist or is inaccessible.' }),
  },
  'portals/:id/settings/update: not an administrator → 403': {
    path: () => 'portals/self/settings/update',
    params: () => ({ informationalBanner: '{"text":"x"}' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'portals/:id/settings/update: nothing to update': {
    path: () => 'portals/self/settings/update',
    token: admin,
    want: () => ({ code: 400, detail: "the settings that can be changed here are 'informationalBanner'" }),
  },
  'portals/:id/settings/update: banner key unknown': {
    path: () => 'portals/self/settings/update',
    token: admin,
    params: () => ({ informationalBanner: '{"txt":"x"}' }),
    want: () => ({ code: 400, message: "Invalid value for parameter 'informationalBanner'.", detail: 'Unknown keys: txt' }),
  },
  'portals/:id/settings/update: enabled not boolean': {
    path: () => 'portals/self/settings/update',
    token: admin,
    params: () => ({ informationalBanner: '{"enabled":"yes"}' }),
    want: () => ({ code: 400, detail: "'enabled' must be true or false." }),
  },
  'isServiceNameAvailable: name missing': {
    method: 'GET',
    path: () => 'portals/self/isServiceNameAvailable',
    params: () => ({ type: 'Feature Service' }),
    want: () => ({ code: 400, message: INVALID, detail: "'name' is required." }),
  },
  'isServiceNameAvailable: type missing': {
    method: 'GET',
    path: () => 'portals/self/isServiceNameAvailable',
    params: () => ({ name: 'abc' }),
    want: () => ({ code: 400, message: INVALID, detail: "'type' is required" }),
  },
  'isServiceNameAvailable: name with a space': {
    method: 'GET',
    path: () => 'portals/self/isServiceNameAvailable',
    params: () => ({ name: 'has space', type: 'Feature Service' }),
    want: () => ({ code: 400, message: 'Invalid service name.', detail: "'name' must be 1-100 letters, digits or '_'." }),
  },
  'community/users/:u/update: another user → 403': {
    path: () => `community/users/${fx.member.username}/update`,
    params: () => ({ description: 'x' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'community/users/:u/update: unknown user → COM_0019': {
    path: () => `community/users/${ghost}/update`,
    params: () => ({ description: 'x' }),
    want: () => ({ code: 400, messageCode: 'COM_0019' }),
  },
  'community/users/:u/update: access=secret': {
    path: () => `community/users/${o()}/update`,
    params: () => ({ access: 'secret' }),
    want: () => ({ code: 400, message: INVALID, detail: "'access' must be one of private, org, public." }),
  },
  'community/users/:u/update: units=imperial': {
    path: () => `community/users/${o()}/update`,
    params: () => ({ units: 'imperial' }),
    want: () => ({ code: 400, detail: "'units' must be english or metric." }),
  },
  'community/users/:u/update: culture malformed': {
    path: () => `community/users/${o()}/update`,
    params: () => ({ culture: 'english please' }),
    want: () => ({ code: 400, detail: "'culture' must be a culture code" }),
  },
  'community/users/:u/update: clearEmptyFields=maybe': {
    path: () => `community/users/${o()}/update`,
    params: () => ({ clearEmptyFields: 'maybe' }),
    want: () => ({ code: 400, detail: "'clearEmptyFields' must be true or false." }),
  },
  'community/users/:u/update: thumbnail as text': {
    path: () => `community/users/${o()}/update`,
    params: () => ({ thumbnail: 'https://example.com/me.png' }),
    want: () => ({ code: 400, detail: "'thumbnail' must be a PNG, GIF or JPEG file" }),
  },
  'community/users/:u/update: a tag of 257 characters': {
    path: () => `community/users/${o()}/update`,
    params: () => ({ tags: `ok,${long(257)}` }),
    want: () => ({ code: 400, detail: "Each value of 'tags' must be at most 256 characters (TAG_MAX_CHARS)" }),
  },
  'community/users/:u/update: 129 tags': {
    path: () => `community/users/${o()}/update`,
    params: () => ({ tags: Array.from({ length: 129 }, (_, i) => `t${i}`).join(',') }),
    want: () => ({ code: 400, detail: "'tags' may hold at most 128 values (TAGS_MAX_COUNT)." }),
  },
  'portals/:id/subscriptionInfo: another organisation': {
    method: 'GET',
    path: () => `portals/${fx.missingId}/subscriptionInfo`,
    want: () => ({ code: 400, message: 'Portal does not exist or is inaccessible.' }),
  },
  'community/users/:u/properties: another user → 403': {
    method: 'GET',
    path: () => `community/users/${fx.member.username}/properties`,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'community/users/:u/setProperties: properties missing': {
    path: () => `community/users/${o()}/setProperties`,
    want: () => ({ code: 400, message: INVALID, detail: "'properties' is required" }),
  },
  'community/users/:u/setProperties: properties not JSON': {
    path: () => `community/users/${o()}/setProperties`,
    params: () => ({ properties: 'mapViewer=modern' }),
    want: () => ({ code: 400, message: "'properties' is not valid JSON." }),
  },
  'community/users/:u/setProperties: properties an array': {
    path: () => `community/users/${o()}/setProperties`,
    params: () => ({ properties: '["modern"]' }),
    want: () => ({ code: 400, message: "'properties' must be a JSON object." }),
  },
  'community/users/:u/setProperties: over USER_PROPERTIES_MAX_KB': {
    path: () => `community/users/${o()}/setProperties`,
    params: () => ({ properties: JSON.stringify({ big: long(70 * 1024) }) }),
    want: () => ({ code: 400, message: 'Unable to set properties.', detail: 'USER_PROPERTIES_MAX_KB' }),
  },
  'community/users/:u/info/:name: no such file': {
    method: 'GET',
    path: () => `community/users/${o()}/info/other.png`,
    want: () => ({ code: 400, message: 'File does not exist or is inaccessible.' }),
  },
};

export const CONTENT_CASES: Record<string, Case> = {
  // addItem
  'addItem: title and type missing': {
    path: () => `content/users/${o()}/addItem`,
    want: () => ({ code: 400, detail: "'type' and 'title' property required." }),
  },
  'addItem: type missing': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x' }),
    want: () => ({ code: 400, detail: "'type' and 'title' property required." }),
  },
  'addItem: blank title': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: '   ', type: 'Web Map' }),
    want: () => ({ code: 400, message: "'type' and 'title' property required." }),
  },
  'addItem: title of 257 characters': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: long(257), type: 'Web Map' }),
    want: () => ({ code: 400, detail: "'title' must be at most 256 characters." }),
  },
  'addItem: properties not JSON': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map', properties: '{oops' }),
    want: () => ({ code: 400, message: "'properties' is not a valid JSON object." }),
  },
  'addItem: properties a JSON array': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map', properties: '[1,2]' }),
    want: () => ({ code: 400, message: "'properties' is not a valid JSON object.", detail: 'expected a JSON object' }),
  },
  'addItem: properties with a \\u0000 escape': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map', properties: '{"a":"\\u0000"}' }),
    want: () => ({ code: 400, text: /properties/ }),
  },
  'addItem: extent with 3 numbers': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map', extent: '1,2,3' }),
    want: () => ({ code: 400, message: "'extent' is not valid.", detail: 'xmin,ymin,xmax,ymax' }),
  },
  'addItem: extent not numbers': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map', extent: 'a,b,c,d' }),
    want: () => ({ code: 400, message: "'extent' is not valid." }),
  },
  'addItem: tag longer than 256': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map', tags: `ok,${long(257)}` }),
    want: () => ({ code: 400, text: /tags/ }),
  },
  // A name nobody has is refused as another user's name is, so the answer tells nothing of who exists.
  'addItem: unknown owner → 403, as for another user': {
    path: () => `content/users/${ghost}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003', detail: 'Items can only be added to your own content.' }),
  },
  'addItem: 129 tags (TAGS_MAX_COUNT)': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map', tags: Array.from({ length: 129 }, (_, i) => `t${i}`).join(',') }),
    want: () => ({ code: 400, message: INVALID, detail: "'tags' may hold at most 128 values (TAGS_MAX_COUNT)." }),
  },
  'addItem: a type keyword of 257 characters (TAG_MAX_CHARS)': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map', typeKeywords: `ok,${long(257)}` }),
    want: () => ({ code: 400, message: INVALID, detail: "Each value of 'typeKeywords' must be at most 256 characters (TAG_MAX_CHARS)" }),
  },
  'addItem: malformed owner → COM_0019': {
    path: () => `content/users/${encodeURIComponent("o'brien;--")}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map' }),
    want: () => ({ code: 400, messageCode: 'COM_0019' }),
  },
  "addItem: into another user's content → 403": {
    path: () => `content/users/${fx.member.username}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003', detail: 'Items can only be added to your own content.' }),
  },

  // user content
  'content/users/:owner: start=abc': {
    method: 'GET',
    path: () => `content/users/${o()}`,
    params: () => ({ start: 'abc' }),
    want: () => ({ code: 400, message: INVALID, detail: "'start' must be a whole number." }),
  },
  'content/users/:owner: start=1.5': {
    method: 'GET',
    path: () => `content/users/${o()}`,
    params: () => ({ start: '1.5' }),
    want: () => ({ code: 400, detail: "'start' must be a whole number." }),
  },
  'content/users/:owner: start=0': {
    method: 'GET',
    path: () => `content/users/${o()}`,
    params: () => ({ start: '0' }),
    want: () => ({ code: 400, detail: "'start' must be 1 or more." }),
  },
  'content/users/:owner: num=ten': {
    method: 'GET',
    path: () => `content/users/${o()}`,
    params: () => ({ num: 'ten' }),
    want: () => ({ code: 400, detail: "'num' must be a whole number." }),
  },
  'content/users/:owner: num=-1': {
    method: 'GET',
    path: () => `content/users/${o()}`,
    params: () => ({ num: '-1' }),
    want: () => ({ code: 400, detail: "'num' must be 0 or more." }),
  },
  'content/users/:owner: num=101': {
    method: 'GET',
    path: () => `content/users/${o()}`,
    params: () => ({ num: '101' }),
    want: () => ({ code: 400, detail: "'num' must be at most 100." }),
  },
  'content/users/:owner: unknown owner → 403, as for another user': {
    method: 'GET',
    path: () => `content/users/${ghost}`,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  "content/users/:owner: another user's content → 403": {
    method: 'GET',
    path: () => `content/users/${fx.member.username}`,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },

  // items
  'content/items/:id: not hex': {
    method: 'GET',
    path: () => `content/items/${notHex}`,
    want: () => ({
      code: 400,
      messageCode: 'CONT_0001',
      message: 'Item does not exist or is inaccessible.',
      detail: 'is not a valid item id (32 hexadecimal characters)',
    }),
  },
  'content/items/:id: 31 hex characters': {
    method: 'GET',
    path: () => `content/items/${fx.itemId.slice(1)}`,
    want: () => ({ code: 400, messageCode: 'CONT_0001', detail: 'is not a valid item id' }),
  },
  'content/items/:id: 33 hex characters': {
    method: 'GET',
    path: () => `content/items/${fx.itemId}0`,
    want: () => ({ code: 400, messageCode: 'CONT_0001', detail: 'is not a valid item id' }),
  },
  'content/items/:id: unknown id': {
    method: 'GET',
    path: () => `content/items/${fx.missingId}`,
    want: () => ({ code: 400, messageCode: 'CONT_0001', message: 'Item does not exist or is inaccessible.', detail: fx.missingId }),
  },
  'content/items/:id: private item, anonymous': {
    method: 'GET',
    token: noToken,
    path: () => `content/items/${fx.itemId}`,
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'content/items/:id/data: not hex': {
    method: 'GET',
    path: () => `content/items/abc/data`,
    want: () => ({ code: 400, messageCode: 'CONT_0001', detail: "'abc' is not a valid item id" }),
  },
  'content/items/:id/data: unknown id': {
    method: 'GET',
    path: () => `content/items/${fx.missingId}/data`,
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'delete: id not hex': {
    path: () => `content/users/${o()}/items/${notHex}/delete`,
    want: () => ({ code: 400, messageCode: 'CONT_0001', detail: 'is not a valid item id' }),
  },
  'delete: unknown id': {
    path: () => `content/users/${o()}/items/${fx.missingId}/delete`,
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'delete: unknown owner → CONT_0001, as for another user': {
    path: () => `content/users/${ghost}/items/${fx.itemId}/delete`,
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'delete: owner and item id both malformed → the owner is named first, as the URL nests them': {
    path: () => `content/users/bad!!/items/${notHex}/delete`,
    want: () => ({ code: 400, messageCode: 'COM_0019', detail: 'bad!!' }),
  },
  'status: jobType=foo': {
    method: 'GET',
    path: () => `content/users/${o()}/items/${fx.itemId}/status`,
    params: () => ({ jobType: 'foo' }),
    want: () => ({ code: 400, detail: "'jobType' must be one of publish, generateFeatures, export, createService." }),
  },
  'status: id not hex': {
    method: 'GET',
    path: () => `content/users/${o()}/items/xyz/status`,
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'status: unknown owner → CONT_0001, as for another user': {
    method: 'GET',
    path: () => `content/users/${ghost}/items/${fx.itemId}/status`,
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },

  // search
  'search: q missing': { method: 'GET', path: () => 'search', want: () => ({ code: 400, message: "'q' is required." }) },
  'search: q blank': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: '   ' }),
    want: () => ({ code: 400, message: "'q' is required." }),
  },
  'search: q of 2049 characters': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: long(2049) }),
    want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "'q' is longer than 2048 characters." }),
  },
  'search: q of 10,000 characters (POST)': {
    path: () => 'search',
    params: () => ({ q: long(10000) }),
    want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: 'longer than 2048' }),
  },
  'search: unknown field foo: bar': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: 'foo: bar' }),
    want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "Unknown search field 'foo'" }),
  },
  'search: unbalanced "(title: a"': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: '(title: a' }),
    want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "Missing ')'." }),
  },
  'search: unbalanced "title: a)"': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: 'title: a)' }),
    want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "Unexpected ')'" }),
  },
  'search: unbalanced "((a)"': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: '((a)' }),
    want: () => ({ code: 400, detail: "Missing ')'." }),
  },
  'search: unbalanced ")("': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: ')(' }),
    want: () => ({ code: 400, detail: "Unexpected ')'" }),
  },
  'search: field without value': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: 'title:' }),
    want: () => ({ code: 400, detail: "Missing value after 'title:'." }),
  },
  'search: unterminated quote': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: 'title: "abc' }),
    want: () => ({ code: 400, detail: 'Unterminated quote' }),
  },
  'search: dangling OR': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: 'a OR' }),
    want: () => ({ code: 400, detail: 'The query ends where a search term was expected.' }),
  },
  'search: 33 terms': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: Array.from({ length: 33 }, (_, i) => `t${i}`).join(' OR ') }),
    want: () => ({ code: 400, detail: 'More than 32 search terms.' }),
  },
  'search: sortField=bogus': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: 'a', sortField: 'bogus' }),
    want: () => ({ code: 400, detail: "'sortField' must be one of title, created, modified, type, owner, size, id, numViews." }),
  },
  'search: sortOrder=sideways': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: 'a', sortOrder: 'sideways' }),
    want: () => ({ code: 400, detail: "'sortOrder' must be asc or desc." }),
  },
  'search: num=101': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: 'a', num: '101' }),
    want: () => ({ code: 400, detail: "'num' must be at most 100." }),
  },
  'search: start=x': {
    method: 'GET',
    path: () => 'search',
    params: () => ({ q: 'a', start: 'x' }),
    want: () => ({ code: 400, detail: "'start' must be a whole number." }),
  },

  // ── item details ──
  'update: properties not JSON': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/update`,
    params: () => ({ properties: '{oops' }),
    want: () => ({ code: 400, message: "'properties' is not a valid JSON object." }),
  },
  'update: extent with 3 numbers': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/update`,
    params: () => ({ extent: '1,2,3' }),
    want: () => ({ code: 400, message: "'extent' is not valid." }),
  },
  'update: title of 257 characters': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/update`,
    params: () => ({ title: long(257) }),
    want: () => ({ code: 400, detail: "'title' must be at most 256 characters." }),
  },
  'update: clearEmptyFields=maybe': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/update`,
    params: () => ({ clearEmptyFields: 'maybe' }),
    want: () => ({ code: 400, detail: "'clearEmptyFields' must be true or false." }),
  },
  'update: blank title with clearEmptyFields': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/update`,
    params: () => ({ title: '', clearEmptyFields: 'true' }),
    want: () => ({ code: 400, message: "'title' cannot be empty." }),
  },
  'update: thumbnailUrl of another host': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/update`,
    params: () => ({ thumbnailUrl: 'http://169.254.169.254/latest/meta-data/' }),
    want: () => ({ code: 400, message: "'thumbnailUrl' is not supported.", detail: 'fetches nothing from other hosts' }),
  },
  'update: dataUrl': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/update`,
    params: () => ({ dataUrl: 'file:///etc/passwd' }),
    want: () => ({ code: 400, message: "'dataUrl' is not supported." }),
  },
  'update: folder segment not a folder id': {
    path: () => `content/users/${o()}/somefolder/items/${fx.editItemId}/update`,
    params: () => ({ snippet: 'x' }),
    want: () => ({ code: 400, message: 'Folder does not exist.', detail: 'somefolder' }),
  },
  "update: another user's private item → CONT_0001": {
    path: () => `content/users/${o()}/items/${fx.editItemId}/update`,
    token: other,
    params: () => ({ title: 'stolen' }),
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'update: item of another owner than the path → CONT_0001': {
    path: () => `content/users/${fx.member.username}/items/${fx.editItemId}/update`,
    params: () => ({ title: 'x' }),
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'update: unknown owner → CONT_0001, as for another user': {
    path: () => `content/users/${ghost}/items/${fx.editItemId}/update`,
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'update: 129 typeKeywords (TAGS_MAX_COUNT)': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/update`,
    params: () => ({ typeKeywords: Array.from({ length: 129 }, (_, i) => `k${i}`).join(',') }),
    want: () => ({ code: 400, message: INVALID, detail: "'typeKeywords' may hold at most 128 values (TAGS_MAX_COUNT)." }),
  },
  'update: a tag of 257 characters (TAG_MAX_CHARS)': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/update`,
    params: () => ({ tags: `ok,${long(257)}` }),
    want: () => ({ code: 400, message: INVALID, detail: "Each value of 'tags' must be at most 256 characters (TAG_MAX_CHARS)" }),
  },
  'protect: unknown id → CONT_0001': {
    path: () => `content/users/${o()}/items/${fx.missingId}/protect`,
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'updateinfo: folderName climbing out': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/updateinfo`,
    params: () => ({ folderName: '../../etc' }),
    want: () => ({ code: 400, message: "'folderName' is not a valid file name." }),
  },
  'updateinfo: no file': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/updateinfo`,
    want: () => ({ code: 400, message: "'file' is required." }),
  },
  'info: a file the item does not have': {
    method: 'GET',
    path: () => `content/items/${fx.itemId}/info/nothing/here.xml`,
    want: () => ({ code: 400, message: 'File does not exist or is inaccessible.' }),
  },
  'addResources: neither file nor text': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/addResources`,
    params: () => ({ fileName: 'a.json' }),
    want: () => ({ code: 400, message: "'file' or 'text' is required." }),
  },
  'addResources: text without fileName': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/addResources`,
    params: () => ({ text: '{}' }),
    want: () => ({ code: 400, message: "'fileName' is required." }),
  },
  'addResources: fileName with ..': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/addResources`,
    params: () => ({ fileName: '../a.json', text: '{}' }),
    want: () => ({ code: 400, message: "'fileName' is not a valid file name." }),
  },
  'addResources: resourcesPrefix starting with a dot': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/addResources`,
    params: () => ({ fileName: 'a.json', resourcesPrefix: '.hidden', text: '{}' }),
    want: () => ({ code: 400, message: "'resourcesPrefix' is not a valid file name." }),
  },
  'addResources: a type ArcGIS refuses': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/addResources`,
    params: () => ({ fileName: 'run.exe', text: 'MZ' }),
    want: () => ({ code: 400, message: 'File type not allowed for item resources.' }),
  },
  'addResources: access=public': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/addResources`,
    params: () => ({ fileName: 'a.json', text: '{}', access: 'public' }),
    want: () => ({ code: 400, detail: "'access' must be inherit or private." }),
  },
  'addResources: archive=true': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/addResources`,
    params: () => ({ fileName: 'a.zip', text: 'PK', archive: 'true' }),
    want: () => ({ code: 400, message: "'archive' is not supported." }),
  },
  'removeResources: neither resource nor deleteAll': {
    path: () => `content/users/${o()}/items/${fx.editItemId}/removeResources`,
    want: () => ({ code: 400, message: "'resource' is required." }),
  },
  'resources: num=1001': {
    method: 'GET',
    path: () => `content/items/${fx.editItemId}/resources`,
    params: () => ({ num: '1001' }),
    want: () => ({ code: 400, detail: "'num' must be at most 1000." }),
  },
  'resources: sortField=bogus': {
    method: 'GET',
    path: () => `content/items/${fx.editItemId}/resources`,
    params: () => ({ sortField: 'bogus' }),
    want: () => ({ code: 400, detail: "'sortField' must be one of resource, created, size." }),
  },
  'resources/<file>: a resource the item does not have': {
    method: 'GET',
    path: () => `content/items/${fx.editItemId}/resources/images/none.png`,
    want: () => ({ code: 400, message: 'Resource does not exist or is inaccessible.' }),
  },
  'addRelationship: relationshipType missing': {
    path: () => `content/users/${o()}/addRelationship`,
    params: () => ({ originItemId: fx.itemId, destinationItemId: fx.editItemId }),
    want: () => ({ code: 400, message: "'relationshipType' is required." }),
  },
  'addRelationship: unknown relationshipType': {
    path: () => `content/users/${o()}/addRelationship`,
    params: () => ({ originItemId: fx.itemId, destinationItemId: fx.editItemId, relationshipType: 'Foo2Bar' }),
    want: () => ({ code: 400, message: 'Invalid relationship type.', detail: 'Map2Service' }),
  },
  'addRelationship: originItemId not hex': {
    path: () => `content/users/${o()}/addRelationship`,
    params: () => ({ originItemId: notHex, destinationItemId: fx.editItemId, relationshipType: 'Item2Report' }),
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'addRelationship: an item to itself': {
    path: () => `content/users/${o()}/addRelationship`,
    params: () => ({ originItemId: fx.itemId, destinationItemId: fx.itemId, relationshipType: 'Item2Report' }),
    want: () => ({ code: 400, detail: 'An item cannot be related to itself.' }),
  },
  'addRelationship: a web map to a web map as Map2Service': {
    path: () => `content/users/${o()}/addRelationship`,
    params: () => ({ originItemId: fx.itemId, destinationItemId: fx.editItemId, relationshipType: 'Map2Service' }),
    want: () => ({ code: 400, message: 'Unable to add relationship.', detail: 'destination must be one of' }),
  },
  'addRelationship: in the name of nobody → 403, as for another user': {
    path: () => `content/users/${ghost}/addRelationship`,
    params: () => ({ originItemId: fx.itemId, destinationItemId: fx.editItemId, relationshipType: 'Item2Report' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  "addRelationship: in another user's name → 403": {
    path: () => `content/users/${fx.member.username}/addRelationship`,
    params: () => ({ originItemId: fx.itemId, destinationItemId: fx.editItemId, relationshipType: 'Item2Report' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'deleteRelationship: none such': {
    path: () => `content/users/${o()}/deleteRelationship`,
    params: () => ({ originItemId: fx.itemId, destinationItemId: fx.editItemId, relationshipType: 'WMA2Code' }),
    want: () => ({ code: 400, message: 'Relationship does not exist.' }),
  },
  'relatedItems: relationshipType missing': {
    method: 'GET',
    path: () => `content/items/${fx.itemId}/relatedItems`,
    want: () => ({ code: 400, message: "'relationshipType' is required." }),
  },
  'relatedItems: direction=sideways': {
    method: 'GET',
    path: () => `content/items/${fx.itemId}/relatedItems`,
    params: () => ({ relationshipType: 'Map2Service', direction: 'sideways' }),
    want: () => ({ code: 400, detail: "'direction' must be forward or reverse." }),
  },
  'relatedItems: unknown relationshipTypes': {
    method: 'GET',
    path: () => `content/items/${fx.itemId}/relatedItems`,
    params: () => ({ relationshipTypes: 'Map2Service,Nope2Nope' }),
    want: () => ({ code: 400, message: 'Invalid relationship type.', detail: 'Nope2Nope' }),
  },
  'groups: unknown item': {
    method: 'GET',
    path: () => `content/items/${fx.missingId}/groups`,
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  // ── users (issue 27) ──
  'community/users/:u/tags: another user → 403': {
    method: 'GET',
    path: () => `community/users/${fx.member.username}/tags`,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'community/users/:u/tags: unknown user → 403, as for another user': {
    method: 'GET',
    path: () => `community/users/${ghost}/tags`,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'cancelJob: jobId missing': {
    path: () => `content/users/${o()}/items/${fx.itemId}/cancelJob`,
    want: () => ({ code: 400, detail: "'jobId' must be a job id (32 hexadecimal characters)." }),
  },
  'cancelJob: jobType=publish': {
    path: () => `content/users/${o()}/items/${fx.itemId}/cancelJob`,
    params: () => ({ jobId: fx.missingId, jobType: 'publish' }),
    want: () => ({ code: 400, detail: "'jobType' must be export." }),
  },
  'cancelJob: no such job of the item → CONT_0001': {
    path: () => `content/users/${o()}/items/${fx.itemId}/cancelJob`,
    params: () => ({ jobId: fx.missingId }),
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'cancelJob: GET is an unknown URL (POST only)': {
    method: 'GET',
    path: () => `content/users/${o()}/items/${fx.itemId}/cancelJob`,
    params: () => ({ jobId: fx.missingId }),
    want: () => ({ code: 400, message: 'Invalid URL' }),
  },
};

export const GROUP_CASES: Record<string, Case> = {
  'content/groups/:id/search: group id not hex': {
    method: 'GET',
    path: () => 'content/groups/nothex/search',
    params: () => ({ q: 'a' }),
    want: () => ({ code: 400, messageCode: 'COM_0003', detail: "'nothex' is not a valid group id" }),
  },
  'content/groups/:id/search: unknown field': {
    method: 'GET',
    path: () => `content/groups/${fx.groupId}/search`,
    params: () => ({ q: 'foo: bar' }),
    want: () => ({ code: 400, detail: "Unknown search field 'foo'" }),
  },
  'content/groups/:id/search: unbalanced "(a"': {
    method: 'GET',
    path: () => `content/groups/${fx.groupId}/search`,
    params: () => ({ q: '(a' }),
    want: () => ({ code: 400, detail: "Missing ')'." }),
  },
  'content/groups/:id/search: unbalanced "a)"': {
    method: 'GET',
    path: () => `content/groups/${fx.groupId}/search`,
    params: () => ({ q: 'a)' }),
    want: () => ({ code: 400, detail: "Unexpected ')'" }),
  },
  'content/groups/:id/search: num=101': {
    method: 'GET',
    path: () => `content/groups/${fx.groupId}/search`,
    params: () => ({ q: 'a', num: '101' }),
    want: () => ({ code: 400, detail: "'num' must be at most 100." }),
  },

  // groups
  'createGroup: title missing': {
    path: () => 'community/createGroup',
    want: () => ({ code: 400, message: INVALID, detail: "'title' is required." }),
  },
  'createGroup: blank title': {
    path: () => 'community/createGroup',
    params: () => ({ title: '   ' }),
    want: () => ({ code: 400, detail: "'title' is required." }),
  },
  'createGroup: title of 257 characters': {
    path: () => 'community/createGroup',
    params: () => ({ title: long(257) }),
    want: () => ({ code: 400, text: /title.*256/ }),
  },
  'createGroup: 129 tags (TAGS_MAX_COUNT)': {
    path: () => 'community/createGroup',
    params: () => ({ title: 'x', tags: Array.from({ length: 129 }, (_, i) => `t${i}`).join(',') }),
    want: () => ({ code: 400, message: INVALID, detail: "'tags' may hold at most 128 values (TAGS_MAX_COUNT)." }),
  },
  'createGroup: access=bogus': {
    path: () => 'community/createGroup',
    params: () => ({ title: 'x', access: 'bogus' }),
    want: () => ({ code: 400, detail: "'access' must be one of private, org, public." }),
  },
  'createGroup: isViewOnly=maybe': {
    path: () => 'community/createGroup',
    params: () => ({ title: 'x', isViewOnly: 'maybe' }),
    want: () => ({ code: 400, detail: "'isViewOnly' must be true or false." }),
  },
  'createGroup: isInvitationOnly=yes': {
    path: () => 'community/createGroup',
    params: () => ({ title: 'x', isInvitationOnly: 'yes' }),
    want: () => ({ code: 400, detail: "'isInvitationOnly' must be true or false." }),
  },
  'createGroup: autoJoin=2': {
    path: () => 'community/createGroup',
    params: () => ({ title: 'x', autoJoin: '2' }),
    want: () => ({ code: 400, detail: "'autoJoin' must be true or false." }),
  },
  'createGroup: sortField=bogus': {
    path: () => 'community/createGroup',
    params: () => ({ title: 'x', sortField: 'bogus' }),
    want: () => ({ code: 400, detail: "'sortField' is not a valid sort field." }),
  },
  'createGroup: sortOrder=up': {
    path: () => 'community/createGroup',
    params: () => ({ title: 'x', sortOrder: 'up' }),
    want: () => ({ code: 400, detail: "'sortOrder' must be asc or desc." }),
  },
  'community/groups/:id: not hex': {
    method: 'GET',
    path: () => `community/groups/${notHex}`,
    want: () => ({
      code: 400,
      messageCode: 'COM_0003',
      message: 'Group does not exist or is inaccessible.',
      detail: 'is not a valid group id (32 hexadecimal characters)',
    }),
  },
  'community/groups/:id: short id': {
    method: 'GET',
    path: () => 'community/groups/abc123',
    want: () => ({ code: 400, messageCode: 'COM_0003', detail: "'abc123' is not a valid group id" }),
  },
  'community/groups/:id: unknown id': {
    method: 'GET',
    path: () => `community/groups/${fx.missingId}`,
    want: () => ({ code: 400, messageCode: 'COM_0003', detail: fx.missingId }),
  },
  'content/groups/:id: not hex': {
    method: 'GET',
    path: () => 'content/groups/nothex',
    want: () => ({ code: 400, messageCode: 'COM_0003' }),
  },
  'content/groups/:id: num=101': {
    method: 'GET',
    path: () => `content/groups/${fx.groupId}`,
    params: () => ({ num: '101' }),
    want: () => ({ code: 400, detail: "'num' must be at most 100." }),
  },
  'content/groups/:id: start=-5': {
    method: 'GET',
    path: () => `content/groups/${fx.groupId}`,
    params: () => ({ start: '-5' }),
    want: () => ({ code: 400, detail: "'start' must be 1 or more." }),
  },
  'addUsers: neither users nor admins': {
    path: () => `community/groups/${fx.groupId}/addUsers`,
    want: () => ({ code: 400, message: "'users' or 'admins' is required." }),
  },
  'addUsers: 26 users': {
    path: () => `community/groups/${fx.groupId}/addUsers`,
    params: () => ({ users: Array.from({ length: 26 }, (_, i) => `u${i}`).join(',') }),
    want: () => ({ code: 400, detail: 'At most 25 users per request (GROUP_USERS_PER_REQUEST).' }),
  },
  'addUsers: 26 admins': {
    path: () => `community/groups/${fx.groupId}/addUsers`,
    params: () => ({ admins: Array.from({ length: 26 }, (_, i) => `u${i}`).join(',') }),
    want: () => ({ code: 400, detail: 'At most 25 admins per request (GROUP_USERS_PER_REQUEST).' }),
  },
  'addUsers: group id not hex': {
    path: () => 'community/groups/nothex/addUsers',
    params: () => ({ users: fx.member.username }),
    want: () => ({ code: 400, messageCode: 'COM_0003' }),
  },
  'addUsers: not a manager → 403': {
    path: () => `community/groups/${fx.groupId}/addUsers`,
    token: other,
    params: () => ({ users: fx.member.username }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'removeUsers: users missing': {
    path: () => `community/groups/${fx.groupId}/removeUsers`,
    want: () => ({ code: 400, detail: "'users' is required." }),
  },
  'removeUsers: users empty': {
    path: () => `community/groups/${fx.groupId}/removeUsers`,
    params: () => ({ users: ' , ,' }),
    want: () => ({ code: 400, message: "'users' is required." }),
  },
  'removeUsers: 26 users': {
    path: () => `community/groups/${fx.groupId}/removeUsers`,
    params: () => ({ users: Array.from({ length: 26 }, (_, i) => `u${i}`).join(',') }),
    want: () => ({ code: 400, detail: 'At most 25 users per request (GROUP_USERS_PER_REQUEST).' }),
  },
  'group delete: id not hex': { path: () => 'community/groups/nothex/delete', want: () => ({ code: 400, messageCode: 'COM_0003' }) },
  'group delete: unknown id': {
    path: () => `community/groups/${fx.missingId}/delete`,
    want: () => ({ code: 400, messageCode: 'COM_0003' }),
  },
  'group delete: not the owner → 403': {
    path: () => `community/groups/${fx.groupId}/delete`,
    token: () => fx.member.token,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },

  // ── groups: search, update, protection, members, joining, invitations, category schema ──
  'community/groups: q missing': {
    method: 'GET',
    path: () => 'community/groups',
    want: () => ({ code: 400, message: "'q' is required." }),
  },
  'community/groups: unknown field': {
    method: 'GET',
    path: () => 'community/groups',
    params: () => ({ q: 'type: Web Map' }),
    want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "Unknown search field 'type'" }),
  },
  'community/groups: isInvitationOnly=maybe': {
    method: 'GET',
    path: () => 'community/groups',
    params: () => ({ q: 'isInvitationOnly: maybe' }),
    want: () => ({ code: 400, detail: "'isInvitationOnly' takes true or false" }),
  },
  'community/groups: range on title': {
    method: 'GET',
    path: () => 'community/groups',
    params: () => ({ q: 'title:[a TO b]' }),
    want: () => ({ code: 400, detail: "'title' takes no range" }),
  },
  'community/groups: sortField=size': {
    method: 'GET',
    path: () => 'community/groups',
    params: () => ({ q: '*', sortField: 'size' }),
    want: () => ({ code: 400, detail: "'sortField' must be one of" }),
  },
  'community/groups: searchUserAccess=everyone': {
    method: 'GET',
    path: () => 'community/groups',
    params: () => ({ q: '*', searchUserAccess: 'everyone' }),
    want: () => ({ code: 400, detail: "'searchUserAccess' must be groupMember." }),
  },
  'community/groups: num=101': {
    method: 'GET',
    path: () => 'community/groups',
    params: () => ({ q: '*', num: '101' }),
    want: () => ({ code: 400, detail: "'num' must be at most 100." }),
  },
  'update: access=everyone': {
    path: () => `community/groups/${fx.groupId}/update`,
    params: () => ({ access: 'everyone' }),
    want: () => ({ code: 400, detail: "'access' must be one of private, org, public." }),
  },
  'group update: a type keyword of 257 characters (TAG_MAX_CHARS)': {
    path: () => `community/groups/${fx.groupId}/update`,
    params: () => ({ typeKeywords: long(257) }),
    want: () => ({ code: 400, message: INVALID, detail: "Each value of 'typeKeywords' must be at most 256 characters (TAG_MAX_CHARS)" }),
  },
  'update: membershipAccess=world': {
    path: () => `community/groups/${fx.groupId}/update`,
    params: () => ({ membershipAccess: 'world' }),
    want: () => ({ code: 400, detail: "'membershipAccess' must be one of org, collaboration, none." }),
  },
  'update: clearEmptyFields=perhaps': {
    path: () => `community/groups/${fx.groupId}/update`,
    params: () => ({ clearEmptyFields: 'perhaps' }),
    want: () => ({ code: 400, detail: "'clearEmptyFields' must be true or false." }),
  },
  'update: blank title with clearEmptyFields': {
    path: () => `community/groups/${fx.groupId}/update`,
    params: () => ({ title: ' ', clearEmptyFields: 'true' }),
    want: () => ({ code: 400, detail: "'title' cannot be empty." }),
  },
  'update: title of 257 characters': {
    path: () => `community/groups/${fx.groupId}/update`,
    params: () => ({ title: long(257) }),
    want: () => ({ code: 400, detail: "'title' must be at most 256 characters." }),
  },
  'update: by a member → 403': {
    path: () => `community/groups/${fx.groupId}/update`,
    token: () => fx.member.token,
    params: () => ({ snippet: 'x' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'update: unknown group': {
    path: () => `community/groups/${fx.missingId}/update`,
    params: () => ({ snippet: 'x' }),
    want: () => ({ code: 400, messageCode: 'COM_0003' }),
  },
  'protect: by a member → 403': {
    path: () => `community/groups/${fx.groupId}/protect`,
    token: () => fx.member.token,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'unprotect: group id not hex': {
    path: () => 'community/groups/nothex/unprotect',
    want: () => ({ code: 400, messageCode: 'COM_0003' }),
  },
  'users: not a member → 403': {
    method: 'GET',
    path: () => `community/groups/${fx.groupId}/users`,
    token: other,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'userlist: memberType=boss': {
    method: 'GET',
    path: () => `community/groups/${fx.groupId}/userlist`,
    params: () => ({ memberType: 'boss' }),
    want: () => ({ code: 400, detail: "'memberType' must be owner, admin or member." }),
  },
  'userlist: sortField=email': {
    method: 'GET',
    path: () => `community/groups/${fx.groupId}/userlist`,
    params: () => ({ sortField: 'email' }),
    want: () => ({ code: 400, detail: "'sortField' must be one of username, fullName, joined, memberType." }),
  },
  'userlist: joined=yesterday': {
    method: 'GET',
    path: () => `community/groups/${fx.groupId}/userlist`,
    params: () => ({ joined: 'yesterday' }),
    want: () => ({ code: 400, detail: "'joined' is 'from,to' in epoch milliseconds." }),
  },
  'userlist: num=101': {
    method: 'GET',
    path: () => `community/groups/${fx.groupId}/userlist`,
    params: () => ({ num: '101' }),
    want: () => ({ code: 400, detail: "'num' must be at most 100." }),
  },
  'updateUsers: neither users nor admins': {
    path: () => `community/groups/${fx.groupId}/updateUsers`,
    want: () => ({ code: 400, message: "'users' or 'admins' is required." }),
  },
  'updateUsers: 26 admins': {
    path: () => `community/groups/${fx.groupId}/updateUsers`,
    params: () => ({ admins: Array.from({ length: 26 }, (_, i) => `u${i}`).join(',') }),
    want: () => ({ code: 400, detail: 'At most 25 admins per request (GROUP_USERS_PER_REQUEST).' }),
  },
  'updateUsers: by a member → 403': {
    path: () => `community/groups/${fx.groupId}/updateUsers`,
    token: () => fx.member.token,
    params: () => ({ admins: fx.member.username }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'join: the owner is already a member': {
    path: () => `community/groups/${fx.groupId}/join`,
    want: () => ({ code: 400, message: 'Unable to join group.', detail: 'You are already a member of this group.' }),
  },
  'join: unknown group': {
    path: () => `community/groups/${fx.missingId}/join`,
    token: other,
    want: () => ({ code: 400, messageCode: 'COM_0003' }),
  },
  'leave: the owner cannot leave': {
    path: () => `community/groups/${fx.groupId}/leave`,
    want: () => ({ code: 400, message: 'Unable to leave group.', detail: 'The group owner cannot leave the group.' }),
  },
  'invite: users missing': {
    path: () => `community/groups/${fx.groupId}/invite`,
    want: () => ({ code: 400, detail: "'users' is required." }),
  },
  'invite: role=group_owner': {
    path: () => `community/groups/${fx.groupId}/invite`,
    params: () => ({ users: fx.other.username, role: 'group_owner' }),
    want: () => ({ code: 400, detail: "'role' must be group_member or group_admin." }),
  },
  'invite: expiration=0': {
    path: () => `community/groups/${fx.groupId}/invite`,
    params: () => ({ users: fx.other.username, expiration: '0' }),
    want: () => ({ code: 400, detail: "'expiration' must be at least 1 minute." }),
  },
  'invite: expiration of three weeks': {
    path: () => `community/groups/${fx.groupId}/invite`,
    params: () => ({ users: fx.other.username, expiration: '30240' }),
    want: () => ({ code: 400, detail: "'expiration' must be at most 20160 minutes (two weeks)." }),
  },
  'invite: by a member → 403': {
    path: () => `community/groups/${fx.groupId}/invite`,
    token: () => fx.member.token,
    params: () => ({ users: fx.other.username }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'applications: by a member → 403': {
    method: 'GET',
    path: () => `community/groups/${fx.groupId}/applications`,
    token: () => fx.member.token,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'application: malformed user name → COM_0019': {
    method: 'GET',
    path: () => `community/groups/${fx.groupId}/applications/${encodeURIComponent('no body')}`,
    want: () => ({ code: 400, messageCode: 'COM_0019' }),
  },
  'application accept: no such request': {
    path: () => `community/groups/${fx.groupId}/applications/${ghost}/accept`,
    want: () => ({ code: 400, message: 'Application does not exist or is inaccessible.' }),
  },
  "invitations: another user's → 403": {
    method: 'GET',
    path: () => `community/users/${fx.member.username}/invitations`,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'invitation: id not hex': {
    method: 'GET',
    path: () => `community/users/${o()}/invitations/nothex`,
    want: () => ({ code: 400, message: 'Invitation does not exist or is inaccessible.' }),
  },
  'invitation accept: unknown id': {
    path: () => `community/users/${o()}/invitations/${fx.missingId}/accept`,
    want: () => ({ code: 400, message: 'Invitation does not exist or is inaccessible.' }),
  },
  'categorySchema: unknown group': {
    method: 'GET',
    path: () => `community/groups/${fx.missingId}/categorySchema`,
    want: () => ({ code: 400, messageCode: 'COM_0003' }),
  },
  'assignCategorySchema: categorySchema missing': {
    path: () => `community/groups/${fx.groupId}/assignCategorySchema`,
    want: () => ({ code: 400, detail: "'categorySchema' is required." }),
  },
  'assignCategorySchema: not JSON': {
    path: () => `community/groups/${fx.groupId}/assignCategorySchema`,
    params: () => ({ categorySchema: '{"categorySchema": [' }),
    want: () => ({ code: 400, message: "'categorySchema' is not valid JSON." }),
  },
  'assignCategorySchema: a category without title': {
    path: () => `community/groups/${fx.groupId}/assignCategorySchema`,
    params: () => ({ categorySchema: JSON.stringify({ categorySchema: [{ categories: [] }] }) }),
    want: () => ({ code: 400, detail: 'categorySchema[0] has no title.' }),
  },
  'assignCategorySchema: six levels deep': {
    path: () => `community/groups/${fx.groupId}/assignCategorySchema`,
    params: () => {
      let node: Record<string, unknown> = { title: 'leaf' };
      for (let i = 0; i < 5; i++) node = { title: `level${i}`, categories: [node] };
      return { categorySchema: JSON.stringify({ categorySchema: [node] }) };
    },
    want: () => ({ code: 400, detail: 'Categories nest at most 5 levels deep' }),
  },
  'assignCategorySchema: by a member → 403': {
    path: () => `community/groups/${fx.groupId}/assignCategorySchema`,
    token: () => fx.member.token,
    params: () => ({ categorySchema: '{"categorySchema":[]}' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'info: no such file': {
    method: 'GET',
    path: () => `community/groups/${fx.groupId}/info/logo.png`,
    want: () => ({ code: 400, message: 'File does not exist or is inaccessible.' }),
  },
};

export const SHARING_CASES: Record<string, Case> = {
  // sharing
  'unshareItems: items missing': {
    path: () => `content/users/${o()}/unshareItems`,
    params: () => ({ groups: fx.groupId }),
    want: () => ({ code: 400, detail: "'items' is required" }),
  },
  'unshareItems: groups missing': {
    path: () => `content/users/${o()}/unshareItems`,
    params: () => ({ items: fx.itemId }),
    want: () => ({ code: 400, detail: "'groups' is required" }),
  },
  'unshareItems: items empty list': {
    path: () => `content/users/${o()}/unshareItems`,
    params: () => ({ items: ',,,', groups: fx.groupId }),
    want: () => ({ code: 400, message: "'items' is required." }),
  },
  'unshareItems: non-hex item id in the list': {
    path: () => `content/users/${o()}/unshareItems`,
    params: () => ({ items: `${fx.itemId},nothex`, groups: fx.groupId }),
    want: () => ({ code: 400, message: 'Invalid ids: ids are 32 hexadecimal characters.', detail: "'nothex' is not a valid item id." }),
  },
  'unshareItems: short item id in the list': {
    path: () => `content/users/${o()}/unshareItems`,
    params: () => ({ items: fx.itemId.slice(0, 31), groups: fx.groupId }),
    want: () => ({ code: 400, detail: 'is not a valid item id.' }),
  },
  'unshareItems: non-hex group id in the list': {
    path: () => `content/users/${o()}/unshareItems`,
    params: () => ({ items: fx.itemId, groups: `${fx.groupId},${notHex}` }),
    want: () => ({ code: 400, detail: `'${notHex}' is not a valid group id.` }),
  },
  'unshareItems: 1001 items': {
    path: () => `content/users/${o()}/unshareItems`,
    params: () => ({ items: ids(1001), groups: fx.groupId }),
    want: () => ({ code: 400, message: 'Too many items: 1001.', detail: 'At most 1000 items per request.' }),
  },
  'unshareItems: 20000 items': {
    path: () => `content/users/${o()}/unshareItems`,
    params: () => ({ items: ids(20000), groups: fx.groupId }),
    want: () => ({ code: 400, message: 'Too many items: 20000.' }),
  },
  'unshareItems: 101 groups': {
    path: () => `content/users/${o()}/unshareItems`,
    params: () => ({ items: fx.itemId, groups: ids(101) }),
    want: () => ({ code: 400, message: 'Too many groups: 101.', detail: 'At most 100 groups per request.' }),
  },
  'unshareItems: unknown owner → COM_0019': {
    path: () => `content/users/${ghost}/unshareItems`,
    params: () => ({ items: fx.itemId, groups: fx.groupId }),
    want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
  },
  'shareItems: items missing': {
    path: () => `content/users/${o()}/shareItems`,
    params: () => ({ groups: fx.groupId }),
    want: () => ({ code: 400, detail: "'items' is required" }),
  },
  'shareItems: neither groups nor everyone/org': {
    path: () => `content/users/${o()}/shareItems`,
    params: () => ({ items: fx.itemId }),
    want: () => ({ code: 400, message: "'groups' is required." }),
  },
  'shareItems: everyone=maybe': {
    path: () => `content/users/${o()}/shareItems`,
    params: () => ({ items: fx.itemId, everyone: 'maybe' }),
    want: () => ({ code: 400, detail: "'everyone' must be true or false." }),
  },
  'shareItems: org=perhaps': {
    path: () => `content/users/${o()}/shareItems`,
    params: () => ({ items: fx.itemId, org: 'perhaps' }),
    want: () => ({ code: 400, detail: "'org' must be true or false." }),
  },
  'shareItems: account=1': {
    path: () => `content/users/${o()}/shareItems`,
    params: () => ({ items: fx.itemId, account: '1' }),
    want: () => ({ code: 400, detail: "'account' must be true or false." }),
  },
  'shareItems: confirmItemControl=x': {
    path: () => `content/users/${o()}/shareItems`,
    params: () => ({ items: fx.itemId, groups: fx.groupId, confirmItemControl: 'x' }),
    want: () => ({ code: 400, detail: "'confirmItemControl' must be true or false." }),
  },
  'shareItems: 1001 items': {
    path: () => `content/users/${o()}/shareItems`,
    params: () => ({ items: ids(1001), groups: fx.groupId }),
    want: () => ({ code: 400, message: 'Too many items: 1001.' }),
  },
  'shareItems: 101 groups': {
    path: () => `content/users/${o()}/shareItems`,
    params: () => ({ items: fx.itemId, groups: ids(101) }),
    want: () => ({ code: 400, message: 'Too many groups: 101.' }),
  },
  'shareItems: non-hex ids in the lists': {
    path: () => `content/users/${o()}/shareItems`,
    params: () => ({ items: 'abc', groups: 'def' }),
    want: () => ({ code: 400, message: 'Invalid ids', detail: "'def' is not a valid group id." }),
  },
  'shareItems: unknown owner → COM_0019': {
    path: () => `content/users/${ghost}/shareItems`,
    params: () => ({ items: fx.itemId, groups: fx.groupId }),
    want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
  },
  'item share (owner): id not hex': {
    path: () => `content/users/${o()}/items/nothex/share`,
    params: () => ({ groups: fx.groupId }),
    want: () => ({ code: 400, messageCode: 'CONT_0001', detail: "'nothex' is not a valid item id" }),
  },
  'item share (owner): unknown item': {
    path: () => `content/users/${o()}/items/${fx.missingId}/share`,
    params: () => ({ groups: fx.groupId }),
    want: () => ({ code: 400, messageCode: 'CONT_0001', detail: fx.missingId }),
  },
  'item share (owner): everyone=maybe': {
    path: () => `content/users/${o()}/items/${fx.itemId}/share`,
    params: () => ({ everyone: 'maybe' }),
    want: () => ({ code: 400, detail: "'everyone' must be true or false." }),
  },
  'item share (owner): non-hex group list': {
    path: () => `content/users/${o()}/items/${fx.itemId}/share`,
    params: () => ({ groups: 'a,b' }),
    want: () => ({ code: 400, detail: "'a' is not a valid group id." }),
  },
  'item share (owner): unknown owner → COM_0019': {
    path: () => `content/users/${ghost}/items/${fx.itemId}/share`,
    params: () => ({ groups: fx.groupId }),
    want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
  },
  'item unshare (owner): groups missing': {
    path: () => `content/users/${o()}/items/${fx.itemId}/unshare`,
    want: () => ({ code: 400, detail: "'groups' is required" }),
  },
  'item unshare (owner): id not hex': {
    path: () => `content/users/${o()}/items/${notHex}/unshare`,
    params: () => ({ groups: fx.groupId }),
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'item unshare (owner): unknown owner → COM_0019': {
    path: () => `content/users/${ghost}/items/${fx.itemId}/unshare`,
    params: () => ({ groups: fx.groupId }),
    want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
  },
  'item share (group admin): everyone=true is for owners': {
    path: () => `content/items/${fx.itemId}/share`,
    params: () => ({ everyone: 'true' }),
    want: () => ({ code: 400, message: "'everyone' and 'org' can only be set by the owner or an administrator." }),
  },
  'item share (group admin): id not hex': {
    path: () => 'content/items/nothex/share',
    params: () => ({ groups: fx.groupId }),
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'item share (group admin): unknown item': {
    path: () => `content/items/${fx.missingId}/share`,
    params: () => ({ groups: fx.groupId }),
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'item unshare (group admin): groups missing': {
    path: () => `content/items/${fx.itemId}/unshare`,
    want: () => ({ code: 400, detail: "'groups' is required" }),
  },
  'item unshare (group admin): non-hex group': {
    path: () => `content/items/${fx.itemId}/unshare`,
    params: () => ({ groups: 'xyz' }),
    want: () => ({ code: 400, detail: "'xyz' is not a valid group id." }),
  },
};

export const NOTIFICATION_CASES: Record<string, Case> = {
  "notifications: another user's → 403": {
    method: 'GET',
    path: () => `community/users/${fx.member.username}/notifications`,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'notifications/:id: not hex': {
    method: 'GET',
    path: () => `community/users/${o()}/notifications/nothex`,
    want: () => ({ code: 400, message: 'Notification does not exist or is inaccessible.' }),
  },
  'notifications/:id/delete: unknown id': {
    path: () => `community/users/${o()}/notifications/${fx.missingId}/delete`,
    want: () => ({ code: 400, message: 'Notification does not exist or is inaccessible.' }),
  },
  'group createNotification: message missing': {
    path: () => `community/groups/${fx.groupId}/createNotification`,
    params: () => ({ notificationChannelType: 'builtin' }),
    want: () => ({ code: 400, message: INVALID, detail: "'message' is required." }),
  },
  'group createNotification: email is not delivered here': {
    path: () => `community/groups/${fx.groupId}/createNotification`,
    params: () => ({ message: 'm', notificationChannelType: 'email' }),
    want: () => ({ code: 400, message: "Unsupported notificationChannelType 'email'", detail: 'builtin' }),
  },
  'group createNotification: channel fax': {
    path: () => `community/groups/${fx.groupId}/createNotification`,
    params: () => ({ message: 'm', notificationChannelType: 'fax' }),
    want: () => ({ code: 400, detail: "'notificationChannelType' must be one of builtin, email, push." }),
  },
  'group createNotification: a user outside the group': {
    path: () => `community/groups/${fx.groupId}/createNotification`,
    params: () => ({ message: 'm', users: fx.other.username, notificationChannelType: 'builtin' }),
    want: () => ({ code: 400, message: 'Unable to create notification.', detail: 'is not a member of the group' }),
  },
  'group createNotification: a member → 403': {
    path: () => `community/groups/${fx.groupId}/createNotification`,
    token: () => fx.member.token,
    params: () => ({ message: 'm', notificationChannelType: 'builtin' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'group createNotification: unknown group → COM_0003': {
    path: () => `community/groups/${fx.missingId}/createNotification`,
    params: () => ({ message: 'm', notificationChannelType: 'builtin' }),
    want: () => ({ code: 400, messageCode: 'COM_0003' }),
  },
  'org createNotification: users missing': {
    path: () => 'portals/self/createNotification',
    token: admin,
    params: () => ({ message: 'm', notificationChannelType: 'builtin' }),
    want: () => ({ code: 400, detail: "'users' is required" }),
  },
  'org createNotification: unknown user': {
    path: () => 'portals/self/createNotification',
    token: admin,
    params: () => ({ users: ghost, message: 'm', notificationChannelType: 'builtin' }),
    want: () => ({ code: 400, message: 'Unable to create notification.', detail: 'is not a user of the organization' }),
  },
  'org createNotification: not an administrator → 403': {
    path: () => 'portals/self/createNotification',
    params: () => ({ users: fx.member.username, message: 'm', notificationChannelType: 'builtin' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
};

export const FOLDER_CASES: Record<string, Case> = {
  // A name nobody has is refused as another user's name is, so the answer tells nothing of who exists.
  'createFolder: unknown owner → 403, as for another user': {
    path: () => `content/users/${ghost}/createFolder`,
    params: () => ({ title: 'x' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'folder listing: unknown owner → 403, as for another user': {
    method: 'GET',
    path: () => `content/users/${ghost}/${fx.folderId}`,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'moveItems: unknown owner → 403, as for another user': {
    path: () => `content/users/${ghost}/moveItems`,
    params: () => ({ items: fx.itemId, folder: '/' }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'reassign: unknown owner → 403, as for another user': {
    path: () => `content/users/${ghost}/items/${fx.itemId}/reassign`,
    token: admin,
    params: () => ({ targetUsername: fx.member.username }),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'createFolder: title missing': {
    path: () => `content/users/${o()}/createFolder`,
    want: () => ({ code: 400, detail: "'title' is required." }),
  },
  'createFolder: blank title': {
    path: () => `content/users/${o()}/createFolder`,
    params: () => ({ title: '   ' }),
    want: () => ({ code: 400, message: "'title' is required." }),
  },
  'createFolder: title of 251 characters': {
    path: () => `content/users/${o()}/createFolder`,
    params: () => ({ title: long(251) }),
    want: () => ({ code: 400, detail: "'title' must be at most 250 characters." }),
  },
  'createFolder: a title taken, in another case': {
    path: () => `content/users/${o()}/createFolder`,
    params: () => ({ title: fx.folderTitle.toUpperCase() }),
    want: () => ({ code: 400, message: 'Unable to create folder.', detail: 'not available' }),
  },
  'createFolder: the user name as title': {
    path: () => `content/users/${o()}/createFolder`,
    params: () => ({ title: o() }),
    want: () => ({ code: 400, message: 'Unable to create folder.' }),
  },
  'createFolder: a control character': {
    path: () => `content/users/${o()}/createFolder`,
    params: () => ({ title: 'a\u0007b' }),
    want: () => ({ code: 400, message: 'Invalid folder title.' }),
  },
  "createFolder: in another user's content → 403": {
    path: () => `content/users/${fx.member.username}/createFolder`,
    params: () => ({ title: 'x' }),
    want: () => ({ code: 403 }),
  },
  'folder listing: not a folder id → unknown URL': {
    method: 'GET',
    path: () => `content/users/${o()}/notafolder`,
    want: () => ({ code: 400, messageCode: 'GWM_0002' }),
  },
  'folder listing: unknown folder': {
    method: 'GET',
    path: () => `content/users/${o()}/${fx.missingId}`,
    want: () => ({ code: 400, message: 'Folder does not exist.' }),
  },
  'folder listing: num=101': {
    method: 'GET',
    path: () => `content/users/${o()}/${fx.folderId}`,
    params: () => ({ num: '101' }),
    want: () => ({ code: 400, detail: "'num' must be at most 100." }),
  },
  'addItem into a folder: unknown folder': {
    path: () => `content/users/${o()}/${fx.missingId}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map' }),
    want: () => ({ code: 400, message: 'Folder does not exist.', detail: fx.missingId }),
  },
  'addItem: multipart without filename': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x', type: 'CSV', multipart: 'true' }),
    want: () => ({ code: 400, message: "'filename' is required for a multipart upload." }),
  },
  'addItem: multipart with text': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x', type: 'CSV', multipart: 'true', filename: 'a.csv', text: 'a' }),
    want: () => ({ code: 400, message: "A multipart add takes no 'file' or 'text'." }),
  },
  'addItem: multipart=maybe': {
    path: () => `content/users/${o()}/addItem`,
    params: () => ({ title: 'x', type: 'CSV', multipart: 'maybe' }),
    want: () => ({ code: 400, detail: "'multipart' must be true or false." }),
  },
  'move: unknown folder': {
    path: () => `content/users/${o()}/items/${fx.itemId}/move`,
    params: () => ({ folder: fx.missingId }),
    want: () => ({ code: 400, message: 'Folder does not exist.' }),
  },
  'move: unknown item': {
    path: () => `content/users/${o()}/items/${fx.missingId}/move`,
    params: () => ({ folder: fx.folderId }),
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'moveItems: items missing': {
    path: () => `content/users/${o()}/moveItems`,
    params: () => ({ folder: '/' }),
    want: () => ({ code: 400, message: INVALID, detail: "'items' is required" }),
  },
  'moveItems: items blank': {
    path: () => `content/users/${o()}/moveItems`,
    params: () => ({ items: ' , ', folder: '/' }),
    want: () => ({ code: 400, message: "'items' is required." }),
  },
  'moveItems: non-hex id': {
    path: () => `content/users/${o()}/moveItems`,
    params: () => ({ items: 'xyz', folder: '/' }),
    want: () => ({ code: 400, detail: "'xyz' is not a valid item id." }),
  },
  'moveItems: 1,001 items': {
    path: () => `content/users/${o()}/moveItems`,
    params: () => ({ items: ids(1001), folder: '/' }),
    want: () => ({ code: 400, message: 'Too many items: 1001.' }),
  },
  'reassign: targetUsername missing': {
    path: () => `content/users/${o()}/items/${fx.itemId}/reassign`,
    token: admin,
    want: () => ({ code: 400, detail: "'targetUsername' is required." }),
  },
  'reassign: unknown target → COM_0019': {
    path: () => `content/users/${o()}/items/${fx.itemId}/reassign`,
    token: admin,
    params: () => ({ targetUsername: ghost }),
    want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
  },
  'reassign: to the owner': {
    path: () => `content/users/${o()}/items/${fx.itemId}/reassign`,
    token: admin,
    params: () => ({ targetUsername: o() }),
    want: () => ({ code: 400, message: 'Unable to reassign items.' }),
  },
  'reassign: by the owner → 403': {
    path: () => `content/users/${o()}/items/${fx.itemId}/reassign`,
    params: () => ({ targetUsername: fx.member.username }),
    want: () => ({ code: 403 }),
  },
  'reassignItems: 1,001 items': {
    path: () => `content/users/${o()}/reassignItems`,
    token: admin,
    params: () => ({ items: ids(1001), targetUsername: fx.member.username }),
    want: () => ({ code: 400, message: 'Too many items: 1001.' }),
  },
  'addPart: partNum missing': {
    path: () => `content/users/${o()}/items/${fx.uploadId}/addPart`,
    want: () => ({ code: 400, detail: "'partNum' must be a whole number from 1 to 10000." }),
  },
  'addPart: partNum=0': {
    path: () => `content/users/${o()}/items/${fx.uploadId}/addPart`,
    params: () => ({ partNum: '0' }),
    want: () => ({ code: 400, detail: "'partNum' must be a whole number from 1 to 10000." }),
  },
  'addPart: partNum=10001': {
    path: () => `content/users/${o()}/items/${fx.uploadId}/addPart`,
    params: () => ({ partNum: '10001' }),
    want: () => ({ code: 400, detail: "'partNum' must be a whole number from 1 to 10000." }),
  },
  'addPart: partNum=1.5': {
    path: () => `content/users/${o()}/items/${fx.uploadId}/addPart`,
    params: () => ({ partNum: '1.5' }),
    want: () => ({ code: 400, detail: "'partNum' must be a whole number from 1 to 10000." }),
  },
  'addPart: no file': {
    path: () => `content/users/${o()}/items/${fx.uploadId}/addPart`,
    params: () => ({ partNum: '1' }),
    want: () => ({ code: 400, message: "'file' is required." }),
  },
  'addPart: an item without an upload': {
    path: () => `content/users/${o()}/items/${fx.itemId}/addPart`,
    params: () => ({ partNum: '1' }),
    want: () => ({ code: 400, message: 'Item is not being uploaded in parts.' }),
  },
  "addPart: another user's upload → CONT_0001": {
    path: () => `content/users/${o()}/items/${fx.uploadId}/addPart`,
    token: other,
    params: () => ({ partNum: '1' }),
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
  'commit: no parts yet': {
    path: () => `content/users/${o()}/items/${fx.uploadId}/commit`,
    want: () => ({ code: 400, message: 'No parts were uploaded.' }),
  },
  'commit: item id not hex': {
    path: () => `content/users/${o()}/items/nothex/commit`,
    want: () => ({ code: 400, messageCode: 'CONT_0001' }),
  },
};

// ── feature services: admin definitions, the feature resource, related records (issue 28) ──
// Filled by feature-admin.spec.ts: a service of the owner's with layer 0 (feature 1) and table 1, related by
// relationship 0 (the table's SiteId to the layer's OBJECTID).
export const featureFx = { name: '' };
const svcName = () => featureFx.name;
const layer0 = () => '0';
const ADMIN_SVC = 'arcgis/rest/admin/services/:name/FeatureServer';
const SVC = 'arcgis/rest/services/:name/FeatureServer';
const RELATED_FUZZ = [
  'objectIds',
  'relationshipId',
  'outFields',
  'definitionExpression',
  'returnGeometry',
  'outSR',
  'orderByFields',
  'returnCountOnly',
  'resultOffset',
  'resultRecordCount',
  'maxAllowableOffset',
  'geometryPrecision',
];

export const FEATURE_ADMIN_ROUTES: Route[] = [
  { name: `${ADMIN_SVC}`, kind: 'ANY', auth: 'required', root: true, path: ADMIN_SVC, pathParams: { name: svcName } },
  {
    name: `${ADMIN_SVC}/updateDefinition`,
    kind: 'POST',
    auth: 'required',
    root: true,
    path: `${ADMIN_SVC}/updateDefinition`,
    pathParams: { name: svcName },
    params: () => ({ updateDefinition: JSON.stringify({ serviceDescription: 'described' }) }),
    fuzz: ['updateDefinition'],
  },
  {
    name: `${ADMIN_SVC}/:layerId/updateDefinition`,
    kind: 'POST',
    auth: 'required',
    root: true,
    path: `${ADMIN_SVC}/:layerId/updateDefinition`,
    pathParams: { name: svcName, layerId: layer0 },
    params: () => ({ updateDefinition: JSON.stringify({ description: 'described' }) }),
    fuzz: ['updateDefinition'],
  },
  {
    name: `${ADMIN_SVC}/:layerId/addToDefinition`,
    kind: 'POST',
    auth: 'required',
    root: true,
    path: `${ADMIN_SVC}/:layerId/addToDefinition`,
    pathParams: { name: svcName, layerId: layer0 },
    params: () => ({ addToDefinition: JSON.stringify({ fields: [{ name: uniq('F'), type: 'esriFieldTypeInteger' }] }) }),
    fuzz: ['addToDefinition'],
  },
  {
    name: `${ADMIN_SVC}/:layerId/deleteFromDefinition`,
    kind: 'POST',
    auth: 'required',
    root: true,
    path: `${ADMIN_SVC}/:layerId/deleteFromDefinition`,
    pathParams: { name: svcName, layerId: layer0 },
    params: () => ({ deleteFromDefinition: JSON.stringify({ fields: [{ name: 'NoSuchField' }] }) }),
    fuzz: ['deleteFromDefinition'],
    ok: false,
  },
  { name: `${SVC}/relationships`, kind: 'ANY', auth: 'public', root: true, path: `${SVC}/relationships`, pathParams: { name: svcName } },
  {
    name: `${SVC}/:layerId/:featureId`,
    kind: 'ANY',
    auth: 'public',
    root: true,
    path: `${SVC}/:layerId/:featureId`,
    pathParams: { name: svcName, layerId: layer0, featureId: () => '1' },
  },
  {
    name: `${SVC}/:layerId/queryRelatedRecords`,
    kind: 'ANY',
    auth: 'public',
    root: true,
    path: `${SVC}/:layerId/queryRelatedRecords`,
    pathParams: { name: svcName, layerId: layer0 },
    params: () => ({ relationshipId: '0', objectIds: '1' }),
    fuzz: RELATED_FUZZ,
  },
];

const admin0 = (op: string) => () => `arcgis/rest/admin/services/${featureFx.name}/FeatureServer/0/${op}`;
const adminSvc = (op: string) => () => `arcgis/rest/admin/services/${featureFx.name}/FeatureServer/${op}`;
const related = () => `arcgis/rest/services/${featureFx.name}/FeatureServer/0/queryRelatedRecords`;
const INVALID_DEF = 'Invalid definition.';
const QUERY_ERROR = 'Cannot perform query. Invalid query parameters.';
const json = (v: unknown) => JSON.stringify(v);
const rel = (more: object = {}) =>
  json({
    relationships: [
      {
        id: 9,
        name: 'r',
        relatedTableId: 1,
        cardinality: 'esriRelCardinalityOneToMany',
        role: 'esriRelRoleOrigin',
        keyField: 'OBJECTID',
        ...more,
      },
    ],
  });

export const FEATURE_ADMIN_CASES: Record<string, Case> = {
  'updateDefinition: missing': {
    root: true,
    path: adminSvc('updateDefinition'),
    want: () => ({ code: 400, message: INVALID, detail: "'updateDefinition' is required" }),
  },
  'updateDefinition: not JSON': {
    root: true,
    path: adminSvc('updateDefinition'),
    params: () => ({ updateDefinition: '{oops' }),
    want: () => ({ code: 400, message: "'updateDefinition' is not valid JSON." }),
  },
  'updateDefinition: a JSON array': {
    root: true,
    path: adminSvc('updateDefinition'),
    params: () => ({ updateDefinition: '[]' }),
    want: () => ({ code: 400, message: "'updateDefinition' must be a JSON object." }),
  },
  'updateDefinition: unknown capability': {
    root: true,
    path: adminSvc('updateDefinition'),
    params: () => ({ updateDefinition: json({ capabilities: 'Query,Teleport' }) }),
    want: () => ({ code: 400, message: 'Invalid capabilities.', detail: 'Unknown capabilities: Teleport.' }),
  },
  'updateDefinition: capabilities not text': {
    root: true,
    path: adminSvc('updateDefinition'),
    params: () => ({ updateDefinition: json({ capabilities: ['Query'] }) }),
    want: () => ({ code: 400, message: 'Invalid capabilities.' }),
  },
  'updateDefinition: maxRecordCount 50001': {
    root: true,
    path: adminSvc('updateDefinition'),
    params: () => ({ updateDefinition: json({ maxRecordCount: 50001 }) }),
    want: () => ({ code: 400, message: "'maxRecordCount' must be 1-50000." }),
  },
  'updateDefinition: maxRecordCount true': {
    root: true,
    path: adminSvc('updateDefinition'),
    params: () => ({ updateDefinition: json({ maxRecordCount: true }) }),
    want: () => ({ code: 400, message: "'maxRecordCount' must be 1-50000." }),
  },
  'updateDefinition: unsupported service property': {
    root: true,
    path: adminSvc('updateDefinition'),
    params: () => ({ updateDefinition: json({ syncEnabled: true }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "Unsupported service definition property 'syncEnabled'" }),
  },
  'updateDefinition: cacheMaxAge -1': {
    root: true,
    path: adminSvc('updateDefinition'),
    params: () => ({ updateDefinition: json({ cacheMaxAge: -1 }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "'cacheMaxAge' must be 0-86400 seconds." }),
  },
  'updateDefinition: adminServiceInfo not an object': {
    root: true,
    path: adminSvc('updateDefinition'),
    params: () => ({ updateDefinition: json({ adminServiceInfo: 'x' }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "'adminServiceInfo' must be a JSON object." }),
  },
  'layer updateDefinition: cacheMaxAge on a layer': {
    root: true,
    path: admin0('updateDefinition'),
    params: () => ({ updateDefinition: json({ cacheMaxAge: 10 }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "'cacheMaxAge' is set on the service" }),
  },
  'layer updateDefinition: missing': {
    root: true,
    path: admin0('updateDefinition'),
    want: () => ({ code: 400, message: INVALID, detail: "'updateDefinition' is required" }),
  },
  'layer updateDefinition: no such layer': {
    root: true,
    path: () => `arcgis/rest/admin/services/${featureFx.name}/FeatureServer/42/updateDefinition`,
    params: () => ({ updateDefinition: json({ name: 'x' }) }),
    want: () => ({ code: 400, message: 'Layer does not exist.' }),
  },
  'layer updateDefinition: blank name': {
    root: true,
    path: admin0('updateDefinition'),
    params: () => ({ updateDefinition: json({ name: '  ' }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "'name' must be 1-128 characters." }),
  },
  'layer updateDefinition: maxRecordCount on a layer': {
    root: true,
    path: admin0('updateDefinition'),
    params: () => ({ updateDefinition: json({ maxRecordCount: 10 }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "'maxRecordCount' is set on the service" }),
  },
  'layer updateDefinition: unsupported property': {
    root: true,
    path: admin0('updateDefinition'),
    params: () => ({ updateDefinition: json({ hasM: true }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "Unsupported layer definition property 'hasM'" }),
  },
  'layer updateDefinition: constructor, a key every object inherits': {
    root: true,
    path: admin0('updateDefinition'),
    params: () => ({ updateDefinition: '{"constructor":1}' }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "Unsupported layer definition property 'constructor'" }),
  },
  'updateDefinition: toString, a key every object inherits': {
    root: true,
    path: adminSvc('updateDefinition'),
    params: () => ({ updateDefinition: '{"toString":1}' }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "Unsupported service definition property 'toString'" }),
  },
  'layer updateDefinition: a field that is not there': {
    root: true,
    path: admin0('updateDefinition'),
    params: () => ({ updateDefinition: json({ fields: [{ name: 'Nope', alias: 'x' }] }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'is not a field of layer' }),
  },
  'layer updateDefinition: a field type change': {
    root: true,
    path: admin0('updateDefinition'),
    params: () => ({ updateDefinition: json({ fields: [{ name: 'Name', type: 'esriFieldTypeInteger' }] }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'its type cannot change' }),
  },
  'layer updateDefinition: a shorter string length': {
    root: true,
    path: admin0('updateDefinition'),
    params: () => ({ updateDefinition: json({ fields: [{ name: 'Name', length: 1 }] }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "'length' may only grow" }),
  },
  'layer updateDefinition: a domain of an unknown type': {
    root: true,
    path: admin0('updateDefinition'),
    params: () => ({ updateDefinition: json({ fields: [{ name: 'Name', domain: { type: 'inherited' } }] }) }),
    // The same rule as addToDefinition's (layers/field-domain.ts), with its words.
    want: () => ({ code: 400, message: 'Invalid layer definition.', detail: 'domain type "inherited" is not supported' }),
  },
  'layer updateDefinition: displayField not a field': {
    root: true,
    path: admin0('updateDefinition'),
    params: () => ({ updateDefinition: json({ displayField: 'Nope' }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "'displayField' must name a field of the layer." }),
  },
  'layer addToDefinition: missing': {
    root: true,
    path: admin0('addToDefinition'),
    want: () => ({ code: 400, message: INVALID, detail: "'addToDefinition' is required" }),
  },
  'layer addToDefinition: layers (the service takes those)': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: json({ layers: [] }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "Unsupported layer definition property 'layers'" }),
  },
  'layer addToDefinition: a field that exists': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: json({ fields: [{ name: 'NAME', type: 'esriFieldTypeString' }] }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "Field 'NAME' exists already" }),
  },
  'layer addToDefinition: a second object id': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: json({ fields: [{ name: 'Oid2', type: 'esriFieldTypeOID' }] }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'object id field already' }),
  },
  'layer addToDefinition: an unsupported field type': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: json({ fields: [{ name: 'Pic', type: 'esriFieldTypeBlob' }] }) }),
    want: () => ({ code: 400, message: 'Invalid layer definition.', detail: 'unsupported type' }),
  },
  'layer addToDefinition: fields not an array': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: json({ fields: {} }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "'fields' must be an array." }),
  },
  'layer addToDefinition: relationship to a missing table': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: rel({ relatedTableId: 42 }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'the service has no layer or table 42' }),
  },
  'layer addToDefinition: relationship to itself': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: rel({ relatedTableId: 0 }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'cannot be related to itself' }),
  },
  'layer addToDefinition: relationship without id': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: rel({ id: 'one' }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "relationship 'id' must be a whole number" }),
  },
  'layer addToDefinition: relationship of an unknown role': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: rel({ role: 'esriRelRoleBoth' }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "'role' must be one of" }),
  },
  'layer addToDefinition: many-to-many relationship': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: rel({ cardinality: 'esriRelCardinalityManyToMany' }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'many-to-many relationships are not supported' }),
  },
  'layer addToDefinition: composite not true or false': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: rel({ composite: 'yes' }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "'composite' must be true or false." }),
  },
  'layer addToDefinition: relationship keyed on a double': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: rel({ keyField: 'Score' }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'must be an integer, string, GUID or GlobalID field' }),
  },
  'layer addToDefinition: a relationship id the layer has': {
    root: true,
    path: admin0('addToDefinition'),
    params: () => ({ addToDefinition: rel({ id: 0, keyField: 'Name' }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'Relationship 0 exists already' }),
  },
  'layer deleteFromDefinition: the object id': {
    root: true,
    path: admin0('deleteFromDefinition'),
    params: () => ({ deleteFromDefinition: json({ fields: [{ name: 'objectid' }] }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'is the object id field' }),
  },
  'layer deleteFromDefinition: the geometry': {
    root: true,
    path: admin0('deleteFromDefinition'),
    params: () => ({ deleteFromDefinition: json({ fields: [{ name: 'Shape' }] }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'The geometry cannot be deleted.' }),
  },
  'layer deleteFromDefinition: a relationship key': {
    root: true,
    path: () => `arcgis/rest/admin/services/${featureFx.name}/FeatureServer/1/deleteFromDefinition`,
    params: () => ({ deleteFromDefinition: json({ fields: [{ name: 'SiteId' }] }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'is the key of a relationship' }),
  },
  'layer deleteFromDefinition: an empty fields list': {
    root: true,
    path: admin0('deleteFromDefinition'),
    params: () => ({ deleteFromDefinition: json({ fields: [] }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: "'fields' must be a non-empty array" }),
  },
  'layer deleteFromDefinition: a relationship that is not there': {
    root: true,
    path: admin0('deleteFromDefinition'),
    params: () => ({ deleteFromDefinition: json({ relationships: [{ id: 42 }] }) }),
    want: () => ({ code: 400, message: INVALID_DEF, detail: 'has no relationship 42' }),
  },
  'getFeature: an object id that is not there': {
    root: true,
    method: 'GET',
    path: () => `arcgis/rest/services/${featureFx.name}/FeatureServer/0/99999`,
    want: () => ({ code: 404, message: 'Feature not found.' }),
  },
  'getFeature: an object id past 2^31': {
    root: true,
    method: 'GET',
    path: () => `arcgis/rest/services/${featureFx.name}/FeatureServer/0/99999999999`,
    want: () => ({ code: 404, message: 'Feature not found.' }),
  },
  'getFeature: a name that is no object id or operation': {
    root: true,
    method: 'GET',
    path: () => `arcgis/rest/services/${featureFx.name}/FeatureServer/0/frobnicate`,
    want: () => ({ code: 400, messageCode: 'GWM_0002', message: 'Invalid URL' }),
  },
  'queryRelatedRecords: unknown relationship': {
    root: true,
    path: related,
    params: () => ({ relationshipId: '5' }),
    want: () => ({ code: 400, message: QUERY_ERROR, detail: 'has no relationship 5' }),
  },
  'queryRelatedRecords: relationshipId not a number': {
    root: true,
    path: related,
    params: () => ({ relationshipId: 'x' }),
    want: () => ({ code: 400, message: QUERY_ERROR, text: /relationshipId/ }),
  },
  'queryRelatedRecords: objectIds not ids': {
    root: true,
    path: related,
    params: () => ({ relationshipId: '0', objectIds: '1,abc' }),
    want: () => ({ code: 400, message: QUERY_ERROR, detail: "'objectIds' holds 'abc'" }),
  },
  'queryRelatedRecords: outFields of the other layer': {
    root: true,
    path: related,
    params: () => ({ relationshipId: '0', outFields: 'Name' }),
    want: () => ({ code: 400, message: QUERY_ERROR, detail: "'outFields' names 'Name'" }),
  },
  'queryRelatedRecords: definitionExpression that does not parse': {
    root: true,
    path: related,
    params: () => ({ relationshipId: '0', definitionExpression: "Note = 'x" }),
    want: () => ({ code: 400 }),
  },
  'queryRelatedRecords: orderByFields not a field': {
    root: true,
    path: related,
    params: () => ({ relationshipId: '0', orderByFields: 'Nope DESC' }),
    want: () => ({ code: 400, message: QUERY_ERROR, detail: "'orderByFields' entry 'Nope DESC'" }),
  },
  'queryRelatedRecords: f=pbf (ArcGIS answers json only)': {
    root: true,
    path: related,
    params: () => ({ relationshipId: '0', f: 'pbf' }),
    want: () => ({ code: 400, message: "Invalid value for parameter 'f': 'pbf'." }),
  },
};

/** The view fixture of the feature views' cases (bad-input/feature-views.spec.ts fills it in): service names. */
export const viewFx = { source: '', view: '', sourceItem: '' };
const viewAdmin = (op: string) => `arcgis/rest/admin/services/${viewFx.view}/FeatureServer/${op}`;
/** addToDefinition of the view with one layer whose viewLayerDefinition and layer properties are changed as given. */
const viewLayer = (vld: Record<string, unknown> = {}, layer: Record<string, unknown> = {}) => ({
  addToDefinition: JSON.stringify({
    layers: [
      { name: 'v', ...layer, adminLayerInfo: { viewLayerDefinition: { sourceServiceName: viewFx.source, sourceLayerId: 0, ...vld } } },
    ],
  }),
});
const envelopeFilter = (
  geometry: Record<string, unknown>,
  operator = 'esriSpatialRelIntersects',
  geometryType = 'esriGeometryEnvelope',
) => ({
  filter: { operator, value: { geometryType, geometry: { spatialReference: { wkid: 4326 }, ...geometry } } },
});
const VALID_BOX = { xmin: 0, ymin: 0, xmax: 1, ymax: 1 };
const viewCase = (want: Want, vld: Record<string, unknown> = {}, layer: Record<string, unknown> = {}): Case => ({
  root: true,
  path: () => viewAdmin('addToDefinition'),
  params: () => viewLayer(vld, layer),
  want: () => want,
});

export const VIEW_ROUTES: Route[] = [
  {
    name: 'arcgis/rest/services/:name/FeatureServer/sources',
    kind: 'ANY',
    auth: 'public',
    root: true,
    path: 'arcgis/rest/services/:name/FeatureServer/sources',
    pathParams: { name: () => viewFx.view },
  },
  {
    name: 'arcgis/rest/admin/services/:name/FeatureServer/addToDefinition (a view)',
    kind: 'POST',
    auth: 'required',
    root: true,
    path: 'arcgis/rest/admin/services/:name/FeatureServer/addToDefinition',
    pathParams: { name: () => viewFx.view },
    params: () => viewLayer(),
    fuzz: ['addToDefinition'],
  },
];

export const VIEW_CASES: Record<string, Case> = {
  'createService: 129 tags': {
    path: () => `content/users/${o()}/createService`,
    params: () => ({
      createParameters: JSON.stringify({ name: uniq('t') }),
      outputType: 'featureService',
      tags: Array.from({ length: 129 }, (_, i) => `t${i}`).join(','),
    }),
    want: () => ({ code: 400, detail: "'tags' may hold at most 128 values (TAGS_MAX_COUNT)." }),
  },
  'createService: itemInfo with a tag of 257 characters': {
    path: () => `content/users/${o()}/createService`,
    params: () => ({
      createParameters: JSON.stringify({ name: uniq('t') }),
      outputType: 'featureService',
      itemInfo: JSON.stringify({ tags: ['x'.repeat(257)] }),
    }),
    want: () => ({ code: 400, detail: "Each value of 'tags' must be at most 256 characters (TAG_MAX_CHARS); one has 257." }),
  },
  'createService: a view given layers of its own': {
    path: () => `content/users/${o()}/createService`,
    params: () => ({
      createParameters: JSON.stringify({ name: uniq('v'), layers: [{ name: 'L', geometryType: 'esriGeometryPoint', fields: [] }] }),
      outputType: 'featureService',
      isView: 'true',
    }),
    want: () => ({ code: 400, detail: "A view's layers are added with addToDefinition, naming their sources." }),
  },
  'createService: isView neither true nor false': {
    path: () => `content/users/${o()}/createService`,
    params: () => ({ createParameters: JSON.stringify({ name: uniq('v') }), outputType: 'featureService', isView: 'maybe' }),
    want: () => ({ code: 400, text: /'isView' must be true or false/ }),
  },
  'addToDefinition of a view: layers not an array': {
    root: true,
    path: () => viewAdmin('addToDefinition'),
    params: () => ({ addToDefinition: JSON.stringify({ layers: {} }) }),
    want: () => ({ code: 400, message: "'layers' must be an array." }),
  },
  'addToDefinition of a view: no layers': {
    root: true,
    path: () => viewAdmin('addToDefinition'),
    params: () => ({ addToDefinition: '{}' }),
    want: () => ({ code: 400, detail: "'addToDefinition' needs at least one entry in 'layers' or 'tables'." }),
  },
  'addToDefinition of a view: a layer without viewLayerDefinition': {
    root: true,
    path: () => viewAdmin('addToDefinition'),
    params: () => ({ addToDefinition: JSON.stringify({ layers: [{ name: 'x', geometryType: 'esriGeometryPoint', fields: [] }] }) }),
    want: () => ({ code: 400, text: /adminLayerInfo\.viewLayerDefinition/ }),
  },
  'addToDefinition of a view: a layer that is not an object': {
    root: true,
    path: () => viewAdmin('addToDefinition'),
    params: () => ({ addToDefinition: JSON.stringify({ layers: [7] }) }),
    want: () => ({ code: 400, detail: 'Each layer must be a JSON object.' }),
  },
  'addToDefinition of a view: sourceServiceName missing': viewCase(
    { code: 400, detail: "'viewLayerDefinition.sourceServiceName' must name the source service." },
    { sourceServiceName: undefined },
  ),
  'addToDefinition of a view: no such source service': viewCase(
    { code: 400, text: /Source service 'nosuch_service' does not exist or cannot be the source of this view/ },
    { sourceServiceName: 'nosuch_service' },
  ),
  'addToDefinition of a view: a view as the source': {
    ...viewCase({ code: 400, text: /cannot be the source of this view/ }),
    params: () => viewLayer({ sourceServiceName: viewFx.view }),
  },
  'addToDefinition of a view: sourceLayerId not a number': viewCase(
    { code: 400, detail: "'viewLayerDefinition.sourceLayerId' must be a layer id." },
    { sourceLayerId: 'abc' },
  ),
  'addToDefinition of a view: no such source layer': viewCase({ code: 400, text: /has no layer 7/ }, { sourceLayerId: 7 }),
  'addToDefinition of a view: a joined view': viewCase(
    { code: 400, text: /Joined views \(relatedTables\) are not supported/ },
    { table: { sourceServiceName: 'x', sourceLayerId: 0, relatedTables: [{ name: 'j' }] } },
  ),
  'addToDefinition of a view: table not an object': viewCase(
    { code: 400, detail: "'viewLayerDefinition.table' must be an object." },
    { table: 5 },
  ),
  'addToDefinition of a view: sourceLayerFields not a list': viewCase(
    { code: 400, text: /'sourceLayerFields' must be "\*" or a list/ },
    { sourceLayerFields: 5 },
  ),
  'addToDefinition of a view: a field the source does not have': viewCase(
    { code: 400, text: /the source layer has no field 'Nope'/ },
    { sourceLayerFields: [{ name: 'Nope' }] },
  ),
  'addToDefinition of a view: a field renamed': viewCase(
    { code: 400, text: /field 'Other' must keep its source's name \('Name'\)/ },
    { sourceLayerFields: [{ name: 'Other', source: 'Name' }] },
  ),
  'addToDefinition of a view: a field entry without a name': viewCase(
    { code: 400, text: /each of 'sourceLayerFields' needs a 'name'/ },
    { sourceLayerFields: [{ alias: 'a' }] },
  ),
  'addToDefinition of a view: viewDefinitionQuery not text': viewCase(
    { code: 400, detail: "'viewDefinitionQuery' must be a where clause." },
    {},
    { viewDefinitionQuery: 5 },
  ),
  'addToDefinition of a view: viewDefinitionQuery not a where clause': viewCase(
    { code: 400, text: /Layer 'v': viewDefinitionQuery: / },
    {},
    { viewDefinitionQuery: 'Kind = ' },
  ),
  'addToDefinition of a view: viewDefinitionQuery naming no field of the source': viewCase(
    { code: 400, text: /viewDefinitionQuery: Unknown field 'Nope'/ },
    {},
    { viewDefinitionQuery: "Nope = 'x'" },
  ),
  'addToDefinition of a view: filter with another operator': viewCase(
    { code: 400, text: /supports operator esriSpatialRelIntersects only/ },
    envelopeFilter(VALID_BOX, 'esriSpatialRelWithin'),
  ),
  'addToDefinition of a view: filter not an envelope': viewCase(
    { code: 400, text: /takes an esriGeometryEnvelope/ },
    envelopeFilter(VALID_BOX, 'esriSpatialRelIntersects', 'esriGeometryPolygon'),
  ),
  'addToDefinition of a view: filter envelope without numbers': viewCase(
    { code: 400, text: /needs numbers xmin, ymin, xmax and ymax/ },
    envelopeFilter({ ...VALID_BOX, xmin: 'a' }),
  ),
  'addToDefinition of a view: filter envelope inside out': viewCase(
    { code: 400, text: /envelope is empty/ },
    envelopeFilter({ ...VALID_BOX, xmin: 2 }),
  ),
  'addToDefinition of a view: filter in an unknown spatial reference': viewCase(
    { code: 400, text: /unknown wkid 999999 in the filter/ },
    envelopeFilter({ ...VALID_BOX, spatialReference: { wkid: 999999 } }),
  ),
  'addToDefinition of a view: filter wkid not a number': viewCase(
    { code: 400, text: /spatialReference needs a wkid/ },
    envelopeFilter({ ...VALID_BOX, spatialReference: { wkid: 'x' } }),
  ),
  'addToDefinition of a view: layer id out of range': viewCase({ code: 400, text: /must be a whole number 0-1000000/ }, {}, { id: -1 }),
  'addToDefinition of a view: layer id in use': viewCase({ code: 400, detail: 'Layer id 0 is already in use.' }, {}, { id: 0 }),
  'sources: a service that does not exist': {
    root: true,
    method: 'GET',
    path: () => 'arcgis/rest/services/nosuch_service/FeatureServer/sources',
    want: () => ({ code: 400, message: 'Service does not exist or is inaccessible.' }),
  },
  'deleteFromDefinition: a layer a view reads': {
    root: true,
    path: () => `arcgis/rest/admin/services/${viewFx.source}/FeatureServer/deleteFromDefinition`,
    params: () => ({ deleteFromDefinition: JSON.stringify({ layers: [{ id: 0 }] }) }),
    want: () => ({ code: 400, message: 'Unable to update feature service layer definition.' }),
  },
  'delete: a service a view reads': {
    path: () => `content/users/${o()}/items/${viewFx.sourceItem}/delete`,
    want: () => ({ code: 400, message: 'Unable to delete item. This service item has a related Service item' }),
  },
};

// ── feature attachments (issue 28): a service of the owner's whose layer 0 has attachments, made by attachments.spec ──
export const attachmentFx = { service: '', oid: '', attachmentId: '', plainLayer: '1' };
const svcPath = (rest: string) => `arcgis/rest/services/:svc/FeatureServer/${rest}`;
const attachmentPathParams = { svc: () => attachmentFx.service, layer: () => '0', oid: () => attachmentFx.oid };
export const ATTACHMENT_ROUTES: Route[] = [
  {
    name: 'FeatureServer/:layer/queryAttachments',
    kind: 'ANY',
    auth: 'required',
    root: true,
    path: svcPath(':layer/queryAttachments'),
    pathParams: attachmentPathParams,
    params: () => ({ objectIds: attachmentFx.oid }),
    fuzz: [
      'objectIds',
      'globalIds',
      'definitionExpression',
      'attachmentTypes',
      'size',
      'keywords',
      'resultOffset',
      'resultRecordCount',
      'returnUrl',
    ],
  },
  {
    name: 'FeatureServer/:layer/:oid/attachments',
    kind: 'ANY',
    auth: 'required',
    root: true,
    path: svcPath(':layer/:oid/attachments'),
    pathParams: attachmentPathParams,
  },
  // Without a file part: the baseline answers "'attachment' is required." and stores nothing.
  {
    name: 'FeatureServer/:layer/:oid/addAttachment',
    kind: 'POST',
    auth: 'required',
    root: true,
    path: svcPath(':layer/:oid/addAttachment'),
    pathParams: attachmentPathParams,
    params: () => ({ keywords: 'k' }),
    fuzz: ['keywords', 'uploadId'],
    ok: false,
  },
  {
    name: 'FeatureServer/:layer/:oid/updateAttachment',
    kind: 'POST',
    auth: 'required',
    root: true,
    path: svcPath(':layer/:oid/updateAttachment'),
    pathParams: attachmentPathParams,
    params: () => ({ attachmentId: attachmentFx.attachmentId }),
    fuzz: ['attachmentId', 'keywords', 'uploadId'],
    ok: false,
  },
  // An id the feature does not have: answered per id, nothing deleted.
  {
    name: 'FeatureServer/:layer/:oid/deleteAttachments',
    kind: 'POST',
    auth: 'required',
    root: true,
    path: svcPath(':layer/:oid/deleteAttachments'),
    pathParams: attachmentPathParams,
    params: () => ({ attachmentIds: '2147483647' }),
    fuzz: ['attachmentIds'],
  },
];

const att = (rest: string) => `arcgis/rest/services/${attachmentFx.service}/FeatureServer/${rest}`;
export const ATTACHMENT_CASES: Record<string, Case> = {
  'attachments: object id not a number': {
    root: true,
    method: 'GET',
    path: () => att('0/abc/attachments'),
    want: () => ({ code: 400, message: 'Invalid object id.' }),
  },
  'attachments: object id past 2^31': {
    root: true,
    method: 'GET',
    path: () => att('0/2147483648/attachments'),
    want: () => ({ code: 400, message: 'Invalid object id.' }),
  },
  'attachments/:id: attachment id not a number': {
    root: true,
    method: 'GET',
    path: () => att(`0/${attachmentFx.oid}/attachments/1e3`),
    want: () => ({ code: 400, message: 'Invalid attachment id.' }),
  },
  'attachments/:id: no such attachment': {
    root: true,
    method: 'GET',
    path: () => att(`0/${attachmentFx.oid}/attachments/2147483647`),
    want: () => ({ code: 400, message: 'Attachment does not exist or is inaccessible.' }),
  },
  'attachments/:id: an attachment of another feature': {
    root: true,
    method: 'GET',
    path: () => att(`0/${Number(attachmentFx.oid) + 1}/attachments/${attachmentFx.attachmentId}`),
    want: () => ({ code: 400, message: 'Attachment does not exist or is inaccessible.' }),
  },
  'attachments: a layer without attachments': {
    root: true,
    method: 'GET',
    path: () => att(`${attachmentFx.plainLayer}/1/attachments`),
    want: () => ({ code: 400, message: 'Requested operation is not supported by this service.' }),
  },
  'attachments: no such layer': {
    root: true,
    method: 'GET',
    path: () => att('7/1/attachments'),
    want: () => ({ code: 400, message: 'Layer does not exist.' }),
  },
  'queryAttachments: no objectIds, globalIds or definitionExpression': {
    root: true,
    path: () => att('0/queryAttachments'),
    want: () => ({ code: 400, message: 'Unable to perform query.' }),
  },
  'queryAttachments: definitionExpression names no field': {
    root: true,
    path: () => att('0/queryAttachments'),
    params: () => ({ definitionExpression: 'Nope = 1' }),
    want: () => ({ code: 400, message: 'Cannot perform query. Invalid query parameters.' }),
  },
  'queryAttachments: size is not a range': {
    root: true,
    path: () => att('0/queryAttachments'),
    params: () => ({ objectIds: attachmentFx.oid, size: '10' }),
    want: () => ({ code: 400, message: "'size' must be a range of bytes 'min,max'." }),
  },
  'queryAttachments: size min above max': {
    root: true,
    path: () => att('0/queryAttachments'),
    params: () => ({ objectIds: attachmentFx.oid, size: '10,2' }),
    want: () => ({ code: 400, message: "'size' must be a range of bytes 'min,max'." }),
  },
  'queryAttachments: globalIds not GUIDs': {
    root: true,
    path: () => att('0/queryAttachments'),
    params: () => ({ globalIds: 'abc' }),
    want: () => ({ code: 400, message: "'globalIds' must list GUIDs." }),
  },
  'queryAttachments: attachmentsDefinitionExpression': {
    root: true,
    path: () => att('0/queryAttachments'),
    params: () => ({ objectIds: attachmentFx.oid, attachmentsDefinitionExpression: "name = 'a'" }),
    want: () => ({ code: 400, detail: "'attachmentsDefinitionExpression' is not supported" }),
  },
  'queryAttachments: returnCountOnly': {
    root: true,
    path: () => att('0/queryAttachments'),
    params: () => ({ objectIds: attachmentFx.oid, returnCountOnly: 'true' }),
    want: () => ({ code: 400, detail: 'supportsQueryAttachmentsCountOnly is false' }),
  },
  'queryAttachments: resultRecordCount 0': {
    root: true,
    path: () => att('0/queryAttachments'),
    params: () => ({ objectIds: attachmentFx.oid, resultRecordCount: '0' }),
    want: () => ({ code: 400, message: "'resultRecordCount' must be a whole number from 1 to 2000." }),
  },
  'addAttachment: no file': {
    root: true,
    path: () => att(`0/${attachmentFx.oid}/addAttachment`),
    want: () => ({ code: 400, message: "'attachment' is required." }),
  },
  'addAttachment: uploadId instead of a file': {
    root: true,
    path: () => att(`0/${attachmentFx.oid}/addAttachment`),
    params: () => ({ uploadId: 'abc' }),
    want: () => ({ code: 400, detail: 'supportsAttachmentsByUploadId is false' }),
  },
  'addAttachment: keywords over 1024 characters': {
    root: true,
    path: () => att(`0/${attachmentFx.oid}/addAttachment`),
    params: () => ({ keywords: long(1025) }),
    want: () => ({ code: 400, message: INVALID, detail: "'keywords' must be at most 1024 characters." }),
  },
  'addAttachment: a reader of the service → 403': {
    root: true,
    path: () => att(`0/${attachmentFx.oid}/addAttachment`),
    token: () => fx.member.token,
    want: () => ({ code: 403 }),
  },
  'updateAttachment: attachmentId missing': {
    root: true,
    path: () => att(`0/${attachmentFx.oid}/updateAttachment`),
    want: () => ({ code: 400, message: "'attachmentId' is required." }),
  },
  'updateAttachment: attachmentId not a number': {
    root: true,
    path: () => att(`0/${attachmentFx.oid}/updateAttachment`),
    params: () => ({ attachmentId: 'x' }),
    want: () => ({ code: 400, message: 'Invalid attachment id.' }),
  },
  'deleteAttachments: attachmentIds missing': {
    root: true,
    path: () => att(`0/${attachmentFx.oid}/deleteAttachments`),
    want: () => ({ code: 400, message: "'attachmentIds' is required." }),
  },
  'deleteAttachments: attachmentIds not numbers': {
    root: true,
    path: () => att(`0/${attachmentFx.oid}/deleteAttachments`),
    params: () => ({ attachmentIds: '1,x' }),
    want: () => ({ code: 400, message: 'Invalid attachmentIds.', detail: "'x' is not a valid attachmentIds." }),
  },
  'deleteAttachments: over 1000 ids': {
    root: true,
    path: () => att(`0/${attachmentFx.oid}/deleteAttachments`),
    params: () => ({ attachmentIds: Array.from({ length: 1001 }, (_, i) => i + 1).join(',') }),
    want: () => ({ code: 400, message: "'attachmentIds' lists more than 1000 ids." }),
  },
  'applyEdits: attachments without useGlobalIds': {
    root: true,
    path: () => att('0/applyEdits'),
    params: () => ({ attachments: '{"deletes":["{00000000-0000-0000-0000-000000000000}"]}' }),
    want: () => ({ code: 400, detail: 'useGlobalIds=true' }),
  },
  'applyEdits: attachments not JSON': {
    root: true,
    path: () => att('0/applyEdits'),
    params: () => ({ useGlobalIds: 'true', attachments: '{adds' }),
    want: () => ({ code: 400 }),
  },
  'applyEdits: attachment adds not an array': {
    root: true,
    path: () => att('0/applyEdits'),
    params: () => ({ useGlobalIds: 'true', attachments: '{"adds":{}}' }),
    want: () => ({ code: 400, detail: "'attachments.adds' must be an array." }),
  },
  'applyEdits: attachment data not base64': {
    root: true,
    path: () => att('0/applyEdits'),
    params: () => ({
      useGlobalIds: 'true',
      attachments: JSON.stringify({
        adds: [
          {
            globalId: '{00000000-0000-0000-0000-000000000001}',
            parentGlobalId: '{00000000-0000-0000-0000-000000000002}',
            name: 'a.txt',
            data: '!!!',
          },
        ],
      }),
    }),
    want: () => ({ code: 400, detail: "'data' is not base64." }),
  },
  'applyEdits: attachment globalId not a GUID': {
    root: true,
    path: () => att('0/applyEdits'),
    params: () => ({
      useGlobalIds: 'true',
      attachments: JSON.stringify({ adds: [{ globalId: 'x', parentGlobalId: 'y', name: 'a.txt', data: 'AAAA' }] }),
    }),
    want: () => ({ code: 400, detail: "'globalId' must be a GUID" }),
  },
  'applyEdits: attachments on a layer without them': {
    root: true,
    path: () => att(`${attachmentFx.plainLayer}/applyEdits`),
    params: () => ({ useGlobalIds: 'true', attachments: '{"deletes":[]}' }),
    want: () => ({ code: 400, message: 'Requested operation is not supported by this service.' }),
  },
  'applyEdits: deletes by global id not GUIDs': {
    root: true,
    path: () => att('0/applyEdits'),
    params: () => ({ useGlobalIds: 'true', deletes: '12' }),
    want: () => ({ code: 400, detail: 'which is not a global id' }),
  },
};

// ── organization webhooks (full administrators; the fixture allows no payload URL, so no webhook exists) ──
const hook = (sub = '') => ({
  kind: 'POST' as const,
  auth: 'required' as const,
  pathParams: { portalId: () => 'self', id: () => fx.missingId },
  token: () => fx.admin,
  ok: false,
  path: `portals/:portalId/webhooks/:id${sub}`,
  name: `portals/:portalId/webhooks/:id${sub}`,
});
export const WEBHOOK_ROUTES: Route[] = [
  {
    name: 'portals/:portalId/webhooks',
    kind: 'ANY',
    auth: 'required',
    path: 'portals/:portalId/webhooks',
    pathParams: { portalId: () => 'self' },
    token: () => fx.admin,
    fuzz: ['start', 'num'],
  },
  {
    name: 'portals/:portalId/webhooks/createWebhook',
    kind: 'POST',
    auth: 'required',
    path: 'portals/:portalId/webhooks/createWebhook',
    pathParams: { portalId: () => 'self' },
    token: () => fx.admin,
    // https on a port nothing listens on: refused after the parameters were read, so nothing is created.
    params: () => ({ name: 'hook', url: 'https://localhost:1/', events: '/items' }),
    fuzz: ['name', 'url', 'events', 'changes', 'secret', 'config'],
    ok: false,
  },
  {
    name: 'portals/:portalId/webhooks/settings',
    kind: 'ANY',
    auth: 'required',
    path: 'portals/:portalId/webhooks/settings',
    pathParams: { portalId: () => 'self' },
    token: () => fx.admin,
  },
  {
    name: 'portals/:portalId/webhooks/settings/update',
    kind: 'POST',
    auth: 'required',
    path: 'portals/:portalId/webhooks/settings/update',
    pathParams: { portalId: () => 'self' },
    token: () => fx.admin,
    params: () => ({ notificationAttempts: '3' }),
    fuzz: ['notificationAttempts', 'notificationTimeOutInSeconds', 'notificationElapsedTimeInSeconds'],
  },
  { ...hook(), kind: 'ANY', getPostOnly: true },
  { ...hook('/update'), fuzz: ['name', 'url', 'events', 'config'] },
  hook('/delete'),
  hook('/activate'),
  hook('/deactivate'),
  { ...hook('/notificationStatus'), kind: 'ANY', fuzz: ['start', 'num'] },
  { ...hook('/redeliver'), params: () => ({ deliveryId: fx.missingId }), fuzz: ['deliveryId'] },
];

const createHook = (params: Params) => ({ name: 'hook', url: 'https://localhost:1/', events: '/items', ...params });
export const WEBHOOK_CASES: Record<string, Case> = {
  'createWebhook: not an administrator → 403': {
    path: () => 'portals/self/webhooks/createWebhook',
    params: () => createHook({}),
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'createWebhook: another organization': {
    path: () => `portals/${fx.missingId}/webhooks/createWebhook`,
    token: admin,
    params: () => createHook({}),
    want: () => ({ code: 400, message: 'Portal does not exist or is inaccessible.' }),
  },
  'createWebhook: name missing': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ name: '' }),
    want: () => ({ code: 400, message: "'name' is required." }),
  },
  'createWebhook: events missing': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ events: '' }),
    want: () => ({ code: 400, message: "'events' is required." }),
  },
  'createWebhook: events not an event URI': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ events: '["/items","/etc/passwd"]' }),
    want: () => ({ code: 400, message: 'Invalid event URIs.', detail: "'/etc/passwd' is not an event URI." }),
  },
  'createWebhook: events broken JSON': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ events: '["/items"' }),
    want: () => ({ code: 400, message: 'Invalid JSON.' }),
  },
  'createWebhook: changes=someChanges': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ changes: 'someChanges' }),
    want: () => ({ code: 400, detail: "'changes' must be allChanges." }),
  },
  'createWebhook: config not an object': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ config: '[1]' }),
    want: () => ({ code: 400, message: "'config' must be a JSON object." }),
  },
  'createWebhook: deactivationPolicy of zero failures': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ config: '{"deactivationPolicy":{"numberOfFailures":0,"daysInPast":5}}' }),
    want: () => ({
      code: 400,
      message: "'config.deactivationPolicy' needs numberOfFailures and daysInPast, whole numbers from 1 to 1000.",
    }),
  },
  'createWebhook: a header that overrides the signature': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ config: '{"properties":{"x-esriHook-Signature":"forged"}}' }),
    want: () => ({ code: 400, message: "'config.properties' must be at most 20 extra headers, names and text values." }),
  },
  'createWebhook: a header value with a line break': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ config: '{"properties":{"X-A":"1\\r\\nX-B: 2"}}' }),
    want: () => ({ code: 400, message: "'config.properties' must be at most 20 extra headers, names and text values." }),
  },
  'createWebhook: url not a URL': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ url: 'not a url' }),
    want: () => ({ code: 400, message: 'Invalid payload URL.', detail: 'The payload URL is not a valid URL.' }),
  },
  'createWebhook: plain http': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ url: 'http://example.com/' }),
    want: () => ({ code: 400, message: 'Invalid payload URL.', detail: 'The payload URL must use https.' }),
  },
  'createWebhook: credentials in the URL': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ url: 'https://user:pw@example.com/' }),
    want: () => ({ code: 400, message: 'Invalid payload URL.', detail: 'The payload URL must not carry credentials.' }),
  },
  'createWebhook: cloud metadata address': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({ url: 'https://169.254.169.254/latest/meta-data' }),
    want: () => ({ code: 400, message: 'Invalid payload URL.', detail: 'loopback, link-local or private' }),
  },
  'createWebhook: nothing answers': {
    path: () => 'portals/self/webhooks/createWebhook',
    token: admin,
    params: () => createHook({}),
    want: () => ({ code: 400, message: 'Unable to reach the payload URL.' }),
  },
  'webhooks/:id: not hex': {
    method: 'GET',
    path: () => 'portals/self/webhooks/nothex',
    token: admin,
    want: () => ({ code: 400, message: 'Webhook does not exist.' }),
  },
  'webhooks/:id/delete: unknown id': {
    path: () => `portals/self/webhooks/${fx.missingId}/delete`,
    token: admin,
    want: () => ({ code: 400, message: 'Webhook does not exist.' }),
  },
  'webhooks list: num 101': {
    method: 'GET',
    path: () => 'portals/self/webhooks',
    token: admin,
    params: () => ({ num: '101' }),
    want: () => ({ code: 400, detail: "'num' must be at most 100." }),
  },
  'settings/update: notificationAttempts 6': {
    path: () => 'portals/self/webhooks/settings/update',
    token: admin,
    params: () => ({ notificationAttempts: '6' }),
    want: () => ({ code: 400, detail: "'notificationAttempts' must be 0 to 5." }),
  },
  'settings/update: notificationTimeOutInSeconds zero': {
    path: () => 'portals/self/webhooks/settings/update',
    token: admin,
    params: () => ({ notificationTimeOutInSeconds: '0' }),
    want: () => ({ code: 400, detail: "'notificationTimeOutInSeconds' must be 1 to 60." }),
  },
  'settings: not an administrator → 403': {
    method: 'GET',
    path: () => 'portals/self/webhooks/settings',
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
};
