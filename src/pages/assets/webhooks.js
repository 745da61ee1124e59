// The webhooks page: lists the organization's webhooks, creates one, activates and deactivates, deletes, and shows a
// webhook's delivery log (notificationStatus) with each payload and response; all through the REST operations under
// portals/self/webhooks (home.js's `call`). Text goes in with textContent only.
/* global document, window */
'use strict';
(function () {
  var api = window.homePages;
  var root = document.getElementById('webhooks');
  var rest = root.dataset.rest;
  var tbody = document.querySelector('#hook-table tbody');
  var status = document.getElementById('hooks-status');
  var log = document.getElementById('log');
  var logTitle = document.getElementById('log-title');
  var logBody = document.querySelector('#log-table tbody');
  var shown = null;

  function cell(row, text) {
    var td = document.createElement('td');
    td.textContent = text;
    row.append(td);
    return td;
  }
  function button(text, label, onClick, className) {
    var b = document.createElement('button');
    b.type = 'button';
    b.textContent = text;
    b.setAttribute('aria-label', label);
    if (className) b.className = className;
    b.addEventListener('click', onClick);
    return b;
  }
  function when(ms) {
    return ms > 0
      ? new Date(ms)
          .toISOString()
          .replace('T', ' ')
          .replace(/\.\d{3}Z$/, ' UTC')
      : 'not yet';
  }

  async function load() {
    try {
      var reply = await api.call(rest, { num: 100 }, 'GET');
      tbody.replaceChildren();
      reply.webhooks.forEach(function (w) {
        var tr = document.createElement('tr');
        tr.dataset.id = w.id;
        cell(tr, w.name);
        cell(tr, w.payloadUrl);
        cell(tr, w.events.join(', '));
        cell(tr, w.isActive ? 'Active' : 'Inactive').className = 'state';
        var actions = cell(tr, '');
        actions.append(
          button(w.isActive ? 'Deactivate' : 'Activate', (w.isActive ? 'Deactivate ' : 'Activate ') + w.name, function () {
            act(w, w.isActive ? 'deactivate' : 'activate');
          }),
          button('Delivery log', 'Delivery log of ' + w.name, function () {
            showLog(w);
          }),
          button(
            'Delete',
            'Delete ' + w.name,
            async function () {
              document.getElementById('confirm-text').textContent = 'Delete the webhook "' + w.name + '"? Its delivery log goes with it.';
              var yes = document.getElementById('confirm-yes');
              if (await api.confirm(document.getElementById('confirm-delete'), yes, document.getElementById('confirm-no'))) {
                act(w, 'delete');
              }
            },
            'danger',
          ),
        );
        tbody.append(tr);
      });
      if (!reply.webhooks.length) {
        var tr = document.createElement('tr');
        cell(tr, 'No webhooks yet.').colSpan = 5;
        tbody.append(tr);
      }
    } catch (err) {
      api.say(status, 'Could not list the webhooks: ' + err.message, true);
    }
  }

  async function act(w, op) {
    try {
      await api.call(rest + '/' + encodeURIComponent(w.id) + '/' + op, {});
      var done = { activate: 'activated', deactivate: 'deactivated', delete: 'deleted' }[op];
      api.say(status, 'Webhook ' + w.name + ' ' + done + '.');
      if (op === 'delete' && shown && shown.id === w.id) log.hidden = true;
      await load();
      var again = tbody.querySelector('tr[data-id="' + w.id + '"] button');
      if (again) again.focus();
    } catch (err) {
      api.say(status, 'Could not change ' + w.name + ': ' + err.message, true);
    }
  }

  async function showLog(w) {
    shown = w;
    log.hidden = false;
    logTitle.textContent = 'Delivery log of ' + w.name;
    logTitle.focus();
    try {
      var reply = await api.call(rest + '/' + encodeURIComponent(w.id) + '/notificationStatus', { num: 50 }, 'GET');
      logBody.replaceChildren();
      reply.notificationStatusList.forEach(function (d) {
        var tr = document.createElement('tr');
        tr.dataset.deliveryId = d.deliveryId;
        cell(tr, d.isInvoked ? when(d.invokedTimestamp) : 'not yet');
        cell(tr, d.status);
        cell(tr, String(d.attempts));
        cell(tr, (d.responseCode ? d.responseCode + ' ' : '') + (d.responseText || ''));
        var details = document.createElement('details');
        var summary = document.createElement('summary');
        summary.textContent = 'Payload of delivery ' + d.deliveryId;
        var pre = document.createElement('pre');
        pre.className = 'payload';
        // Scrolls when long: focusable, so a keyboard can scroll it too.
        pre.tabIndex = 0;
        pre.textContent = JSON.stringify(d.payload, null, 2);
        details.append(summary, pre);
        cell(tr, '').append(details);
        logBody.append(tr);
      });
      if (!reply.notificationStatusList.length) {
        var tr = document.createElement('tr');
        cell(tr, 'No deliveries yet.').colSpan = 5;
        logBody.append(tr);
      }
    } catch (err) {
      api.say(status, 'Could not read the delivery log: ' + err.message, true);
    }
  }

  document.getElementById('log-refresh').addEventListener('click', function () {
    if (shown) showLog(shown);
  });

  var form = document.getElementById('create-hook');
  var createStatus = document.getElementById('create-status');
  form.addEventListener('submit', async function (e) {
    e.preventDefault();
    var el = form.elements;
    var events = el.events.value.trim();
    var params = { name: el.name.value.trim(), url: el.url.value.trim() };
    if (events === 'allChanges' || !events) params.changes = 'allChanges';
    else params.events = events;
    if (el.secret.value) params.secret = el.secret.value;
    api.say(createStatus, 'Creating the webhook (its payload URL is called once)…');
    try {
      await api.call(rest + '/createWebhook', params);
      api.say(createStatus, 'Webhook ' + params.name + ' created.');
      form.reset();
      await load();
    } catch (err) {
      api.say(createStatus, 'Could not create the webhook: ' + err.message, true);
    }
  });

  load();
})();
