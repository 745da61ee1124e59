// What the pages' scripts share: calling a REST operation as a client does (authenticated by the page session's cookie
// and its CSRF value in X-CSRF-Token; an error is the envelope's message), and a modal dialog that keeps focus inside
// it and gives it back where it was.
/* global document, window */
'use strict';
(function () {
  /**
   * Calls `url` with `params` (f=json added); resolves to the reply, or rejects with the envelope's message (an error
   * marked `envelope`) or with what kept the reply from arriving.
   */
  async function call(url, params, method) {
    var body = new URLSearchParams(params || {});
    body.set('f', 'json');
    var get = method === 'GET';
    var reply = await fetch(get ? url + '?' + body.toString() : url, {
      method: get ? 'GET' : 'POST',
      body: get ? undefined : body,
      credentials: 'same-origin',
      headers: { 'X-CSRF-Token': document.body.dataset.csrf || '' },
    });
    var json;
    try {
      json = await reply.json();
    } catch {
      throw new Error('The server answered ' + reply.status + ' without a reply the page can read.');
    }
    if (json.error) {
      var details = (json.error.details || []).filter(function (d) {
        return d && d !== json.error.message;
      });
      var err = new Error(json.error.message + (details.length ? ' ' + details.join(' ') : ''));
      err.envelope = true;
      throw err;
    }
    return json;
  }

  var FOCUSABLE =
    'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea, [tabindex]:not([tabindex="-1"])';

  /**
   * Opens `dialog` modally and resolves true when `yes` is pressed, false on `no` or Escape. showModal makes the
   * page behind inert; Tab and Shift+Tab also wrap inside, so focus never leaves for the browser's own controls.
   */
  function confirm(dialog, yes, no) {
    var before = document.activeElement;
    return new Promise(function (resolve) {
      function done(answer) {
        dialog.removeEventListener('keydown', keys);
        yes.removeEventListener('click', onYes);
        no.removeEventListener('click', onNo);
        dialog.removeEventListener('cancel', onCancel);
        dialog.close();
        if (before && before.focus) before.focus();
        resolve(answer);
      }
      function onYes() {
        done(true);
      }
      function onNo() {
        done(false);
      }
      function onCancel(e) {
        e.preventDefault();
        done(false);
      }
      function keys(e) {
        if (e.key !== 'Tab') return;
        var all = dialog.querySelectorAll(FOCUSABLE);
        var first = all[0];
        var last = all[all.length - 1];
        if (e.shiftKey && document.activeElement === first) {
          e.preventDefault();
          last.focus();
        } else if (!e.shiftKey && document.activeElement === last) {
          e.preventDefault();
          first.focus();
        }
      }
      dialog.addEventListener('keydown', keys);
      yes.addEventListener('click', onYes);
      no.addEventListener('click', onNo);
      dialog.addEventListener('cancel', onCancel);
      dialog.showModal();
      no.focus();
    });
  }

  /** Writes `text` into a status element (a live region); `isError` colours it and makes it an alert. */
  function say(el, text, isError) {
    el.textContent = text;
    el.classList.toggle('error', !!isError);
  }

  window.homePages = { call: call, confirm: confirm, say: say };
})();
