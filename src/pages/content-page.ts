import { OwnerItemsDto } from '../content/content.dto';
import { HtmlReply } from '../core/http/html-reply';
import { html, Html, SafeHtml } from './html';
import { page, PageContext } from './layout';
import { bytes, Item, when } from './text';
import { shareDialog } from './share-dialog';
import { MemberGroup } from './share-targets';

export interface OwnerItems {
  username: string;
  total: number;
  start: number;
  num: number;
  nextStart: number;
  items: Item[];
  types: string[];
}

const ACCESS: [string, string][] = [
  ['', 'Any'],
  ['private', 'Owner only'],
  ['shared', 'Shared with groups'],
  ['org', 'Organization'],
  ['public', 'Everyone (public)'],
];

const SORTS: [string, string][] = [
  ['modified:desc', 'Newest change first'],
  ['modified:asc', 'Oldest change first'],
  ['title:asc', 'Title A–Z'],
  ['title:desc', 'Title Z–A'],
  ['type:asc', 'Type'],
  ['size:desc', 'Largest first'],
  ['created:desc', 'Newest first'],
];

function options(pairs: [string, string][], selected: string | undefined): SafeHtml[] {
  return pairs.map(([v, label]) => html`<option value="${v}" ${v === (selected ?? '') ? html` selected` : ''}>${label}</option>`);
}

/** The filters as they stand, for the pager's and the sort's links. */
function filterParams(owner: string, self: string, p: OwnerItemsDto): Record<string, string | undefined> {
  return {
    user: owner === self ? undefined : owner,
    q: p.q || undefined,
    type: p.type || undefined,
    access: p.access || undefined,
    group: p.group || undefined,
    sortField: p.sortField,
    sortOrder: p.sortOrder,
    num: String(p.num),
  };
}

function filters(ctx: PageContext, list: OwnerItems, p: OwnerItemsDto, groups: MemberGroup[]): SafeHtml {
  const sort = p.sortField ? `${p.sortField}:${p.sortOrder ?? 'asc'}` : 'modified:desc';
  return html`<form id="filters" class="filters" method="get" action="${ctx.links.homePage('content')}">
    ${
      ctx.admin
        ? html`<label
            >Owner
            <input name="user" value="${list.username === ctx.username ? '' : list.username}" placeholder="${ctx.username}" size="14"
          /></label>`
        : ''
    }
    <label>Search <input type="search" name="q" value="${p.q ?? ''}" size="28" placeholder="title, tags:parks, type:CSV…" /></label>
    <label
      >Type
      <select name="type">
        ${options([['', 'Any'], ...list.types.map((t): [string, string] => [t, t])], p.type)}
      </select></label
    >
    <label
      >Sharing
      <select name="access">
        ${options(ACCESS, p.access)}
      </select></label
    >
    <label
      >Group
      <select name="group">
        ${options([['', 'Any'], ...groups.map((g): [string, string] => [g.id, g.title])], p.group)}
      </select></label
    >
    <label
      >Sort
      <select name="sort">
        ${options(SORTS, sort)}
      </select></label
    >
    <label
      >Rows
      <select name="num">
        ${options(
          [
            ['25', '25'],
            ['50', '50'],
            ['100', '100'],
          ],
          String(p.num),
        )}
      </select></label
    >
    <button type="submit">Apply</button>
  </form>`;
}

/** `selectable`: check boxes, for a page session's scripts to act on. */
function rows(ctx: PageContext, items: Item[], selectable: boolean): SafeHtml {
  if (!items.length) return html`<p class="none">No items match.</p>`;
  return html`<table class="items selectable">
    <caption class="sr-only">
      Items; check an item to select it for sharing
    </caption>
    <thead>
      <tr>
        ${selectable ? html`<th scope="col"><input type="checkbox" id="select-page" aria-label="Select every item on this page" /></th>` : ''}
        <th scope="col">Title</th>
        <th scope="col">Type</th>
        <th scope="col">Sharing</th>
        <th scope="col">Modified</th>
        <th scope="col">Size</th>
      </tr>
    </thead>
    <tbody>
      ${items.map(
        (i) =>
          html`<tr data-id="${i.id}">
            ${selectable ? html`<td><input type="checkbox" class="pick" value="${i.id}" data-title="${i.title}" aria-label="Select ${i.title}" /></td>` : ''}
            <td><a href="${ctx.links.page(`/sharing/rest/content/items/${i.id}`)}">${i.title}</a></td>
            <td>${i.type}</td>
            <td>${i.access}</td>
            <td>${when(i.modified)}</td>
            <td>${bytes(i.size)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function pager(ctx: PageContext, list: OwnerItems, p: OwnerItemsDto): Html {
  const params = filterParams(list.username, ctx.username ?? '', p);
  const last = Math.min(list.start + list.items.length - 1, list.total);
  const prev = list.start > 1 ? Math.max(1, list.start - list.num) : 0;
  return html`<nav class="pager" aria-label="Pages">
    <span>${list.total ? `Items ${list.start}–${last} of ${list.total}` : '0 items'}</span>
    ${prev ? html`<a rel="prev" href="${ctx.links.homePage('content', { ...params, start: String(prev) })}">Previous page</a>` : ''}
    ${list.nextStart > 0 ? html`<a rel="next" href="${ctx.links.homePage('content', { ...params, start: String(list.nextStart) })}">Next page</a>` : ''}
  </nav>`;
}

/**
 * My content: the owner's items with filters, a pager, check boxes whose selection content.js keeps across pages
 * (up to SHARE_MAX_ITEMS, the most one shareItems takes), and the Share / Unshare dialog. Everything it does goes
 * through shareItems and unshareItems, as a client would call them.
 */
export function contentPage(ctx: PageContext, list: OwnerItems, p: OwnerItemsDto, groups: MemberGroup[], max: number): HtmlReply {
  const { links } = ctx;
  const user = encodeURIComponent(list.username);
  const mine = list.username === ctx.username;
  const title = mine ? 'My content' : `Content of ${list.username}`;
  return page(ctx, {
    title,
    crumbs: [{ label: title, path: ctx.path, href: links.homePage('content') }],
    json: false,
    section: 'My content',
    scripts: ctx.csrf ? ['home.js', 'content.js'] : [],
    body: html`<div
      id="content-app"
      data-owner="${list.username}"
      data-max="${max}"
      data-share="${links.base}/sharing/rest/content/users/${user}/shareItems"
      data-unshare="${links.base}/sharing/rest/content/users/${user}/unshareItems"
    >
      ${filters(ctx, list, p, groups)}
      ${
        ctx.csrf
          ? html`<div class="toolbar" role="group" aria-label="Selected items">
              <span id="selection-count" aria-live="polite">No items selected.</span>
              <button type="button" id="share-button" disabled>Share…</button>
              <button type="button" id="unshare-button" disabled>Unshare…</button>
              <button type="button" id="clear-selection" class="link" disabled>Clear selection</button>
            </div>`
          : html`<p class="none">Sign in on this site to share and unshare from this page.</p>`
      }
      ${pager(ctx, list, p)} ${rows(ctx, list.items, !!ctx.csrf)}
      <section id="results" aria-labelledby="results-title" hidden>
        <h2 id="results-title" tabindex="-1">Results</h2>
        <p id="results-summary" role="status"></p>
        <table class="results-table">
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Result</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody id="results-rows"></tbody>
        </table>
      </section>
      ${ctx.csrf ? shareDialog(groups) : ''}
    </div>`,
  });
}
