import { HtmlReply } from '../core/http/html-reply';
import { html, Html, Links, SafeHtml } from './html';
import { PORTAL_HTML_ROUTES } from './html-route';

export interface PageContext {
  links: Links;
  /** The user the page is drawn for: the session's, or that of a token in the page's URL. */
  username?: string;
  /** The page session's CSRF value, when the user came from the session (not from a token in the URL). */
  csrf?: string;
  /** Whether the user may view the organisation's users (the Users page). */
  admin?: boolean;
  /** Whether the user is a full administrator (the Webhooks page). */
  fullAdmin?: boolean;
  /** The public path of this page (without query), for the page's own JSON link. */
  path: string;
}

export interface Crumb {
  label: string;
  path: string;
  /** A link other than the path's page (`f=html`): the home pages. */
  href?: string;
}

export interface PageOptions {
  title: string;
  crumbs: Crumb[];
  body: Html;
  json?: boolean;
  styles?: string[];
  scripts?: string[];
  bodyClass?: string;
  /** The code of the error the page shows, for scripts and tests. */
  errorCode?: number;
  /** The site section the page belongs to, marked in the navigation. */
  section?: string;
}

/** Who the page is for, and the way to sign in or out: a form, so signing out works without scripts. */
function userBox(ctx: PageContext): SafeHtml {
  const { links } = ctx;
  const signIn = html`<a href="${links.page('/sharing/rest/generateToken', { next: links.base + ctx.path })}" id="sign-in">Sign in</a>`;
  if (!ctx.username) return signIn;
  if (!ctx.csrf) return html`Opened as <strong>${ctx.username}</strong> with the token in its URL, which no link keeps · ${signIn}`;
  return html`Signed in as <strong>${ctx.username}</strong>
    <form class="sign-out" method="post" action="${links.base}/${PORTAL_HTML_ROUTES}/signout">
      <input type="hidden" name="f" value="html" /><input type="hidden" name="csrf" value="${ctx.csrf}" />
      <button type="submit" id="sign-out" class="link">Sign out</button>
    </form>`;
}

/** The site's sections: the same links on every page, the current one marked for screen readers. */
export function siteNav(ctx: PageContext): { label: string; href: string; admin?: boolean; fullAdmin?: boolean }[] {
  const { links } = ctx;
  const all = [
    { label: 'Home', href: links.home() },
    { label: 'My content', href: links.homePage('content') },
    { label: 'Groups', href: links.homePage('groups') },
    { label: 'Services directory', href: links.page(links.services()) },
    { label: 'Exports', href: links.homePage('exports') },
    { label: 'Users', href: links.homePage('users'), admin: true },
    { label: 'Webhooks', href: links.homePage('webhooks'), fullAdmin: true },
  ];
  return all.filter((l) => (!l.admin || ctx.admin) && (!l.fullAdmin || ctx.fullAdmin));
}

function navBar(ctx: PageContext, current?: string): SafeHtml {
  return html`<nav class="site" aria-label="Site">
    <ul>
      ${siteNav(ctx).map((l) => html`<li><a href="${l.href}" ${l.label === current ? html` aria-current="page"` : ''}>${l.label}</a></li>`)}
    </ul>
  </nav>`;
}

/**
 * The shell every directory page shares: one stylesheet, and session.js, which takes a token out of the address bar;
 * other scripts only where a page names them (the map preview, the export form). The session's CSRF value is on the
 * body for those scripts.
 */
export function page(ctx: PageContext, o: PageOptions): HtmlReply {
  const { links } = ctx;
  const crumbs: Crumb[] = [{ label: 'Home', path: '/', href: links.home() }, ...o.crumbs];
  const doc: SafeHtml = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title}</title>
<link rel="stylesheet" href="${links.asset('directory.css')}">
${(o.styles ?? []).map((s) => html`<link rel="stylesheet" href="${links.asset(s)}" />`)}
</head>
<body${o.bodyClass ? html` class="${o.bodyClass}"` : ''} data-signed-in="${ctx.username ? 'true' : 'false'}"${ctx.csrf ? html` data-csrf="${ctx.csrf}"` : ''}${o.errorCode ? html` data-error="${o.errorCode}"` : ''}>
<header class="top">
<a class="brand" href="${links.home()}">ArcGIS Sharing</a>
<span class="user">${userBox(ctx)}</span>
</header>
${navBar(ctx, o.section)}
<nav class="crumbs" aria-label="Breadcrumbs">${crumbs.map(
    (c, i) =>
      html`${i ? html` <span aria-hidden="true">›</span> ` : ''}${i === crumbs.length - 1 ? html`<span>${c.label}</span>` : html`<a href="${c.href ?? links.page(c.path)}">${c.label}</a>`}`,
  )}</nav>
<main>
<h1>${o.title}</h1>
${o.body}
</main>
${o.json === false ? '' : html`<footer><a href="${links.to(ctx.path, { f: 'pjson' })}">JSON</a></footer>`}
${['session.js', ...(o.scripts ?? [])].map((s) => html`<script src="${links.asset(s)}"></script>`)}
</body>
</html>
`;
  return new HtmlReply(doc.value);
}

/** A definition list of label and value rows, skipping values that are undefined. */
export function facts(rows: [string, Html][]): SafeHtml {
  return html`<dl class="facts">
    ${rows
      .filter(([, v]) => v !== undefined)
      .map(
        ([k, v]) =>
          html`<dt>${k}:</dt>
            <dd>${v === '' || v === null ? html`<span class="none">none</span>` : v}</dd>`,
      )}
  </dl>`;
}

/** An error as the directory shows it: the envelope's code, message and details (its messageCode for scripts). */
export function errorBox(e: { code: number; message: string; details: string[]; messageCode?: string }): SafeHtml {
  return html`<div class="error-box" role="alert" ${e.messageCode ? html` data-message-code="${e.messageCode}"` : ''}>
    <p><strong>Error ${e.code}:</strong> ${e.message}</p>
    ${
      e.details.length
        ? html`<ul>
            ${e.details.map((d) => html`<li>${d}</li>`)}
          </ul>`
        : ''
    }
    ${e.code === 499 || e.code === 498 ? html`<p>This resource needs a valid token: sign in.</p>` : ''}
  </div>`;
}
