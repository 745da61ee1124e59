import { HtmlReply } from '../core/http/html-reply';
import { MembersService } from '../groups/members.service';
import { html, Html, SafeHtml } from './html';
import { facts, page, PageContext } from './layout';
import { Group, Item } from './text';

export type Member = Awaited<ReturnType<MembersService['userList']>>['users'][number];
export type GroupTab = 'overview' | 'content' | 'members' | 'settings';
export const GROUP_TABS: GroupTab[] = ['overview', 'content', 'members', 'settings'];

/** What the visitor may do in the group, as the group operations decide it (members.service.ts, groups.service.ts). */
export interface GroupRights {
  /** Owner, manager or an administrator of group updates: add and remove members, change settings, remove content. */
  manage: boolean;
  /** Owner or administrator: make managers and members, remove managers. */
  roles: boolean;
}

export interface GroupView {
  group: Group;
  tab: GroupTab;
  rights: GroupRights;
  items?: { total: number; start: number; num: number; nextStart: number; items: Item[] };
  members?: { total: number; start: number; num: number; nextStart: number; users: Member[] };
  /** Why the tab's list could not be drawn (the operation's envelope message). */
  error?: string;
}

const ROLE: Record<string, string> = { owner: 'Owner', admin: 'Manager', member: 'Member', none: 'Not a member' };

