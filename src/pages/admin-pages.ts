import { HtmlReply } from '../core/http/html-reply';
import { html } from './html';
import { page, PageContext } from './layout';

/**
 * The administrators' pages: the markup is drawn here, and the lists come from the REST operations (webhooks under
 * portals/self/webhooks, users from portals/self/users/search), fetched by the pages' scripts with the session's CSRF
 * value, so the page shows what the operation answers and its errors as the envelope's message.
 */
export function webhooksPage(ctx: PageContext): HtmlReply {
  const { links } = ctx;
  return page(ctx, {
    title: 'Webhooks',
    section: 'Webhooks',
    crumbs: [{ label: 'Webhooks', path: '/home/webhooks.html' }],
    json: false,
    styles: ['home.css'],
    body: html`<div id="webhooks" data-rest="${links.base}/sharing/rest/portals/self/webhooks">
      <noscript><p class="error">This page needs scripts to list and change webhooks.</p></noscript>
      <p id="hooks-status" class="status" role="status" aria-live="polite"></p>
      <table class="hooks" id="hook-table">
        <caption>
          The organization’s webhooks
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Payload URL</th>
            <th scope="col">Events</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody></tbody>
      </table>
      <h2>Create a webhook</h2>
      <form id="create-hook" class="query">
        <div class="grid">
          <label for="h-name">Name</label>
          <div><input id="h-name" name="name" size="40" required /></div>
          <label for="h-url">Payload URL</label>
          <div><input id="h-url" name="url" size="60" type="url" required /></div>
          <label for="h-events">Events</label>
          <div>
            <input id="h-events" name="events" size="60" value="allChanges" aria-describedby="h-events-help" />
            <small id="h-events-help">allChanges, or event URIs separated by commas, such as /items/share,/items/unshare</small>
          </div>
          <label for="h-secret">Secret</label>
          <div><input id="h-secret" name="secret" size="40" type="password" autocomplete="new-password" /></div>
        </div>
        <p><button type="submit">Create webhook</button></p>
        <p id="create-status" class="status" role="status" aria-live="polite"></p>
      </form>
      <dialog id="confirm-delete" aria-labelledby="confirm-title" aria-describedby="confirm-text">
        <h2 id="confirm-title">Delete webhook</h2>
        <p id="confirm-text"></p>
        <p>
          <button type="button" id="confirm-yes" class="danger">Delete</button>
          <button type="button" id="confirm-no" class="secondary">Cancel</button>
        </p>
      </dialog>
      <section id="log" hidden aria-labelledby="log-title">
        <h2 id="log-title" tabindex="-1">Delivery log</h2>
        <p><button type="button" id="log-refresh">Refresh the log</button></p>
        <table class="deliveries" id="log-table">
          <thead>
            <tr>
              <th scope="col">Invoked</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Response</th>
              <th scope="col">Payload</th>
            </tr>
          </thead>
          <tbody></tbody>
        </table>
      </section>
    </div>`,
    scripts: ['home.js', 'webhooks.js'],
  });
}

export function usersPage(ctx: PageContext): HtmlReply {
  const { links } = ctx;
  return page(ctx, {
    title: 'Users',
    section: 'Users',
    crumbs: [{ label: 'Users', path: '/home/users.html' }],
    json: false,
    styles: ['home.css'],
    body: html`<div id="users" data-rest="${links.base}/sharing/rest/portals/self/users/search">
      <noscript><p class="error">This page needs scripts to list users.</p></noscript>
      <form id="user-search" class="inline-form" role="search">
        <label for="u-q">Search users</label>
        <input id="u-q" name="q" size="30" aria-describedby="u-q-help" />
        <small id="u-q-help">As portals/self/users/search takes it, e.g. a name, or role:org_admin</small>
        <button type="submit">Search</button>
      </form>
      <p id="users-status" class="status" role="status" aria-live="polite"></p>
      <table class="users" id="user-table">
        <caption>
          Users of the organization
        </caption>
        <thead>
          <tr>
            <th scope="col">User name</th>
            <th scope="col">Full name</th>
            <th scope="col">Role</th>
            <th scope="col">Created</th>
            <th scope="col">Content</th>
          </tr>
        </thead>
        <tbody></tbody>
      </table>
      <p>
        <button type="button" id="users-prev" disabled>Previous page</button>
        <button type="button" id="users-next" disabled>Next page</button>
      </p>
    </div>`,
    scripts: ['home.js', 'users.js'],
  });
}
