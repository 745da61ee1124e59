import { HtmlReply } from '../../core/http/html-reply';
import { html, Html, Links, SafeHtml } from './html';

export interface PageContext {
  links: Links;
  /** The signed-in user's name, when the page was opened with a token. */
  username?: string;
  /** The public path of this page (without query), for the page's own JSON link. */
  path: string;
}

export interface Crumb {
  label: string;
  path: string;
}

export interface PageOptions {
  title: string;
  crumbs: Crumb[];
  body: Html;
  json?: boolean;
  styles?: string[];
  scripts?: string[];
  bodyClass?: string;
  /** The code of the error the page shows (session.js forgets a token the server called invalid). */
  errorCode?: number;
}

/**
 * The shell every directory page shares: one stylesheet, and session.js, which keeps the token of a sign-in for the
 * browser session; other scripts only where a page names them (the map preview, the sign-in form).
 */
export function page(ctx: PageContext, o: PageOptions): HtmlReply {
  const { links } = ctx;
  const crumbs = [{ label: 'Home', path: links.services() }, ...o.crumbs];
  const signIn = links.page('/sharing/rest/generateToken', { next: links.base + ctx.path });
  const user = ctx.username
    ? html`Signed in as <strong>${ctx.username}</strong> <button type="button" id="sign-out" class="link">Sign out</button>`
    : html`<a href="${signIn}" id="sign-in">Sign in</a>`;
  const doc: SafeHtml = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title}</title>
<link rel="stylesheet" href="${links.asset('directory.css')}">
${(o.styles ?? []).map((s) => html`<link rel="stylesheet" href="${links.asset(s)}" />`)}
</head>
<body${o.bodyClass ? html` class="${o.bodyClass}"` : ''} data-signed-in="${ctx.username ? 'true' : 'false'}"${o.errorCode ? html` data-error="${o.errorCode}"` : ''}>
<header class="top">
<a class="brand" href="${links.page(links.services())}">ArcGIS REST Services Directory</a>
<span class="user">${user}</span>
</header>
<nav class="crumbs" aria-label="Breadcrumbs">${crumbs.map(
    (c, i) =>
      html`${i ? html` <span aria-hidden="true">›</span> ` : ''}${i === crumbs.length - 1 ? html`<span>${c.label}</span>` : html`<a href="${links.page(c.path)}">${c.label}</a>`}`,
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
    ${e.code === 499 || e.code === 498 ? html`<p>This resource needs a valid token: open it with <code>?token=</code>, or sign in.</p>` : ''}
  </div>`;
}
