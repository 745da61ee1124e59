/** Bad input on the group routes. */
import {} from '../../support/client';
import { Case, caseTable, fx, INVALID, long, notHex, other, routeTables, useFixture } from './support';
import { GROUP_ROUTES } from './routes';

describe('bad input: groups', () => {
  useFixture();
  routeTables(GROUP_ROUTES);

  describe('missing and malformed parameters', () => {
    const CASES: Record<string, Case> = {
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
    caseTable(CASES);
  });
});
