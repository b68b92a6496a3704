// The browser-side helpers that the dashboard's admin-API panels share (rehearsal/panel.ts,
// output-delay/panel.ts), as script text for their inline <script>: `$(id)`, `token()` (the toolbar's
// admin token), `base` (the admin API's path beside the dashboard's), `say(text, ok)` into the
// panel's message line, and `call(method, path, body)`: JSON in and out with the token as Bearer; a
// non-2xx answer throws its `{ error }`.
export function panelHelpers(messageId: string, apiPath: string): string {
  return String.raw`var $ = function (id) { return document.getElementById(id); };
  var token = function () { var t = $('admin-token'); return t ? t.value : ''; };
  var base = location.pathname.replace(/dashboard\/?$/, '') + '${apiPath}';
  function say(text, ok) { var m = $('${messageId}'); m.textContent = text; m.className = ok ? 'good' : 'bad'; }
  function call(method, path, body) {
    var init = { method: method, headers: { Authorization: 'Bearer ' + token() } };
    if (body !== undefined) { init.headers['Content-Type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch(base + path, init).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (!res.ok) throw new Error(data.error || ('HTTP ' + res.status));
        return data;
      });
    });
  }`;
}
