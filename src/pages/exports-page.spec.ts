import { ExportRecord } from '../export/export-history.repository';
import { exportTable } from './exports-page';
import { Links } from './html';

const running = (owner: string, jobId: string): ExportRecord => ({
  jobId,
  owner,
  status: 'processing',
  statusMessage: 'processing: 40%',
  format: 'csv',
  sourceItemId: 'a'.repeat(32),
  sourceTitle: 'Parcels',
  resultItemId: 'b'.repeat(32),
  resultTitle: 'Parcels (CSV export)',
  size: null,
  created: 0,
  started: 0,
  finished: null,
});

describe('exportTable', () => {
  it("cancels each job under its owner's content, whoever views the table", () => {
    const ctx = { links: new Links('/portal'), username: 'admin', csrf: 'x', path: '/home/exports.html' };
    const table = exportTable(ctx, [running('alice', '1'.repeat(32)), running('b ob', '2'.repeat(32))]).toString();
    expect(table).toContain(`data-url="/portal/sharing/rest/content/users/alice/items/${'b'.repeat(32)}/cancelJob"`);
    expect(table).toContain(`data-url="/portal/sharing/rest/content/users/b%20ob/items/${'b'.repeat(32)}/cancelJob"`);
    expect(table).not.toContain('users/admin/');
  });

  it('offers no cancel without the page session', () => {
    const table = exportTable({ links: new Links(''), username: 'alice', path: '/home/exports.html' }, [
      running('alice', '1'.repeat(32)),
    ]).toString();
    expect(table).not.toContain('cancel-job');
  });
});
