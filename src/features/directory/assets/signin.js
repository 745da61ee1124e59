// The sign-in form: generateToken by POST (a password never goes in a URL), then back to the page the visitor came
// from with the token, which session.js keeps for the browser session. The token is bound to this browser's address
// (client=requestip): the pages send no Referer, so a referer-bound token would not be accepted on them.
/* global document, window */
'use strict';
(function () {
  var form = document.getElementById('sign-in-form');
  var status = document.getElementById('sign-in-status');
  var home = form.dataset.home;
  // Only a path on this server: `next` comes from the URL, and anything else would make this page an open redirect.
  function nextUrl() {
    var next = new URL(window.location.href).searchParams.get('next');
    return next && next.charAt(0) === '/' && next.charAt(1) !== '/' && next.charAt(1) !== '\\' ? next : home;
  }
  form.addEventListener('submit', async function (e) {
    e.preventDefault();
    status.textContent = 'Signing in…';
    status.className = 'status';
    var params = new URLSearchParams({
      username: form.elements.username.value,
      password: form.elements.password.value,
      client: 'requestip',
      expiration: form.elements.expiration.value,
      f: 'json',
    });
    try {
      var reply = await fetch(form.action, { method: 'POST', body: params, credentials: 'same-origin' });
      var body = await reply.json();
      if (!body.token) throw new Error(body.error ? body.error.message + ' ' + (body.error.details || []).join(' ') : 'No token.');
      var target = new URL(nextUrl(), window.location.origin);
      target.searchParams.set('f', 'html');
      target.searchParams.set('token', body.token);
      window.location.href = target.href;
    } catch (err) {
      status.textContent = 'Could not sign in: ' + err.message;
      status.className = 'status error';
    }
  });
})();
