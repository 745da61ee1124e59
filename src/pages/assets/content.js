// My content: the selection (kept in sessionStorage per owner, so it survives paging and filtering, up to the most
// one shareItems takes), and the Share / Unshare dialog, which sends one shareItems or unshareItems request as a client
// would (the page session's cookie and its CSRF value in X-CSRF-Token) and lists the result of every item. Items that
// failed stay selected, so they can be retried. Text goes in with textContent only.
/* global document, window, DOMParser */
'use strict';
(function () {
  var app = document.getElementById('content-app');
  if (!app) return;
  var d = app.dataset;
  var MAX = Number(d.max);
  var KEY = 'arcgis-selection:' + d.owner;
  var $ = function (id) {
    return document.getElementById(id);
  };
  var picks = function () {
    return Array.prototype.slice.call(app.querySelectorAll('input.pick'));
  };
  var selectPage = $('select-page');
  var count = $('selection-count');
  var buttons = [$('share-button'), $('unshare-button'), $('clear-selection')];
  var sel = load();

  function load() {
    try {
      return new Map(Object.entries(JSON.parse(sessionStorage.getItem(KEY) || '{}')));
    } catch {
      return new Map();
    }
  }
  function save() {
    sessionStorage.setItem(KEY, JSON.stringify(Object.fromEntries(sel)));
  }
  function plural(n) {
    return n + (n === 1 ? ' item' : ' items');
  }

  function refresh(note) {
    var onPage = 0;
    var boxes = picks();
    boxes.forEach(function (c) {
      c.checked = sel.has(c.value);
      if (c.checked) onPage++;
    });
    if (selectPage) {
      selectPage.checked = boxes.length > 0 && onPage === boxes.length;
      selectPage.indeterminate = onPage > 0 && onPage < boxes.length;
    }
    count.textContent = (sel.size ? plural(sel.size) + ' selected.' : 'No items selected.') + (note ? ' ' + note : '');
    buttons.forEach(function (b) {
      b.disabled = sel.size === 0;
    });
  }

  function pick(c, on) {
    if (on && !sel.has(c.value) && sel.size >= MAX) return false;
    if (on) sel.set(c.value, c.dataset.title);
    else sel.delete(c.value);
    return true;
  }

  // Delegated, so the rows put in by reloadRows need nothing of their own.
  app.addEventListener('change', function (e) {
    var c = e.target;
    if (!c.classList || !c.classList.contains('pick')) return;
    var ok = pick(c, c.checked);
    save();
    refresh(ok ? '' : 'At most ' + MAX + ' items can be shared at once.');
  });
  if (selectPage)
    selectPage.addEventListener('change', function () {
      var full = false;
      picks().forEach(function (c) {
        if (!pick(c, selectPage.checked)) full = true;
      });
      save();
      refresh(full ? 'At most ' + MAX + ' items can be shared at once.' : '');
    });
  $('clear-selection').addEventListener('click', function () {
    sel.clear();
    save();
    refresh('');
  });

  // --- the dialog ---
  var dialog = $('share-dialog');
  var form = $('share-form');
  var problem = $('share-problem');
  var mode = 'share';
  var opener = null;

  function open(m, button) {
    mode = m;
    opener = button;
    var n = plural(sel.size);
    $('share-title').textContent = m === 'share' ? 'Share ' + n : 'Unshare ' + n;
    $('share-about').textContent =
      m === 'share'
        ? 'Choose a sharing level, groups, or both, for the ' + n + ' selected.'
        : 'Choose the groups to remove the ' + n + ' selected from.';
    $('share-level').hidden = m !== 'share';
    $('share-groups-legend').textContent = m === 'share' ? 'Share to groups' : 'Unshare from groups';
    $('share-submit').textContent = m === 'share' ? 'Share' : 'Unshare';
    form.reset();
    problem.textContent = '';
    dialog.showModal();
  }
  function close() {
    dialog.close();
    if (opener) opener.focus();
  }
  $('share-button').addEventListener('click', function (e) {
    open('share', e.currentTarget);
  });
  $('unshare-button').addEventListener('click', function (e) {
    open('unshare', e.currentTarget);
  });
  $('share-cancel').addEventListener('click', close);

  function chosenGroups() {
    return Array.prototype.filter.call(form.querySelectorAll('input[name="group"]'), function (c) {
      return c.checked;
    });
  }

  form.addEventListener('submit', async function (e) {
    e.preventDefault();
    var groups = chosenGroups();
    var level = mode === 'share' ? form.elements.level.value : '';
    if (!groups.length && !level) {
      problem.textContent = mode === 'share' ? 'Choose a sharing level or at least one group.' : 'Choose at least one group.';
      return;
    }
    var ids = Array.from(sel.keys());
    var params = new URLSearchParams({ items: ids.join(','), groups: groups.map((g) => g.value).join(',') });
    if (level === 'org') params.set('org', 'true');
    if (level === 'everyone') params.set('everyone', 'true');
    var titles = new Map(
      groups.map(function (g) {
        return [g.value, g.dataset.title];
      }),
    );
    problem.textContent = 'Sending…';
    $('share-submit').disabled = true;
    try {
      var body = await window.homePages.call(mode === 'share' ? d.share : d.unshare, params);
      close();
      render(body.results || [], titles);
    } catch (err) {
      problem.textContent = err.envelope ? err.message : 'The request failed: ' + err.message;
    } finally {
      $('share-submit').disabled = false;
    }
  });

  function cell(tr, text, cls) {
    var td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
  }

  /** One row per item, built into a fragment and put in at once. */
  function render(results, titles) {
    var t0 = performance.now();
    var key = mode === 'share' ? 'notSharedWith' : 'notUnsharedFrom';
    var verb = mode === 'share' ? 'shared with' : 'unshared from';
    var rows = document.createDocumentFragment();
    var failed = 0;
    results.forEach(function (r) {
      var tr = document.createElement('tr');
      tr.dataset.itemId = r.itemId;
      tr.dataset.success = String(r.success);
      cell(tr, sel.get(r.itemId) || r.itemId);
      cell(tr, r.success ? 'Done' : 'Failed', r.success ? 'ok' : 'error');
      var not = (r[key] || []).map(function (g) {
        return titles.get(g) || g;
      });
      var details = [];
      if (not.length) details.push('Not ' + verb + ': ' + not.join(', ') + '.');
      if (r.error) details.push(r.error.message);
      cell(tr, details.join(' '));
      rows.appendChild(tr);
      if (r.success) sel.delete(r.itemId);
      else failed++;
    });
    $('results-rows').replaceChildren(rows);
    save();
    refresh('');
    var section = $('results');
    section.hidden = false;
    var n = results.length;
    $('results-summary').textContent =
      (mode === 'share' ? 'Share' : 'Unshare') +
      ': ' +
      (n - failed) +
      ' of ' +
      plural(n) +
      ' done' +
      (failed ? ', ' + failed + ' failed; the failed items stay selected.' : '.');
    section.dataset.renderMs = String(Math.round(performance.now() - t0));
    $('results-title').focus();
    reloadRows();
  }

  /** The list's rows as the server now draws them (new sharing levels), keeping the results where they are. */
  async function reloadRows() {
    var body = app.querySelector('table.items tbody');
    if (!body) return;
    try {
      var reply = await fetch(window.location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
      var doc = new DOMParser().parseFromString(await reply.text(), 'text/html');
      var fresh = doc.querySelector('table.items tbody');
      if (!fresh) return;
      body.replaceWith(document.importNode(fresh, true));
      app.dataset.rowsReloaded = String(Number(app.dataset.rowsReloaded || 0) + 1);
      refresh('');
    } catch {
      // The rows stay as they were drawn; the results above say what changed.
    }
  }

  refresh('');
})();
