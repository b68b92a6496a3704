// The dashboard page's link-health column and standby actions (dashboard-page.ts includes them):
// each row's observer links (P primary / S standby: address, rate, round trip, last message),
// resumes and reconnections of the last 10 minutes, the newest data's age, the overlay side, the
// standby and its failovers; a silent observer's row is flagged (`data-silent`, highlighted; the page
// sorts it first). The actions (arm a standby window, swap the observers) call the admin API with a
// Bearer token the operator types into the toolbar (kept in the page only): the page itself is opened
// with Basic credentials, which the state-changing routes do not take (rest/admin.ts).
// Plain ES5 inside String.raw (no template literals), all text through textContent.

export const LINKS_CSS = String.raw`
  td.link { font-size: 12px; line-height: 1.35; min-width: 280px; }
  td.link .obs { white-space: nowrap; }
  td.link .role { display: inline-block; width: 1.3em; font-weight: 700; color: var(--accent); }
  td.link .muted { opacity: .7; }
  td.link button { font: inherit; font-size: 11px; margin: 2px 4px 0 0; padding: 1px 6px; cursor: pointer; }
  tbody tr.silent { background: rgba(220, 40, 40, .25) !important; }
  tbody tr.silent td.link .flag { color: #ff6b6b; font-weight: 700; }
  #admin-token { margin-left: 12px; width: 200px; }
  #action-result { margin-left: 8px; opacity: .85; }
`;

export const LINKS_SCRIPT = String.raw`
<script>
(function () {
  'use strict';
  var offset = 0;
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function age(at) {
    if (!at) return '–';
    var s = Math.max(0, Math.round((Date.now() + offset - at) / 1000));
    return s < 60 ? s + ' s' : s < 3600 ? Math.floor(s / 60) + ' min' : Math.floor(s / 3600) + ' h';
  }
  var toolbar = document.querySelector('.toolbar');
  var token = el('input'); token.id = 'admin-token'; token.type = 'password'; token.placeholder = 'Admin token (for actions)'; token.autocomplete = 'off';
  var result = el('span'); result.id = 'action-result';
  toolbar.append(token, result);
  function act(code, what) {
    if (!token.value) { result.textContent = 'Type the admin token first.'; return; }
    var base = location.pathname.replace(/dashboard\/?$/, '');
    fetch(base + 'admin/matches/' + encodeURIComponent(code) + '/' + what, { method: 'POST', headers: { Authorization: 'Bearer ' + token.value } })
      .then(function (res) { return res.json().then(function (body) { return { status: res.status, body: body }; }); })
      .then(function (r) {
        result.textContent = r.status === 202 ? code + ': swap asked of the node that runs the match'
          : r.status === 200
          ? (what === 'standby' ? code + ': standby window open until ' + new Date(r.body.armedUntil).toISOString().slice(11, 19) + ' UTC' : code + ': observers swapped')
          : code + ': ' + (r.body.error || r.status);
      })
      .catch(function (e) { result.textContent = code + ': ' + e.message; });
  }
  function line(parent, cls, text) { var d = el('div', cls, text); parent.append(d); return d; }
  window.odsLinks = {
    cell: function (td, d, tr, clockOffset) {
      offset = clockOffset;
      if (window.odsFixtures) window.odsFixtures.row(d, tr); // a scheduled match that is not the fixture's (schedule/panel.ts)
      var l = d.links;
      tr.classList.toggle('silent', !!(l && l.silent));
      if (l && l.silent) tr.dataset.silent = '1'; else delete tr.dataset.silent;
      td.textContent = '';
      if (!l) return;
      if (l.silent) line(td, 'flag', 'SILENT observer: nothing for ' + age(l.primaryLastAt));
      l.observers.forEach(function (o) {
        var row = line(td, 'obs');
        row.dataset.role = o.role;
        row.append(el('span', 'role', o.role === 'primary' ? 'P' : 'S'));
        var drops = Object.keys(o.dropped).map(function (k) { return k + ' ' + o.dropped[k]; }).join(', ');
        row.append(el('span', '', o.address + ' · ' + o.messagesPerSecond + '/s · rtt ' + (o.rttMs < 0 ? '–' : o.rttMs + ' ms') + ' · last '));
        var last = el('span', 'ago', age(o.lastMessageAt)); last.dataset.at = String(o.lastMessageAt); row.append(last);
        if (drops) row.append(el('span', 'muted', ' · dropped ' + drops));
      });
      if (l.observers.length === 0) line(td, 'muted', 'no observer connected here');
      line(td, 'muted', 'resumes ' + l.resumes10m + ' · reconnects ' + l.reconnects10m + ' (10 min) · newest data ' + age(l.newestDataAt));
      var ov = l.overlay;
      line(td, 'overlay', ov.connected + ' overlays · ' + ov.framesPerSecond + ' fps · slowest ' + Math.round(ov.slowestBufferedBytes / 1024) + ' KB queued' + (ov.skipping ? ' · ' + ov.skipping + ' skipping' : ''));
      var sb = l.standby;
      if (sb) {
        var text = 'primary: ' + (sb.primary === 'group' ? 'first observer' : 'standby') + ' · failovers ' + sb.failovers;
        if (sb.lastFailover) text += ' (last: ' + sb.lastFailover.cause + ', ' + age(sb.lastFailover.at) + ' ago)';
        if (sb.armedUntil) text += ' · armed';
        line(td, 'standby', text);
      }
      var arm = el('button', 'arm', 'Arm standby'); arm.addEventListener('click', function () { act(d.groupCode, 'standby'); });
      var swap = el('button', 'swap', 'Swap observers'); swap.addEventListener('click', function () { act(d.groupCode, 'failover'); });
      td.append(arm, swap);
    }
  };
  setInterval(function () {
    document.querySelectorAll('td.link .ago').forEach(function (e) { e.textContent = age(Number(e.dataset.at)); });
  }, 1000);
})();
</script>
`;
