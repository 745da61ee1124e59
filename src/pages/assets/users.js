// The users page: the organization's users through portals/self/users/search (home.js's `call`), searched with its
// `q` and paged with start/num. Text goes in with textContent only.
/* global document, window */
'use strict';
(function () {
  var api = window.homePages;
  var root = document.getElementById('users');
  var rest = root.dataset.rest;
  var contentBase = rest.replace(/\/portals\/self\/users\/search$/, '/content/users/');
  var tbody = document.querySelector('#user-table tbody');
  var status = document.getElementById('users-status');
  var prev = document.getElementById('users-prev');
  var next = document.getElementById('users-next');
  var NUM = 20;
  var state = { q: '', start: 1, nextStart: -1 };

  function cell(row, text) {
    var td = document.createElement('td');
    td.textContent = text;
    row.append(td);
    return td;
  }

  async function load() {
    try {
      var params = { start: state.start, num: NUM };
      if (state.q) params.q = state.q;
      var reply = await api.call(rest, params, 'GET');
      tbody.replaceChildren();
      reply.results.forEach(function (u) {
        var tr = document.createElement('tr');
        cell(tr, u.username);
        cell(tr, u.fullName || '');
        cell(tr, u.role || '');
        cell(tr, u.created ? new Date(u.created).toISOString().slice(0, 10) : '');
        var a = document.createElement('a');
        a.href = contentBase + encodeURIComponent(u.username) + '?f=html';
        a.textContent = 'Content of ' + u.username;
        cell(tr, '').append(a);
        tbody.append(tr);
      });
      state.nextStart = reply.nextStart;
      prev.disabled = state.start <= 1;
      next.disabled = reply.nextStart < 0;
      var last = Math.min(reply.total, state.start + reply.results.length - 1);
      api.say(status, reply.total ? 'Users ' + state.start + ' to ' + last + ' of ' + reply.total + '.' : 'No users match.');
    } catch (err) {
      api.say(status, 'Could not list users: ' + err.message, true);
    }
  }

  document.getElementById('user-search').addEventListener('submit', function (e) {
    e.preventDefault();
    state.q = e.target.elements.q.value.trim();
    state.start = 1;
    load();
  });
  prev.addEventListener('click', function () {
    state.start = Math.max(1, state.start - NUM);
    load();
  });
  next.addEventListener('click', function () {
    if (state.nextStart > 0) state.start = state.nextStart;
    load();
  });
  load();
})();
