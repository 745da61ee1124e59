import { html, SafeHtml } from './html';
import { MemberGroup } from './share-targets';

/**
 * The Share / Unshare dialog of My content (a modal <dialog>: the page behind it is inert, so focus stays inside).
 * content.js opens it for one action, hides the sharing level for Unshare, and sends one shareItems or unshareItems.
 * Groups the user may not share into are left out.
 */
export function shareDialog(groups: MemberGroup[]): SafeHtml {
  const usable = groups.filter((g) => g.canShare);
  return html`<dialog id="share-dialog" aria-labelledby="share-title" aria-describedby="share-about">
    <form id="share-form" method="dialog">
      <h2 id="share-title">Share</h2>
      <p id="share-about"></p>
      <fieldset id="share-level">
        <legend>Sharing level</legend>
        <label><input type="radio" name="level" value="" checked /> Keep each item's level</label>
        <label><input type="radio" name="level" value="org" /> Organization</label>
        <label><input type="radio" name="level" value="everyone" /> Everyone (public)</label>
      </fieldset>
      <fieldset>
        <legend id="share-groups-legend">Groups</legend>
        ${
          usable.length
            ? html`<ul class="checks">
                ${usable.map(
                  (g) =>
                    html`<li>
                      <label><input type="checkbox" name="group" value="${g.id}" data-title="${g.title}" /> ${g.title}</label>
                    </li>`,
                )}
              </ul>`
            : html`<p class="none">You belong to no group you may share to.</p>`
        }
      </fieldset>
      <p id="share-problem" class="status error" role="alert"></p>
      <p class="actions">
        <button type="submit" id="share-submit">Share</button>
        <button type="button" id="share-cancel">Cancel</button>
      </p>
    </form>
  </dialog>`;
}