function when(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function groupPagePath(id: string, tab?: GroupTab, start?: number): string {
  const q = new URLSearchParams({ id });
  if (tab && tab !== 'overview') q.set('tab', tab);
  if (start && start > 1) q.set('start', String(start));
  return `/home/group.html?${q.toString()}`;
}

/** Tabs as links with aria-current: each tab is its own page, so every tab works without scripts and has its own URL. */
function tabs(ctx: PageContext, v: GroupView): SafeHtml {
  const shown = GROUP_TABS.filter((t) => t !== 'settings' || v.rights.manage);
  const label: Record<GroupTab, string> = { overview: 'Overview', content: 'Content', members: 'Members', settings: 'Settings' };
  return html`<nav class="tabs" aria-label="Group sections">
    <ul>
      ${shown.map(
        (t) =>
          html`<li>
            <a href="${ctx.links.to(groupPagePath(v.group.id, t))}" ${t === v.tab ? html` aria-current="page" class="current"` : ''}
              >${label[t]}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}

function pager(ctx: PageContext, v: GroupView, list: { total: number; start: number; num: number; nextStart: number }, noun: string): Html {
  const prev = list.start > 1 ? Math.max(1, list.start - list.num) : 0;
  return html`<p class="summary">
    <span id="summary">${list.total} ${noun}${list.total > list.num ? `, from ${list.start}` : ''}.</span>
    ${prev ? html`<a rel="prev" href="${ctx.links.to(groupPagePath(v.group.id, v.tab, prev))}">Previous page</a>` : ''}
    ${list.nextStart > 0 ? html`<a rel="next" href="${ctx.links.to(groupPagePath(v.group.id, v.tab, list.nextStart))}">Next page</a>` : ''}
  </p>`;
}

function overview(v: GroupView): SafeHtml {
  const g = v.group;
  return facts([
    ['Owner', g.owner],
    ['Access', g.access],
    ['Summary', g.snippet ?? ''],
    ['Description', g.description ?? ''],
    ['Tags', g.tags.join(', ')],
    ['Who can join', g.isInvitationOnly ? 'By invitation only' : g.autoJoin ? 'Anyone, at once' : 'Anyone, with a manager’s approval'],
    ['Who can share content', g.isViewOnly ? 'Owner and managers' : 'All members'],
    ['Your membership', ROLE[g.userMembership.memberType] ?? g.userMembership.memberType],
    ['Created', when(g.created)],
  ]);
}

/** The group's items; managers get a check box per item (named by its title) and "Remove from group". */
function content(ctx: PageContext, v: GroupView): Html {
  const list = v.items;
  if (!list) return html`<p class="error" role="alert">${v.error ?? ''}</p>`;
  if (!list.items.length) return html`<p class="none">No items are shared with this group.</p>`;
  const pick = v.rights.manage;
  return html`${pager(ctx, v, list, 'item(s)')}
    ${
      pick
        ? html`<div class="toolbar">
            <button type="button" id="remove-items" disabled>Remove from group</button>
            <span id="selection" class="status" role="status" aria-live="polite">No items selected.</span>
          </div>`
        : ''
    }
    <table class="items" id="group-items">
      <thead>
        <tr>
          ${pick ? html`<th scope="col"><input type="checkbox" id="select-all" aria-label="Select all items on this page" /></th>` : ''}
          <th scope="col">Title</th>
          <th scope="col">Type</th>
          <th scope="col">Owner</th>
          <th scope="col">Modified</th>
        </tr>
      </thead>
      <tbody>
        ${list.items.map(
          (i) =>
            html`<tr data-item-id="${i.id}" data-owner="${i.owner}" data-title="${i.title}">
              ${pick ? html`<td><input type="checkbox" class="pick" value="${i.id}" aria-label="${i.title}" /></td>` : ''}
              <td><a href="${ctx.links.page(`/sharing/rest/content/items/${i.id}`)}">${i.title}</a></td>
              <td>${i.type}</td>
              <td>${i.owner}</td>
              <td>${when(i.modified)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      pick
        ? html`<h2 id="results-heading" hidden>Results</h2>
            <ul id="results" class="results" aria-labelledby="results-heading"></ul>
            <dialog id="confirm-remove" aria-labelledby="confirm-title" aria-describedby="confirm-text">
              <h2 id="confirm-title">Remove from group</h2>
              <p id="confirm-text"></p>
              <p>
                <button type="button" id="confirm-yes">Remove</button>
                <button type="button" id="confirm-no" class="secondary">Cancel</button>
              </p>
            </dialog>`
        : ''
    }`;
}

/** Members with their role; actions are named by the member they act on, and shown only to those the group lets. */
function members(ctx: PageContext, v: GroupView): Html {
  const list = v.members;
  if (!list) return html`<p class="error" role="alert">${v.error ?? ''}</p>`;
  const { manage, roles } = v.rights;
  const owner = list.users.filter((m) => m.memberType === 'owner');
  const rest = list.users.filter((m) => m.memberType !== 'owner');
  const actions = (m: Member): Html => {
    if (m.memberType === 'owner' || !manage) return '';
    const who = m.fullName ? `${m.fullName} (${m.username})` : m.username;
    const out: Html[] = [];
    if (roles)
      out.push(
        m.memberType === 'member'
          ? html`<button type="button" class="member-action" data-action="admins" aria-label="Make manager: ${who}">Make manager</button>`
          : html`<button type="button" class="member-action" data-action="users" aria-label="Make member: ${who}">Make member</button>`,
      );
    if (roles || m.memberType === 'member')
      out.push(
        html`<button type="button" class="member-action danger" data-action="remove" aria-label="Remove from the group: ${who}">
          Remove
        </button>`,
      );
    return out;
  };
  return html`${
      manage
        ? html`<form id="add-members" class="inline-form">
            <h2>Add members</h2>
            <label for="add-users">User names</label>
            <input id="add-users" name="users" size="40" aria-describedby="add-users-help" autocomplete="off" />
            <small id="add-users-help">Separate several names with commas.</small>
            <label for="add-role">As</label>
            <select id="add-role" name="role">
              <option value="users">Member</option>
              ${roles ? html`<option value="admins">Manager</option>` : ''}
            </select>
            <button type="submit">Add</button>
          </form>`
        : ''
    }
    <p id="members-status" class="status" role="status" aria-live="polite"></p>
    ${pager(ctx, v, list, 'member(s)')}
    <table class="members" id="group-members">
      <caption>
        Owner, managers and members
      </caption>
      <thead>
        <tr>
          <th scope="col">User name</th>
          <th scope="col">Full name</th>
          <th scope="col">Role</th>
          <th scope="col">Joined</th>
          ${manage ? html`<th scope="col">Actions</th>` : ''}
        </tr>
      </thead>
      <tbody>
        ${[...owner, ...rest].map(
          (m) =>
            html`<tr data-username="${m.username}">
              <td>${m.username}</td>
              <td>${m.fullName ?? ''}</td>
              <td class="role">${ROLE[m.memberType] ?? m.memberType}</td>
              <td>${when(m.joined)}</td>
              ${manage ? html`<td>${actions(m)}</td>` : ''}
            </tr>`,
        )}
      </tbody>
    </table>`;
}

/** The group update operation's title, access, join and sharing settings, posted by group.js. */
function settings(v: GroupView): SafeHtml {
  const g = v.group;
  const opt = (value: string, label: string, current: string) =>
    html`<option value="${value}" ${value === current ? html` selected` : ''}>${label}</option>`;
  const join = g.isInvitationOnly ? 'invitation' : g.autoJoin ? 'auto' : 'request';
  return html`<form id="group-settings" class="query">
    <div class="grid">
      <label for="s-title">Title</label>
      <div><input id="s-title" name="title" size="50" value="${g.title}" required /></div>
      <label for="s-snippet">Summary</label>
      <div><input id="s-snippet" name="snippet" size="50" value="${g.snippet ?? ''}" /></div>
      <label for="s-access">Who can see the group</label>
      <div>
        <select id="s-access" name="access">
          ${opt('private', 'Only its members', g.access)} ${opt('org', 'The organization', g.access)}
          ${opt('public', 'Everyone (public)', g.access)}
        </select>
      </div>
      <label for="s-join">Who can join</label>
      <div>
        <select id="s-join" name="join">
          ${opt('invitation', 'Only those invited', join)} ${opt('request', 'Anyone who asks, once a manager approves', join)}
          ${opt('auto', 'Anyone, at once', join)}
        </select>
      </div>
      <label for="s-membership">Who can be a member</label>
      <div>
        <select id="s-membership" name="membershipAccess">
          ${opt('', 'Any user', g.membershipAccess ?? '')} ${opt('org', 'Only this organization’s users', g.membershipAccess ?? '')}
        </select>
      </div>
      <label for="s-sharing">Who can share content</label>
      <div>
        <select id="s-sharing" name="isViewOnly">
          ${opt('false', 'All members', String(g.isViewOnly))} ${opt('true', 'Only the owner and managers', String(g.isViewOnly))}
        </select>
      </div>
    </div>
    <p><button type="submit">Save settings</button></p>
    <p id="settings-status" class="status" role="status" aria-live="polite"></p>
  </form>`;
}

/**
 * The group page. Scripts (group.js) act through the same REST operations clients use, with the page session's CSRF
 * value; the data attributes give them the operation URLs, built here from ids only.
 */
export function groupHomePage(ctx: PageContext, v: GroupView): HtmlReply {
  const { links } = ctx;
  const body =
    v.tab === 'content' ? content(ctx, v) : v.tab === 'members' ? members(ctx, v) : v.tab === 'settings' ? settings(v) : overview(v);
  const acts = ctx.csrf && v.rights.manage && v.tab !== 'overview';
  return page(ctx, {
    title: `Group: ${v.group.title}`,
    section: 'Groups',
    crumbs: [{ label: v.group.title, path: groupPagePath(v.group.id) }],
    json: false,
    styles: ['home.css'],
    body: html`<div
      id="group"
      data-group-id="${v.group.id}"
      data-group-title="${v.group.title}"
      data-rest="${links.base}/sharing/rest"
      data-tab="${v.tab}"
    >
      ${tabs(ctx, v)}
      <section class="tab-panel" aria-labelledby="panel-title">
        <h2 id="panel-title">${v.tab === 'overview' ? 'Overview' : v.tab[0].toUpperCase() + v.tab.slice(1)}</h2>
        ${body}
      </section>
      ${
        v.rights.manage && !ctx.csrf && v.tab !== 'overview'
          ? html`<p class="none">Sign in on this site to change the group from this page.</p>`
          : ''
      }
    </div>`,
    scripts: acts ? ['home.js', 'group.js'] : [],
  });
}
