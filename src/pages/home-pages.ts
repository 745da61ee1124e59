import { HtmlReply } from '../core/http/html-reply';
import { html, SafeHtml } from './html';
import { page, PageContext, siteNav } from './layout';
import { MemberGroup } from './share-targets';

/** What each section of the site is for, as the landing page says it. */
const PURPOSE: Record<string, string> = {
  'My content': 'Your items: search, filter, and share or unshare many at once.',
  Groups: 'The groups you belong to, their content and members.',
  'Services directory': 'The hosted feature services you may open, their layers, queries and map previews.',
  Exports: 'Your export jobs: progress, downloads, and cancelling.',
  Users: "The organization's users and their roles.",
  Webhooks: "The organization's webhooks and their deliveries.",
};

function groupList(ctx: PageContext, groups: MemberGroup[]): SafeHtml {
  if (!groups.length) return html`<p class="none">You belong to no group.</p>`;
  return html`<ul class="groups">
    ${groups.map(
      (g) =>
        html`<li>
          <a href="${ctx.links.homePage('group', { id: g.id })}">${g.title}</a> <span class="kind">(${g.access}, ${g.memberType})</span>
        </li>`,
    )}
  </ul>`;
}

/**
 * The landing page a browser gets at `/`, the context path and `sharing/rest`: who is signed in (or a way to sign in)
 * and the site's sections. Anonymous visitors see the sections they can use without signing in, and why to sign in.
 */
export function landingPage(ctx: PageContext, groups: MemberGroup[]): HtmlReply {
  const { links } = ctx;
  const sections = siteNav(ctx).filter((l) => l.label !== 'Home');
  const open = ctx.username ? sections : sections.filter((l) => l.label === 'Services directory');
  const signIn = links.page('/sharing/rest/generateToken', { next: links.home() });
  return page(ctx, {
    title: 'ArcGIS Sharing',
    crumbs: [],
    json: false,
    section: 'Home',
    body: html`${
        ctx.username
          ? html`<p class="lead">Signed in as <strong>${ctx.username}</strong>.</p>`
          : html`<p class="lead">
              <a class="button" id="landing-sign-in" href="${signIn}">Sign in</a> to see your content, groups and exports.
            </p>`
      }
      <ul class="cards">
        ${open.map(
          (l) =>
            html`<li>
              <a href="${l.href}">${l.label}</a>
              <p>${PURPOSE[l.label] ?? ''}</p>
            </li>`,
        )}
      </ul>
      ${
        ctx.username
          ? html`<h2 id="your-groups">Your groups</h2>
              ${groupList(ctx, groups)}`
          : ''
      }`,
  });
}

export function groupsPage(ctx: PageContext, groups: MemberGroup[]): HtmlReply {
  return page(ctx, {
    title: 'Groups',
    crumbs: [{ label: 'Groups', path: ctx.path, href: ctx.links.homePage('groups') }],
    json: false,
    section: 'Groups',
    body: groupList(ctx, groups),
  });
}
