// The dashboard's "Webhooks" panel (README, "Webhooks"; docs/events.md): each endpoint (id, URL, events
// and group codes it takes, delivered, failed attempts, dead-lettered, waiting) and the newest dead letters (the
// events given up after WEBHOOK_RETRY_FOR_MS: endpoint, event id, type, group code, attempts, last
// error, when), each with a "Redeliver" button. Read from GET /dashboard/webhooks every 2 s with the
// credentials the page was opened with (the same as /dashboard/events: no token to type for
// reading); the button calls the admin API (POST /admin/webhooks/dead-letters/:id/redeliver,
// events/redeliver.ts) with the token typed into the toolbar (#admin-token), like the other
// admin panels (panel-script.ts), and says the outcome in the panel's message line. Inserted into
// the page (dashboard-page.ts) as one piece; like the page, no template literals in the script, all
// text through textContent; its tables have no thead (the page's sorting takes every "thead th").
import { panelHelpers } from '../http/panel-script.js';

export const WEBHOOKS_PANEL_HTML = String.raw`
<style>
  #webhooks { margin-top: 20px; }
  #webhooks table { width: 100%; border-collapse: collapse; margin-bottom: 10px; }
  #webhooks th { text-align: left; font-size: 12px; color: var(--dim); font-weight: 600; padding: 6px 8px; border-bottom: 1px solid var(--line); }
  #webhooks td { padding: 4px 8px; border-bottom: 1px solid var(--line); font-size: 13px; }
  #wh-dead td { color: var(--bad); }
  #wh-none { color: var(--dim); font-size: 13px; }
  #wh-dead button { background: var(--bg); color: var(--text); border: 1px solid var(--accent); border-radius: 4px; padding: 2px 8px; font: inherit; cursor: pointer; }
  #wh-msg { margin: 8px 0; font-size: 13px; }
  #wh-msg.bad { color: var(--bad); }
  #wh-msg.good { color: var(--good); }
</style>
<section class="panel" id="webhooks">
  <h2>Webhooks</h2>
  <table id="wh-endpoints"><tbody><tr><th>Endpoint</th><th>URL</th><th>Events</th><th>Group codes</th><th>Delivered</th><th>Failed attempts</th><th>Dead letters</th><th>Waiting</th></tr></tbody><tbody id="wh-rows"></tbody></table>
  <h2>Dead letters</h2>
  <div id="wh-none">None.</div>
  <div id="wh-msg" role="status"></div>
  <table id="wh-dead-table"><tbody><tr><th>Endpoint</th><th>Event</th><th>Type</th><th>Group code</th><th>Attempts</th><th>Last error</th><th>Given up at</th><th></th></tr></tbody><tbody id="wh-dead"></tbody></table>
</section>
<script>
(function () {
  'use strict';
  ${panelHelpers('wh-msg', 'admin/')}
  var url = location.pathname.replace(/\/?$/, '/') + 'webhooks';
  function row(cells) {
    var tr = document.createElement('tr');
    cells.forEach(function (c) { var td = document.createElement('td'); td.textContent = c === undefined || c === null ? '' : String(c); tr.appendChild(td); });
    return tr;
  }
  function fill(body, rows) {
    while (body.firstChild) body.removeChild(body.firstChild);
    rows.forEach(function (r) { body.appendChild(row(r)); });
  }
  function load() {
    fetch(url, { credentials: 'same-origin', cache: 'no-store' }).then(function (res) { return res.ok ? res.json() : null; }).then(function (d) {
      if (!d) return;
      fill($('wh-rows'), d.endpoints.map(function (e) {
        var s = e.stats || {};
        return [e.id, e.url, e.events.length ? e.events.join(', ') : 'all', e.groupCodes && e.groupCodes.length ? e.groupCodes.join(', ') : 'all', s.delivered, s.failedAttempts, s.deadLettered, s.waiting];
      }));
      var dead = d.deadLetters.slice(-20).reverse();
      $('wh-none').hidden = dead.length > 0;
      fill($('wh-dead'), dead.map(function (x) { return [x.endpointId, x.eventId, x.type, x.groupCode, x.attempts, x.lastError, x.deadAt]; }));
      Array.prototype.forEach.call($('wh-dead').children, function (tr, i) {
        var x = dead[i];
        tr.dataset.id = x.id;
        var td = document.createElement('td');
        var b = document.createElement('button'); b.type = 'button'; b.textContent = 'Redeliver';
        b.addEventListener('click', function () { redeliver(x, b); });
        td.appendChild(b);
        tr.appendChild(td);
      });
    }).catch(function () {});
  }
  function redeliver(x, button) {
    if (!token()) { say('Type the admin token (top of the page) first.', false); return; }
    button.disabled = true;
    call('POST', 'webhooks/dead-letters/' + encodeURIComponent(x.id) + '/redeliver')
      .then(function () { say(x.eventId + ': redelivered to ' + x.endpointId, true); load(); })
      .catch(function (err) { button.disabled = false; say(x.eventId + ': ' + err.message, false); });
  }
  load();
  setInterval(load, 2000);
})();
</script>
`;
