/**
 * The helpers of @esri/arcgis-rest-portal that no noun's compat spec calls on its own: who the caller is
 * (getSelf, determineUsername, determineOwner, isOrgAdmin), group membership as the sharing helpers manage it
 * (getUserMembership, ensureMembership), a group's content search, deleting a group and replacing an item's data
 * (addItemData). Each call goes through the library and the state is read back afterwards.
 */
import { ArcGISIdentityManager } from '@esri/arcgis-rest-request';
import {
  addItemData,
  createGroup,
  createItem,
  determineOwner,
  determineUsername,
  ensureMembership,
  getGroup,
  getItemData,
  getSelf,
  getUser,
  getUserMembership,
  isOrgAdmin,
  removeGroup,
  searchGroupContent,
  shareItemWithGroup,
} from '@esri/arcgis-rest-portal';
import { ADMIN } from '../support/app';
import { uniq } from '../support/client';
import { withApp } from '../support/harness';

describe('@esri/arcgis-rest-portal helpers around sharing', () => {
  const t = withApp({ users: { owner: 'org_publisher', viewer: 'org_user' } });
  const { owner, viewer } = t.users;
  let ownerAuth: ArcGISIdentityManager;
  let adminAuth: ArcGISIdentityManager;

  beforeAll(async () => {
    ownerAuth = await ArcGISIdentityManager.signIn({ username: owner.username, password: owner.password, portal: t.base });
    adminAuth = await ArcGISIdentityManager.signIn({ username: ADMIN.username, password: ADMIN.password, portal: t.base });
  });

  /** An identity that knows only its token: the library asks the portal who it is. */
  const tokenOnly = (token: string) => new ArcGISIdentityManager({ token, portal: t.base, tokenExpires: new Date(Date.now() + 3_600_000) });

  it('getSelf, determineUsername and determineOwner learn the caller from the portal', async () => {
    const self = await getSelf({ authentication: ownerAuth });
    expect(self).toMatchObject({ user: { username: owner.username }, id: expect.any(String) });
    expect(await determineUsername({ authentication: tokenOnly(owner.token) })).toBe(encodeURIComponent(owner.username));
    expect(await determineOwner({ authentication: tokenOnly(viewer.token) })).toBe(viewer.username);
    expect(await determineOwner({ owner: 'someone', authentication: ownerAuth })).toBe('someone');
  });

  it('isOrgAdmin is true for the administrator and false for a publisher', async () => {
    expect(await isOrgAdmin({ authentication: adminAuth })).toBe(true);
    expect(await isOrgAdmin({ authentication: tokenOnly(owner.token) })).toBe(false);
  });

  it('ensureMembership adds an item owner to an admin group, and getUserMembership reads it back', async () => {
    const { group } = await createGroup({ group: { title: uniq('admins'), access: 'org', tags: ['compat'] }, authentication: adminAuth });
    expect(await getUserMembership({ id: '', groupId: group.id, authentication: ownerAuth })).toBe('none');
    const currentUser = await getUser({ authentication: adminAuth });
    const ownerUser = await getUser({ username: owner.username, authentication: adminAuth });
    const { promise } = ensureMembership(currentUser, ownerUser, false, 'could not add', {
      id: 'x',
      groupId: group.id,
      authentication: adminAuth,
    });
    expect(await promise).toEqual({ notAdded: [] });
    expect(await getUserMembership({ id: '', groupId: group.id, authentication: ownerAuth })).toBe('member');
    expect(await getUserMembership({ id: '', groupId: group.id, authentication: adminAuth })).toBe('owner');
  });

  it('searchGroupContent finds what was shared with the group, and removeGroup deletes the group', async () => {
    const { group } = await createGroup({ group: { title: uniq('shelf'), access: 'org', tags: ['compat'] }, authentication: ownerAuth });
    const title = uniq('shelved');
    const item = await createItem({ item: { title, type: 'Web Map', tags: ['compat'] }, text: '{}', authentication: ownerAuth });
    await shareItemWithGroup({ id: item.id, groupId: group.id, authentication: ownerAuth });
    const found = await searchGroupContent({ groupId: group.id, q: `title:${title}`, authentication: ownerAuth });
    expect(found).toMatchObject({ total: 1, results: [{ id: item.id, title }] });
    expect(await removeGroup({ id: group.id, authentication: ownerAuth })).toMatchObject({ success: true, groupId: group.id });
    await expect(getGroup(group.id, { authentication: ownerAuth })).rejects.toThrow(/COM_0003|does not exist|inaccessible/i);
  });

  it('addItemData replaces the data of an item', async () => {
    const item = await createItem({
      item: { title: uniq('data'), type: 'Web Map', tags: ['compat'] },
      text: '{"version":1}',
      authentication: ownerAuth,
    });
    const r = await addItemData({ id: item.id, owner: owner.username, text: JSON.stringify({ version: 2 }), authentication: ownerAuth });
    expect(r).toMatchObject({ success: true, id: item.id });
    expect(await getItemData(item.id, { authentication: ownerAuth })).toEqual({ version: 2 });
  });
});
