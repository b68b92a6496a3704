// The dashboard's "Output delay" panel (README, "Output delay"): a group code and the seconds (0 to
// 600; 0 is off) that its events, event stream and feeds are held back, and the list of the codes
// with a delay (each with a button that sets it to 0). It calls the admin API (output-delay/rest.ts) with the
// Bearer token the operator types once into the toolbar's token field (#admin-token,
// dashboard-links-page.ts), like the "Rehearse" panel: the list is read every 2 s once the token is
// there. Inserted into the page (dashboard-page.ts) as one piece; no template literals in the script,
// all text through textContent; its table has no thead (the page's sorting takes every "thead th").

import { panelHelpers } from '../http/panel-script.js';

export const DELAY_PANEL_HTML = String.raw`
<style>
  #output-delay { margin-top: 20px; }
  #output-delay form { display: flex; gap: 8px 12px; align-items: end; flex-wrap: wrap; }
  #output-delay label { display: flex; flex-direction: column; gap: 2px; font-size: 11px; color: var(--dim); text-transform: uppercase; letter-spacing: .04em; }
  #output-delay input, #output-delay button { background: var(--bg); color: var(--text); border: 1px solid var(--line); border-radius: 4px; padding: 5px 8px; font: inherit; text-transform: none; letter-spacing: 0; }
  #output-delay button { cursor: pointer; border-color: var(--accent); }
  #od-msg { margin: 8px 0; font-size: 13px; }
  #od-msg.bad { color: var(--bad); }
  #od-msg.good { color: var(--good); }
  #od-list th { text-align: left; font-size: 12px; color: var(--dim); font-weight: 600; padding: 6px 8px; border-bottom: 1px solid var(--line); }
  #od-list td { padding: 4px 8px; border-bottom: 1px solid var(--line); font-size: 13px; }
</style>
<section class="panel" id="output-delay">
  <h2>Output delay</h2>
  <form id="od-form" autocomplete="off">
    <label>Group code<input id="od-code" required maxlength="64"></label>
    <label>Delay, seconds (0 to 600; 0: off)<input id="od-seconds" type="number" min="0" max="600" step="1" value="0" required></label>
    <button id="od-set" type="submit">Set delay</button>
  </form>
  <div id="od-msg" role="status"></div>
  <table id="od-list">
    <tbody><tr><th>Group code</th><th>Delay</th><th></th></tr></tbody>
    <tbody id="od-rows"></tbody>
  </table>
</section>
<script>
(function () {
  'use strict';
  ${panelHelpers('od-msg', 'admin/')}
  function set(code, seconds) {
    return call('POST', 'matches/' + encodeURIComponent(code) + '/delay', { seconds: seconds })
      .then(function (r) { say(r.groupCode + ': ' + (r.seconds ? 'delayed by ' + r.seconds + ' s' : 'no delay'), true); refresh(); })
      .catch(function (err) { say(code + ': ' + err.message, false); });
  }
  $('od-form').addEventListener('submit', function (e) {
    e.preventDefault();
    if (!token()) { say('Type the admin token (top of the page) first.', false); return; }
    set($('od-code').value.trim(), Number($('od-seconds').value));
  });
  function render(list) {
    var tbody = $('od-rows');
    tbody.textContent = '';
    list.forEach(function (d) {
      var tr = document.createElement('tr');
      tr.dataset.code = d.groupCode;
      var code = document.createElement('td'); code.textContent = d.groupCode;
      var secs = document.createElement('td'); secs.textContent = d.seconds + ' s';
      var act = document.createElement('td');
      var off = document.createElement('button'); off.type = 'button'; off.textContent = 'Remove delay';
      off.addEventListener('click', function () { set(d.groupCode, 0); });
      act.append(off);
      tr.append(code, secs, act);
      tbody.append(tr);
    });
  }
  var busy = false;
  function refresh() {
    if (busy || !token()) return;
    busy = true;
    call('GET', 'delays').then(function (data) { render(data.delays); }, function () { /* shown on the next action */ })
      .then(function () { busy = false; });
  }
  setInterval(refresh, 2000);
})();
</script>
`;
