// The group page's actions, each through the group or sharing operation a client would call (home.js's `call`):
// Content removes the selected items with unshareItems (one request per owner, the operation being per owner) and
// lists each item's result, keeping failures selected; Members adds, removes and changes roles; Settings saves the
// group with `update`. Text goes in with textContent only.
/* global document, window */
'use strict';
(function () {
  var api = window.homePages;
  var root = document.getElementById('group');
  var rest = root.dataset.rest;
  var groupId = root.dataset.groupId;
  var groupUrl = rest + '/community/groups/' + encodeURIComponent(groupId);
  var FLASH = 'group-page-flash';

  function content() {
    var table = document.getElementById('group-items');
    var button = document.getElementById('remove-items');
    if (!table || !button) return;
    var all = document.getElementById('select-all');
    var selection = document.getElementById('selection');
    var results = document.getElementById('results');
    var heading = document.getElementById('results-heading');
    var dialog = document.getElementById('confirm-remove');

    function boxes() {
      return Array.prototype.slice.call(table.querySelectorAll('input.pick'));
    }
    function picked() {
      return boxes().filter(function (b) {
        return b.checked;
      });
    }
    function update() {
      var n = picked().length;
      var total = boxes().length;
      boxes().forEach(function (b) {
        b.closest('tr').classList.toggle('selected', b.checked);
      });
      button.disabled = n === 0;
      all.checked = total > 0 && n === total;
      all.indeterminate = n > 0 && n < total;
      selection.textContent = n === 0 ? 'No items selected.' : n + ' of ' + total + ' item(s) selected.';
    }
    table.addEventListener('change', function (e) {
      if (e.target === all) {
        boxes().forEach(function (b) {
          b.checked = all.checked;
        });
      }
      update();
    });

    button.addEventListener('click', async function () {
      var chosen = picked();
      var rows = chosen.map(function (b) {
        return b.closest('tr');
      });
      document.getElementById('confirm-text').textContent =
        'Remove ' + rows.length + ' item(s) from the group "' + root.dataset.groupTitle + '"? Their owners keep them.';
      if (!(await api.confirm(dialog, document.getElementById('confirm-yes'), document.getElementById('confirm-no')))) return;
      button.disabled = true;
      selection.textContent = 'Removing ' + rows.length + ' item(s)…';
      var byOwner = {};
      rows.forEach(function (r) {
        (byOwner[r.dataset.owner] = byOwner[r.dataset.owner] || []).push(r);
      });
      results.replaceChildren();
      heading.hidden = false;
      var removed = 0;
      var failed = 0;
      for (var owner of Object.keys(byOwner)) {
        var group = byOwner[owner];
        var outcome = {};
        try {
          var reply = await api.call(rest + '/content/users/' + encodeURIComponent(owner) + '/unshareItems', {
            items: group
              .map(function (r) {
                return r.dataset.itemId;
              })
              .join(','),
            groups: groupId,
          });
          reply.results.forEach(function (r) {
            outcome[r.itemId] = r;
          });
        } catch (err) {
          group.forEach(function (r) {
            outcome[r.dataset.itemId] = { success: false, error: { message: err.message } };
          });
        }
        group.forEach(function (row) {
          var r = outcome[row.dataset.itemId] || { success: false, error: { message: 'No result for this item.' } };
          var ok = r.success && !(r.notUnsharedFrom || []).length;
          var li = document.createElement('li');
          li.className = ok ? 'ok' : 'failed';
          li.dataset.itemId = row.dataset.itemId;
          li.textContent = ok
            ? row.dataset.title + ': removed from the group.'
            : row.dataset.title +
              ': not removed. ' +
              (r.error ? r.error.message : (r.notUnsharedFrom || []).length ? 'You may not remove it from this group.' : '');
          results.append(li);
          if (ok) {
            removed++;
            row.remove();
          } else failed++;
        });
      }
      if (removed) {
        document.getElementById('summary').textContent = removed + ' item(s) removed; reload the page for the current list.';
      }
      update();
      selection.textContent =
        removed + ' item(s) removed' + (failed ? ', ' + failed + ' not removed and still selected' : '') + '. ' + selection.textContent;
    });
    update();
  }

  function members() {
    var status = document.getElementById('members-status');
    if (!status) return;
    var flash = window.sessionStorage.getItem(FLASH);
    if (flash) {
      window.sessionStorage.removeItem(FLASH);
      api.say(status, flash);
    }
    var form = document.getElementById('add-members');
    if (form) {
      form.addEventListener('submit', async function (e) {
        e.preventDefault();
        var names = form.elements.users.value
          .split(',')
          .map(function (s) {
            return s.trim();
          })
          .filter(Boolean);
        if (!names.length) return api.say(status, 'Enter one or more user names.', true);
        var params = {};
        params[form.elements.role.value] = names.join(',');
        try {
          var reply = await api.call(groupUrl + '/addUsers', params);
          var notAdded = reply.notAdded || [];
          var added = names.filter(function (n) {
            return notAdded.indexOf(n) < 0;
          });
          var text =
            (added.length ? 'Added ' + added.join(', ') + '.' : '') + (notAdded.length ? ' Not added: ' + notAdded.join(', ') + '.' : '');
          if (!added.length) return api.say(status, text.trim(), true);
          window.sessionStorage.setItem(FLASH, text.trim());
          window.location.reload();
        } catch (err) {
          api.say(status, 'Could not add: ' + err.message, true);
        }
      });
    }
    var table = document.getElementById('group-members');
    table.addEventListener('click', async function (e) {
      var b = e.target.closest('button.member-action');
      if (!b) return;
      var row = b.closest('tr');
      var user = row.dataset.username;
      var action = b.dataset.action;
      b.disabled = true;
      try {
        if (action === 'remove') {
          var r = await api.call(groupUrl + '/removeUsers', { users: user });
          if ((r.notRemoved || []).length) throw new Error(user + ' could not be removed.');
          var next = row.nextElementSibling || row.previousElementSibling;
          row.remove();
          api.say(status, 'Removed ' + user + ' from the group.');
          var focus = next && next.querySelector('button');
          if (focus) focus.focus();
          return;
        }
        var params = {};
        params[action] = user;
        var reply = await api.call(groupUrl + '/updateUsers', params);
        var result = (reply.results || [])[0];
        if (result && result.success === false) throw new Error((result.error && result.error.message) || user + ' was not changed.');
        var manager = action === 'admins';
        row.querySelector('td.role').textContent = manager ? 'Manager' : 'Member';
        b.dataset.action = manager ? 'users' : 'admins';
        b.textContent = manager ? 'Make member' : 'Make manager';
        b.setAttribute('aria-label', b.textContent + ': ' + b.getAttribute('aria-label').replace(/^[^:]*: /, ''));
        api.say(status, user + ' is now a ' + (manager ? 'manager' : 'member') + ' of the group.');
      } catch (err) {
        api.say(status, 'Could not change ' + user + ': ' + err.message, true);
      } finally {
        b.disabled = false;
      }
    });
  }

  function settings() {
    var form = document.getElementById('group-settings');
    if (!form) return;
    var status = document.getElementById('settings-status');
    form.addEventListener('submit', async function (e) {
      e.preventDefault();
      var el = form.elements;
      var join = el.join.value;
      try {
        await api.call(groupUrl + '/update', {
          title: el.title.value.trim(),
          snippet: el.snippet.value,
          access: el.access.value,
          isInvitationOnly: String(join === 'invitation'),
          autoJoin: String(join === 'auto'),
          membershipAccess: el.membershipAccess.value,
          isViewOnly: el.isViewOnly.value,
        });
        api.say(status, 'Settings saved.');
      } catch (err) {
        api.say(status, 'Could not save: ' + err.message, true);
      }
    });
  }

  content();
  members();
  settings();
})();
