import { HtmlReply } from '../core/http/html-reply';
import { html, Html, Links, SafeHtml } from './html';
import { bytes, Group, Item, when } from './text';
import { Crumb, facts, page, PageContext } from './layout';
import { exportHistory, ItemExtras, sharingPanel } from './sharing-panel';

type ItemList = { total: number; start: number; num: number; nextStart: number; items: Item[] };

/** Pages under the portal start from the visitor's own content when signed in. */
function mine(ctx: PageContext): Crumb[] {
  return ctx.username ? [{ label: 'My content', path: '/home/content.html', href: ctx.links.homePage('content') }] : [];
}

/** The directory path of a hosted service's item URL (…/arcgis/rest/services/<name>/FeatureServer), if it is one. */
function servicePath(links: Links, url: string | null): string | null {
  const m = url ? /\/arcgis\/rest\/services\/([A-Za-z0-9_]+)\/FeatureServer$/.exec(url) : null;
  return m ? links.service(m[1]) : null;
}

function itemTable(links: Links, items: Item[]): SafeHtml {
  if (!items.length) return html`<p class="none">No items.</p>`;
  return html`<table class="items">
    <thead>
      <tr>
        <th>Title</th>
        <th>Type</th>
        <th>Owner</th>
        <th>Access</th>
        <th>Modified</th>
        <th>Size</th>
      </tr>
    </thead>
    <tbody>
      ${items.map(
        (i) =>
          html`<tr>
            <td><a href="${links.page(`/sharing/rest/content/items/${i.id}`)}">${i.title}</a></td>
            <td>${i.type}</td>
            <td>${i.owner}</td>
            <td>${i.access}</td>
            <td>${when(i.modified)}</td>
            <td>${bytes(i.size)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function pager(ctx: PageContext, list: ItemList): Html {
  const { links } = ctx;
  const parts: Html[] = [html`<p class="summary">${list.total} item(s)${list.total > list.num ? `, from ${list.start}` : ''}.</p>`];
  if (list.nextStart > 0)
    parts.push(
      html`<p><a rel="next" href="${links.page(ctx.path, { start: String(list.nextStart), num: String(list.num) })}">Next page</a></p>`,
    );
  return parts;
}

export interface ExportChoices {
  /** Format names as `exportFormat` takes them. */
  formats: string[];
  layers: { id: number; name: string; kind: string }[];
}

/**
 * The export form of a hosted service's item. export.js submits it as the `export` operation would be called by a
 * client (authenticated by the page session and its CSRF value), follows the job through `status` and offers the
 * result's data when it completes.
 */
function exportForm(ctx: PageContext, item: Item, choices: ExportChoices): SafeHtml {
  const { links } = ctx;
  const user = encodeURIComponent(ctx.username ?? '');
  return html`<h2>Export data</h2>
    <form
      id="export-form"
      class="query"
      method="post"
      data-export="${links.base}/sharing/rest/content/users/${user}/export"
      data-status="${links.base}/sharing/rest/content/users/${user}/items/"
      data-items="${links.base}/sharing/rest/content/items/"
      data-item-id="${item.id}"
    >
      <div class="grid">
        <label for="x-title">Title</label>
        <div><input id="x-title" name="title" size="40" placeholder="${item.title} (export)" /></div>
        <label for="x-format">Format</label>
        <div>
          <select id="x-format" name="exportFormat">
            ${choices.formats.map((f) => html`<option${f === 'CSV' ? html` selected` : ''}>${f}</option>`)}
          </select>
        </div>
        <span class="label">Layers</span>
        <div>
          ${choices.layers.map(
            (l) => html`<label><input type="checkbox" name="layer" value="${l.id}" checked /> ${l.name} (${l.id}, ${l.kind})</label> `,
          )}
        </div>
        <label for="x-where">Where</label>
        <div><input id="x-where" name="where" size="40" placeholder="1=1" /> <small>applied to each layer</small></div>
        <span class="label">Include geometry</span>
        <div>
          <label><input type="checkbox" name="includeGeometry" checked /> Yes</label>
        </div>
        <label for="x-xcol">X column name</label>
        <div><input id="x-xcol" name="xColumnName" size="12" /> <small>CSV only</small></div>
        <label for="x-ycol">Y column name</label>
        <div><input id="x-ycol" name="yColumnName" size="12" /> <small>CSV only</small></div>
        <label for="x-sr">Target spatial reference</label>
        <div><input id="x-sr" name="targetSR" size="10" placeholder="wkid" /></div>
      </div>
      <p><button type="submit">Export</button></p>
      <p id="export-status" class="status" aria-live="polite"></p>
      <p id="export-result"></p>
    </form>`;
}

/** An item: what it is, whose, how big, who may see it, and the groups it is shared with that the visitor may see. */
export function itemPage(ctx: PageContext, item: Item, groups: Group[], exportChoices?: ExportChoices, extras: ItemExtras = {}): HtmlReply {
  const { links } = ctx;
  const service = servicePath(links, item.url);
  const file = item.size >= 0 && item.type !== 'Feature Service';
  return page(ctx, {
    title: item.title,
    crumbs: [...mine(ctx), { label: item.title, path: ctx.path }],
    body: html`${facts([
      ['Type', item.type],
      ['Owner', item.owner],
      ['Size', bytes(item.size)],
      ['Access', item.access],
      ['Created', when(item.created)],
      ['Modified', when(item.modified)],
      ['Tags', item.tags.join(', ')],
      ['Summary', item.snippet ?? ''],
      ['Description', item.description ?? ''],
      ['Item ID', item.id],
      ['URL', service ? html`<a href="${links.page(service)}">${item.url}</a>` : (item.url ?? '')],
      ['Data', file ? html`<a href="${links.to(`/sharing/rest/content/items/${item.id}/data`)}">Download</a>` : undefined],
    ])}
    ${
      extras.targets
        ? sharingPanel(ctx, item, groups, extras.targets)
        : html`<h2>Shared with groups</h2>
            ${
              groups.length
                ? html`<ul class="groups">
                    ${groups.map((g) => html`<li><a href="${links.page(`/sharing/rest/community/groups/${g.id}`)}">${g.title}</a> <span class="kind">(${g.access})</span></li>`)}
                  </ul>`
                : html`<p class="none">None that you can see.</p>`
            }`
    }
    ${exportChoices ? exportForm(ctx, item, exportChoices) : ''} ${extras.exports ? exportHistory(ctx, extras.exports) : ''}`,
    scripts: [
      ...(exportChoices || extras.targets || extras.exports?.length ? ['home.js'] : []),
      ...(exportChoices ? ['export.js'] : []),
      ...(extras.targets ? ['item-sharing.js'] : []),
      ...(extras.exports?.length ? ['exports.js'] : []),
    ],
  });
}

export function groupPage(ctx: PageContext, group: Group, items: ItemList): HtmlReply {
  return page(ctx, {
    title: `Group: ${group.title}`,
    crumbs: [...mine(ctx), { label: group.title, path: ctx.path }],
    body: html`${facts([
        ['Owner', group.owner],
        ['Access', group.access],
        ['Summary', group.snippet ?? ''],
        ['Description', group.description ?? ''],
        ['Tags', group.tags.join(', ')],
        ['Your membership', group.userMembership.memberType],
      ])}
      <h2>Content</h2>
      ${pager(ctx, items)} ${itemTable(ctx.links, items.items)}`,
  });
}

export function userContentPage(ctx: PageContext, content: ItemList & { username: string }): HtmlReply {
  return page(ctx, {
    title: `Content of ${content.username}`,
    crumbs: [{ label: `Content of ${content.username}`, path: ctx.path }],
    body: html`${pager(ctx, content)} ${itemTable(ctx.links, content.items)}`,
  });
}

export interface SignInState {
  /** Where the sign-in leads, already checked (next-url.ts); the home page when there is none. */
  next: string;
  username?: string;
  /** Why the last attempt failed. */
  error?: { message: string; details: string[] };
}

/**
 * The sign-in form. It posts to generateToken with f=html, where the server signs in, sets the page session's cookie
 * and redirects to `next`: no token ever reaches the page, a URL or a script, and it works without scripts.
 */
export function signInPage(ctx: PageContext, state: SignInState): HtmlReply {
  const { links } = ctx;
  return page(ctx, {
    title: 'Sign in',
    crumbs: [{ label: 'Sign in', path: ctx.path }],
    json: false,
    body: html`<form id="sign-in-form" class="sign-in" method="post" action="${links.base}/sharing/rest/generateToken">
      <input type="hidden" name="f" value="html" />
      <input type="hidden" name="next" value="${state.next}" />
      <div class="grid">
        <label for="username">User name</label
        ><input id="username" name="username" autocomplete="username" value="${state.username ?? ''}" required />
        <label for="password">Password</label
        ><input id="password" name="password" type="password" autocomplete="current-password" required />
        <label for="expiration">Keep me signed in for</label
        ><select id="expiration" name="expiration">
          <option value="60">1 hour</option>
          <option value="480">8 hours</option>
          <option value="1440">1 day</option>
        </select>
      </div>
      <p><button type="submit">Sign in</button></p>
      ${
        state.error
          ? html`<p id="sign-in-status" class="status error" role="alert">
              Could not sign in: ${state.error.message} ${state.error.details.join(' ')}
            </p>`
          : ''
      }
      <p class="none">The session lasts until you sign out, close the browser, or the time above runs out.</p>
    </form>`,
  });
}
