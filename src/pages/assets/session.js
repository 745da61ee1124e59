// A page opened with ?token= (an API user's link) is drawn for that token, but the token is not kept: it is taken
// out of the address bar, so the history entry, a bookmark or a copied link does not carry it. Signed-in pages need
// no token in their URLs: the page session's cookie authenticates them.
/* global window */
'use strict';
(function () {
  var url = new URL(window.location.href);
  if (!url.searchParams.has('token')) return;
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', url.href);
})();
