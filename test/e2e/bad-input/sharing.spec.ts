/** Bad input on the sharing routes. */
import { Case, caseTable, fx, ghost, ids, notHex, o, routeTables, useFixture } from './support';
import { SHARING_ROUTES } from './routes';

describe('bad input: sharing', () => {
  useFixture();
  routeTables(SHARING_ROUTES);

  describe('missing and malformed parameters', () => {
    const CASES: Record<string, Case> = {
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
    caseTable(CASES);
  });
});
