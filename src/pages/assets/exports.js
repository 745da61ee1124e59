// Export jobs (the exports page, an item's export history): while a job is queued or running, the page reads itself
// again every POLL_MS (the same server-rendered rows, so there is one way to draw a job) and swaps in the rows that
// changed, announcing jobs that end. Cancel buttons call cancelJob as a client would, with the page session's CSRF
// value in X-CSRF-Token.
/* global document, window, DOMParser */
'use strict';
(function () {
  var box = document.querySelector('.export-jobs');
  var status = document.getElementById('exports-status');
  if (!box) return;
  var POLL_MS = 1500;
  var timer = null;

  function say(text) {
    if (status) status.textContent = text;
  }
  function running() {
    return box.querySelector('tr[data-status="queued"], tr[data-status="processing"]') !== null;
  }
  function schedule(ms) {
    window.clearTimeout(timer);
    if (running()) timer = window.setTimeout(poll, ms);
  }

  async function poll() {
    try {
      var reply = await fetch(window.location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
      var doc = new DOMParser().parseFromString(await reply.text(), 'text/html');
      doc.querySelectorAll('.export-jobs tr[data-job]').forEach(function (fresh) {
        var old = box.querySelector('tr[data-job="' + fresh.dataset.job + '"]');
        if (!old || old.outerHTML === fresh.outerHTML) return;
        var hadFocus = old.contains(document.activeElement);
        var wasRunning = old.dataset.status === 'queued' || old.dataset.status === 'processing';
        var row = document.importNode(fresh, true);
        old.replaceWith(row);
        if (wasRunning && row.dataset.status !== 'processing' && row.dataset.status !== 'queued') {
          say('Export of ' + row.cells[0].textContent.trim() + ': ' + row.dataset.status + '.');
        }
        if (hadFocus) (row.querySelector('a, button') || status || box).focus();
      });
    } catch (e) {
      say('Could not refresh the exports: ' + e.message);
    }
    schedule(POLL_MS);
  }

  box.addEventListener('click', async function (e) {
    var button = e.target.closest('button.cancel-job');
    if (!button) return;
    button.disabled = true;
    try {
      await window.homePages.call(button.dataset.url, { jobId: button.dataset.jobId, jobType: 'export' });
      say('Export cancelled.');
    } catch (err) {
      say('Could not cancel: ' + err.message);
      button.disabled = false;
    }
    poll();
  });

  schedule(POLL_MS);
})();
