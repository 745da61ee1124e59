// Keeps a sign-in for the browser session, as ArcGIS's directory keeps its token: a page opened with ?token= stores
// it in sessionStorage (gone when the browser session ends); a page opened without one, by an anonymous visitor,
// is opened again with the stored token. A token the server called invalid is forgotten, so nothing loops.
/* global document, window */
'use strict';
(function () {
  var KEY = 'arcgis-directory-token';
  var body = document.body;
  var url = new URL(window.location.href);
  var inUrl = url.searchParams.get('token');
  var error = body.dataset.error;
  if (inUrl) {
    if (error === '498' || error === '499') sessionStorage.removeItem(KEY);
    else sessionStorage.setItem(KEY, inUrl);
  } else if (body.dataset.signedIn === 'false' && sessionStorage.getItem(KEY)) {
    url.searchParams.set('token', sessionStorage.getItem(KEY));
    window.location.replace(url.href);
    return;
  }
  var out = document.getElementById('sign-out');
  if (out) {
    out.addEventListener('click', function () {
      sessionStorage.removeItem(KEY);
      url.searchParams.delete('token');
      window.location.href = url.href;
    });
  }
})();
