import { uniq } from '../../support/client';
import { admin, Case, fx, GARBAGE_TOKEN, ghost, ids, INVALID, long, notHex, noToken, o, other, Route } from './support';

// Every route in src/**/*.controller.ts and its missing and malformed parameter cases, by module.
const owner = () => fx.owner.username;
const item = () => fx.itemId;
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
    name: 'content/users/:owner/:folder/addItem',
    kind: 'POST',
    auth: 'required',
    path: 'content/users/:owner/:folder/addItem',
    pathParams: { owner, folder: () => 'somefolder' },
    params: () => ({ title: uniq('item'), type: 'Web Map' }),
    fuzz: ['title'],
    ok: false,
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
  // ── users (issue 27): the tags of a user's items ──
  {
    name: 'community/users/:owner/tags',
    kind: 'ANY',
    auth: 'required',
    path: 'community/users/:owner/tags',
    pathParams: { owner },
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
  {
    name: 'community/groups/:id/updateUserMemberships',
    kind: 'POST',
    auth: 'required',
    path: 'community/groups/:id/updateUserMemberships',
    pathParams: { id: group },
    params: () => ({ users: fx.member.username, newMemberType: 'member' }),
    fuzz: ['users', 'newMemberType'],
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

export const ROUTES: Route[] = [...IDENTITY_ROUTES, ...CONTENT_ROUTES, ...GROUP_ROUTES, ...SHARING_ROUTES, ...NOTIFICATION_ROUTES];

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
    want: () => ({ code: 400, detail: 'Each tag must be at most 256 characters.' }),
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
  'addItem: unknown owner → COM_0019': {
    path: () => `content/users/${ghost}/addItem`,
    params: () => ({ title: 'x', type: 'Web Map' }),
    want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
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
  'addItem: into a folder': {
    path: () => `content/users/${o()}/somefolder/addItem`,
    params: () => ({ title: 'x', type: 'Web Map' }),
    want: () => ({ code: 400, message: 'Folder does not exist.', detail: 'somefolder' }),
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
  'content/users/:owner: unknown owner → COM_0019': {
    method: 'GET',
    path: () => `content/users/${ghost}`,
    want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
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
  'delete: unknown owner → COM_0019': {
    path: () => `content/users/${ghost}/items/${fx.itemId}/delete`,
    want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
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
  'status: unknown owner → COM_0019': {
    method: 'GET',
    path: () => `content/users/${ghost}/items/${fx.itemId}/status`,
    want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
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

  // ── users (issue 27) ──
  'community/users/:u/tags: another user → 403': {
    method: 'GET',
    path: () => `community/users/${fx.member.username}/tags`,
    want: () => ({ code: 403, messageCode: 'GWM_0003' }),
  },
  'community/users/:u/tags: unknown user → COM_0019': {
    method: 'GET',
    path: () => `community/users/${ghost}/tags`,
    want: () => ({ code: 400, messageCode: 'COM_0019' }),
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
  'addUsers: 1001 users': {
    path: () => `community/groups/${fx.groupId}/addUsers`,
    params: () => ({ users: Array.from({ length: 1001 }, (_, i) => `u${i}`).join(',') }),
    want: () => ({ code: 400, detail: 'At most 1000 users per request.' }),
  },
  'addUsers: 1001 admins': {
    path: () => `community/groups/${fx.groupId}/addUsers`,
    params: () => ({ admins: Array.from({ length: 1001 }, (_, i) => `u${i}`).join(',') }),
    want: () => ({ code: 400, detail: 'At most 1000 admins per request.' }),
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
  'removeUsers: 1001 users': {
    path: () => `community/groups/${fx.groupId}/removeUsers`,
    params: () => ({ users: Array.from({ length: 1001 }, (_, i) => `u${i}`).join(',') }),
    want: () => ({ code: 400, detail: 'At most 1000 users per request.' }),
  },
  'updateUserMemberships: users missing': {
    path: () => `community/groups/${fx.groupId}/updateUserMemberships`,
    params: () => ({ newMemberType: 'admin' }),
    want: () => ({ code: 400, detail: "'users' is required." }),
  },
  'updateUserMemberships: newMemberType missing': {
    path: () => `community/groups/${fx.groupId}/updateUserMemberships`,
    params: () => ({ users: fx.member.username }),
    want: () => ({ code: 400, detail: "'newMemberType' must be member or admin." }),
  },
  'updateUserMemberships: newMemberType=owner': {
    path: () => `community/groups/${fx.groupId}/updateUserMemberships`,
    params: () => ({ users: fx.member.username, newMemberType: 'owner' }),
    want: () => ({ code: 400, detail: "'newMemberType' must be member or admin." }),
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
