import { HtmlReply } from '../core/http/html-reply';
import { ExportRecord } from '../export/export-history.repository';
import { FORMAT_CATALOGUE } from '../export/formats';
import { html, SafeHtml } from './html';
import { page, PageContext } from './layout';
import { bytes, when } from './text';

const RUNNING = new Set(['queued', 'processing']);

function formatName(key: string): string {
  return Object.hasOwn(FORMAT_CATALOGUE, key) ? FORMAT_CATALOGUE[key as keyof typeof FORMAT_CATALOGUE].name : key;
}

/** The runner writes "processing: 42% …" while a job runs. */
function percent(message: string): number | null {
  const m = /(\d{1,3})%/.exec(message);
  return m ? Math.min(100, Number(m[1])) : null;
}

function progress(r: ExportRecord): SafeHtml | string {
  if (r.status === 'queued') return 'Waiting';
  if (r.status !== 'processing') return '';
  const p = percent(r.statusMessage);
  const label = `Progress of the export of ${r.sourceTitle ?? r.sourceItemId ?? 'an item'}`;
  return p === null
    ? html`<progress aria-label="${label}"></progress>`
    : html`<progress max="100" value="${p}" aria-label="${label}">${p}%</progress> ${p}%`;
}

function row(ctx: PageContext, r: ExportRecord): SafeHtml {
  const { links } = ctx;
  const source = r.sourceTitle ?? r.sourceItemId ?? 'deleted item';
  const done = r.status === 'completed' && r.resultItemId;
  return html`<tr data-job="${r.jobId}" data-status="${r.status}">
    <td>
      ${r.sourceTitle && r.sourceItemId ? html`<a href="${links.page(`/sharing/rest/content/items/${r.sourceItemId}`)}">${source}</a>` : source}
    </td>
    <td>${formatName(r.format)}</td>
    <td class="job-status" title="${r.statusMessage}">
      ${r.status}${r.status === 'failed' ? html`: <span class="error">${r.statusMessage}</span>` : ''}
    </td>
    <td>${progress(r)}</td>
    <td>${r.size === null ? '' : bytes(r.size)}</td>
    <td>${r.started ? when(r.started) : ''}</td>
    <td>${r.finished ? when(r.finished) : ''}</td>
    <td>
      ${done ? html`<a class="download" href="${links.to(`/sharing/rest/content/items/${r.resultItemId}/data`)}">Download ${r.resultTitle}</a>` : ''}
      ${done ? html` · <a href="${links.page(`/sharing/rest/content/items/${r.resultItemId}`)}">Result item</a>` : ''}
      ${
        RUNNING.has(r.status) && r.resultItemId && ctx.csrf
          ? html`<button
              type="button"
              class="cancel-job"
              data-url="${links.base}/sharing/rest/content/users/${encodeURIComponent(r.owner)}/items/${r.resultItemId}/cancelJob"
              data-job-id="${r.jobId}"
            >
              Cancel export of ${source}
            </button>`
          : ''
      }
    </td>
  </tr>`;
}

/** Export jobs as a table (the exports page, an item's export history); exports.js keeps running rows up to date. */
export function exportTable(ctx: PageContext, records: ExportRecord[]): SafeHtml {
  if (!records.length) return html`<p class="none">No exports.</p>`;
  return html`<table class="exports" data-running="${records.some((r) => RUNNING.has(r.status))}">
    <thead>
      <tr>
        <th scope="col">Source item</th>
        <th scope="col">Format</th>
        <th scope="col">Status</th>
        <th scope="col">Progress</th>
        <th scope="col">Size</th>
        <th scope="col">Started</th>
        <th scope="col">Finished</th>
        <th scope="col">Result</th>
      </tr>
    </thead>
    <tbody>
      ${records.map((r) => row(ctx, r))}
    </tbody>
  </table>`;
}

export function exportsPage(
  ctx: PageContext,
  list: { username: string; total: number; start: number; num: number; rows: ExportRecord[] },
): HtmlReply {
  const { links } = ctx;
  const params = { user: list.username === ctx.username ? undefined : list.username, num: String(list.num) };
  const next = list.start + list.num <= list.total ? list.start + list.num : 0;
  const prev = list.start > 1 ? Math.max(1, list.start - list.num) : 0;
  return page(ctx, {
    title: list.username === ctx.username ? 'My exports' : `Exports of ${list.username}`,
    crumbs: [{ label: 'Exports', path: ctx.path, href: links.homePage('exports') }],
    json: false,
    section: 'Exports',
    scripts: ['home.js', 'exports.js'],
    body: html`<p id="exports-status" class="status" role="status" tabindex="-1"></p>
      <div id="exports" class="export-jobs">${exportTable(ctx, list.rows)}</div>
      <nav class="pager" aria-label="Pages">
        <span>${list.total} export(s)</span>
        ${prev ? html`<a rel="prev" href="${links.homePage('exports', { ...params, start: String(prev) })}">Newer</a>` : ''}
        ${next ? html`<a rel="next" href="${links.homePage('exports', { ...params, start: String(next) })}">Older</a>` : ''}
      </nav>`,
  });
}
