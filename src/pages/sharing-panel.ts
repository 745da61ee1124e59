import { ExportRecord } from '../export/export-history.repository';
import { html, SafeHtml } from './html';
import { PageContext } from './layout';
import { exportTable } from './exports-page';
import { Group, Item } from './text';
import { MemberGroup } from './share-targets';

/** What the item page adds for a signed-in user: the sharing panel (owner, administrator) and the export history. */
export interface ItemExtras {
  /** The groups the user may add the item to; undefined when the user may not change its sharing. */
  targets?: MemberGroup[];
  exports?: ExportRecord[];
}

const LEVELS: [string, string][] = [
  ['private', 'Owner only'],
  ['org', 'Organization'],
  ['public', 'Everyone (public)'],
];

/**
 * The item's sharing: its level, its groups each with a remove button, and add-to-group. item-sharing.js sends each
 * change as one shareItems or unshareItems for this item, as a client would, and reloads the page when it is done.
 */
export function sharingPanel(ctx: PageContext, item: Item, groups: Group[], targets: MemberGroup[]): SafeHtml {
  const { links } = ctx;
  const user = encodeURIComponent(item.owner);
  const inGroups = new Set(groups.map((g) => g.id));
  const addable = targets.filter((g) => g.canShare && !inGroups.has(g.id));
  const level = item.access === 'shared' ? 'private' : item.access;
  return html`<section
    id="sharing"
    aria-labelledby="sharing-title"
    data-item-id="${item.id}"
    data-share="${links.base}/sharing/rest/content/users/${user}/shareItems"
    data-unshare="${links.base}/sharing/rest/content/users/${user}/unshareItems"
  >
    <h2 id="sharing-title">Sharing</h2>
    <form id="level-form" class="inline">
      <fieldset>
        <legend>Sharing level of ${item.title}</legend>
        ${LEVELS.map(
          ([v, label]) =>
            html`<label><input type="radio" name="level" value="${v}" ${v === level ? html` checked` : ''} /> ${label}</label> `,
        )}
        <button type="submit">Change level</button>
      </fieldset>
    </form>
    <h3>Groups</h3>
    ${
      groups.length
        ? html`<ul class="groups">
            ${groups.map(
              (g) =>
                html`<li>
                  <a href="${links.homePage('group', { id: g.id })}">${g.title}</a>
                  <button type="button" class="remove-group" data-group="${g.id}">Remove from ${g.title}</button>
                </li>`,
            )}
          </ul>`
        : html`<p class="none">Not shared with any group you can see.</p>`
    }
    ${
      addable.length
        ? html`<form id="add-group-form" class="inline">
            <label for="add-group">Add to group</label>
            <select id="add-group" name="group">
              ${addable.map((g) => html`<option value="${g.id}">${g.title}</option>`)}
            </select>
            <button type="submit">Add to group</button>
          </form>`
        : ''
    }
    <p id="sharing-status" class="status" role="status"></p>
  </section>`;
}

export function exportHistory(ctx: PageContext, records: ExportRecord[]): SafeHtml {
  return html`<h2>Exports of this item</h2>
    <p id="exports-status" class="status" role="status" tabindex="-1"></p>
    <div class="export-jobs">${exportTable(ctx, records)}</div>`;
}
