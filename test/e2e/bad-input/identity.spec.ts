/** Bad input on the identity routes: tokens, users, roles. */
import { uniq } from '../../support/client';
import { admin, Case, caseTable, fx, GARBAGE_TOKEN, ghost, INVALID, long, noToken, o, other, routeTables, useFixture } from './support';
import { IDENTITY_ROUTES } from './routes';

describe('bad input: identity', () => {
  useFixture();
  routeTables(IDENTITY_ROUTES);

  describe('missing and malformed parameters', () => {
    const CASES: Record<string, Case> = {
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
    caseTable(CASES);
  });
});
