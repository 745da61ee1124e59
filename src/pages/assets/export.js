// The export form of a hosted service's item: calls `export` as a client would (POST, through home.js), authenticated
// by the page session's cookie and its CSRF value, then follows the job with `status` until it completes or
// fails, and offers the result's data (a plain link: the cookie authenticates its download). Text goes in with
// textContent only; links are built from the ids the server returned.
/* global document, window */
'use strict';
(function () {
  var form = document.getElementById('export-form');
  var status = document.getElementById('export-status');
  var result = document.getElementById('export-result');
  var d = form.dataset;
  var POLL_MS = 1000;
  var GIVE_UP_MS = 30 * 60 * 1000;

  function say(text, isError) {
    status.textContent = text;
    status.className = isError ? 'status error' : 'status';
  }

  function link(href, text) {
    var a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    return a;
  }

  form.addEventListener('submit', async function (e) {
    e.preventDefault();
    result.replaceChildren();
    var el = form.elements;
    var where = el.where.value.trim();
    var layers = Array.prototype.filter
      .call(form.querySelectorAll('input[name="layer"]'), function (c) {
        return c.checked;
      })
      .map(function (c) {
        var layer = { id: Number(c.value), includeGeometry: el.includeGeometry.checked };
        if (where) layer.where = where;
        if (el.xColumnName.value.trim()) layer.xColumnName = el.xColumnName.value.trim();
        if (el.yColumnName.value.trim()) layer.yColumnName = el.yColumnName.value.trim();
        return layer;
      });
    var exportParameters = { layers: layers };
    if (el.targetSR.value.trim()) exportParameters.targetSR = { wkid: Number(el.targetSR.value.trim()) };
    var params = new URLSearchParams({
      itemId: d.itemId,
      exportFormat: el.exportFormat.value,
      exportParameters: JSON.stringify(exportParameters),
    });
    if (el.title.value.trim()) params.set('title', el.title.value.trim());
    say('Starting the export…');
    try {
      var job = await window.homePages.call(d.export, params);
      var statusUrl = d.status + encodeURIComponent(job.exportItemId) + '/status';
      var started = Date.now();
      for (;;) {
        var s = await window.homePages.call(statusUrl, new URLSearchParams({ jobId: job.jobId, jobType: 'export' }));
        if (s.status === 'completed') break;
        if (s.status === 'failed') throw new Error(s.statusMessage || 'The export failed.');
        say('Exporting: ' + (s.statusMessage || s.status));
        if (Date.now() - started > GIVE_UP_MS) throw new Error('Still running; see the item later.');
        await new Promise(function (r) {
          window.setTimeout(r, POLL_MS);
        });
      }
      say('Export completed.');
      var item = d.items + encodeURIComponent(job.exportItemId);
      var download = link(item + '/data', 'Download');
      download.id = 'export-download';
      result.append(download, ' · ', link(item + '?f=html', 'Result item'));
    } catch (err) {
      say('Export failed: ' + err.message, true);
    }
  });
})();
