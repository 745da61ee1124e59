// The item page's sharing panel: each change is one shareItems or unshareItems for this item, called as a client
// would (the page session's cookie and its CSRF value in X-CSRF-Token); the page reloads to show the new sharing, or
// says why the change was refused.
/* global document, window */
'use strict';
(function () {
  var panel = document.getElementById('sharing');
  if (!panel) return;
  var d = panel.dataset;
  var status = document.getElementById('sharing-status');

  async function send(url, params, done) {
    params.set('items', d.itemId);
    status.textContent = 'Saving…';
    status.className = 'status';
    try {
      var body = await window.homePages.call(url, params);
      var r = body.results && body.results[0];
      if (!r || !r.success) throw new Error((r && r.error && r.error.message) || 'The change was refused.');
      status.textContent = done;
      window.location.reload();
    } catch (err) {
      status.textContent = err.message;
      status.className = 'status error';
    }
  }

  panel.addEventListener('click', function (e) {
    var button = e.target.closest('button.remove-group');
    if (button) send(d.unshare, new URLSearchParams({ groups: button.dataset.group }), 'Removed from the group.');
  });
  var level = document.getElementById('level-form');
  level.addEventListener('submit', function (e) {
    e.preventDefault();
    var v = level.elements.level.value;
    var params = new URLSearchParams({ everyone: String(v === 'public'), org: String(v === 'public' || v === 'org') });
    send(d.share, params, 'Sharing level changed.');
  });
  var add = document.getElementById('add-group-form');
  if (add)
    add.addEventListener('submit', function (e) {
      e.preventDefault();
      send(d.share, new URLSearchParams({ groups: add.elements.group.value }), 'Added to the group.');
    });
})();
