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

export const ROUTES: Route[] = [...IDENTITY_ROUTES, ...CONTENT_ROUTES, ...GROUP_ROUTES, ...SHARING_ROUTES, ...FOLDER_ROUTES];

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

export const FOLDER_CASES: Record<string, Case> = {
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
