// The dashboard's "Brackets" panel (README, "Brackets: start.gg and Challonge in the loop"): links a
// start.gg event or phase or a Challonge tournament (the platform, URL or slug, the organiser's token,
// Challonge's best of, report at once or hold for confirmation), lists the
// links with their read's state (last and next read, errors), and every linked match with its group
// code (the code the observer types), stream and station, flags, and its report's state, with
// Confirm for a held report, Exchanges (everything sent to the platform and answered, from
// GET /admin/brackets/sets/:groupCode, kept open across redraws) and the group codes as CSV. It reads GET /admin/brackets every 2 s and
// changes through the admin API with the Bearer token typed into the toolbar's token field
// (#admin-token); reads go with the page's Basic credentials without it. Like the page: no template
// literals in the script, all text through textContent. The token field is emptied once sent.

export const BRACKETS_PANEL_HTML = String.raw`
<style>
  #brackets { margin-top: 20px; }
  #brackets .bar { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
  #brackets input, #brackets select, #brackets button { background: var(--bg); color: var(--text); border: 1px solid var(--line); border-radius: 4px; padding: 4px 8px; font: inherit; }
  #brackets button { cursor: pointer; border-color: var(--accent); }
  #bk-msg { margin: 8px 0; font-size: 13px; }
  #bk-msg.bad { color: var(--bad); }
  #bk-msg.good { color: var(--good); }
  #brackets table th { text-align: left; font-size: 12px; color: var(--dim); font-weight: 600; padding: 6px 8px; border-bottom: 1px solid var(--line); }
  #brackets td { vertical-align: top; }
  #brackets .flag, #brackets .err { color: var(--bad); font-weight: 600; }
  #brackets td.bk-code { font-family: ui-monospace, monospace; font-size: 15px; font-weight: 700; }
  #brackets .bk-ex { font-family: ui-monospace, monospace; font-size: 11px; white-space: pre-wrap; word-break: break-all; max-width: 640px; }
</style>
<section class="panel" id="brackets">
  <h2>Brackets</h2>
  <div class="bar">
    <label>Platform <select id="bk-platform"><option value="startgg">start.gg</option><option value="challonge">Challonge</option></select></label>
    <label><span id="bk-url-label">start.gg event or phase</span> <input id="bk-url" size="48" placeholder="https://www.start.gg/tournament/…/event/…"></label>
    <label>API token <input id="bk-token" type="password" autocomplete="off"></label>
    <label id="bk-bo-label" hidden>Best of <select id="bk-bo"><option value="1">1</option><option value="3" selected>3</option><option value="5">5</option></select></label>
    <label>Reports <select id="bk-mode"><option value="auto">at once</option><option value="confirm">hold for confirmation</option></select></label>
    <button id="bk-link" type="button">Link</button>
    <a id="bk-csv" href="admin/brackets/codes.csv">Group codes (CSV)</a>
  </div>
  <div id="bk-msg" role="status"></div>
  <table id="bk-links"><tbody><tr><th>Bracket</th><th>Reports</th><th>Matches</th><th>Last read</th><th>Next read</th><th>Errors</th></tr></tbody><tbody id="bk-link-rows"></tbody></table>
  <table id="bk-sets"><tbody><tr><th>Group code</th><th>Stream / station</th><th>Round</th><th>Teams</th><th>Series</th><th>Flags</th><th>Report</th><th></th></tr></tbody><tbody id="bk-set-rows"></tbody></table>
</section>
<script>
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var base = location.pathname.replace(/dashboard\/?$/, '') + 'admin/brackets';
  $('bk-csv').href = base + '/codes.csv';
  function headers(extra) { var t = $('admin-token'); var h = extra || {}; if (t && t.value) h.Authorization = 'Bearer ' + t.value; return h; }
  function say(text, ok) { var m = $('bk-msg'); m.textContent = text; m.className = ok ? 'good' : 'bad'; }
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function time(ms) { return ms ? new Date(ms).toISOString().slice(11, 19) + ' UTC' : '–'; }
  function call(method, path, body) {
    var init = { method: method, headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }) };
    if (body !== undefined) init.body = body;
    return fetch(base + path, init).then(function (res) { return res.json().then(function (b) { return { status: res.status, body: b }; }); });
  }
  var exchanges = {}; // group code → its exchanges as last read, for the rows whose Exchanges are open
  function loadExchanges(code) {
    return fetch(base + '/sets/' + encodeURIComponent(code), { headers: headers() }).then(function (res) { return res.status === 200 ? res.json() : null; })
      .then(function (s) { if (s && exchanges[code]) { exchanges[code] = s.report.exchanges; showExchanges(code); } });
  }
  function showExchanges(code) {
    var box = document.querySelector('#bk-set-rows tr[data-code="' + code + '"] .bk-ex');
    if (!box) return;
    box.textContent = '';
    (exchanges[code] || []).forEach(function (e) {
      box.append(el('div', e.ok ? '' : 'err', new Date(e.at).toISOString().slice(11, 19) + ' ' + e.operation + ' ' + (e.ok ? 'taken' : 'not taken') + ': ' + JSON.stringify(e.sent) + ' → ' + e.answer));
    });
  }
  function needToken() { var t = $('admin-token'); if (t && t.value) return false; say('Type the admin token first.', false); return true; }

  // Challonge has no best-of: the link names it (every match of the tournament).
  $('bk-platform').addEventListener('change', function () {
    var ch = $('bk-platform').value === 'challonge';
    $('bk-url-label').textContent = ch ? 'Challonge tournament' : 'start.gg event or phase';
    $('bk-url').placeholder = ch ? 'https://challonge.com/… or https://<subdomain>.challonge.com/…' : 'https://www.start.gg/tournament/…/event/…';
    $('bk-bo-label').hidden = !ch;
  });
  $('bk-link').addEventListener('click', function () {
    if (needToken()) return;
    var link = { platform: $('bk-platform').value, url: $('bk-url').value, token: $('bk-token').value, mode: $('bk-mode').value };
    if (link.platform === 'challonge') link.bestOf = Number($('bk-bo').value);
    var body = JSON.stringify(link);
    $('bk-token').value = '';
    call('POST', '', body).then(function (r) {
      if (r.status === 201) { say('Linked: ' + r.body.link.input, true); refresh(); } else say(r.body.error || ('HTTP ' + r.status), false);
    }).catch(function (e) { say(e.message, false); });
  });

  function report(s) {
    var r = s.report; var td = el('td', 'bk-report');
    var games = r.held || r.sent;
    var text = r.state + (games ? ': ' + games.games.map(function (g) { return g.scores[0] + '–' + g.scores[1]; }).join(', ') + (games.winnerId ? ', winner ' + games.winnerId : '') : '');
    td.append(el('div', 'bk-state', text));
    if (r.lastError) td.append(el('div', 'err', r.lastError + ' (' + r.failures + ' failed)'));
    var toggle = el('button', 'exchanges', exchanges[s.groupCode] ? 'Hide exchanges' : 'Exchanges');
    toggle.addEventListener('click', function () {
      if (exchanges[s.groupCode]) { delete exchanges[s.groupCode]; refresh(); return; }
      exchanges[s.groupCode] = []; toggle.textContent = 'Hide exchanges'; loadExchanges(s.groupCode);
    });
    td.append(toggle, el('div', 'bk-ex'));
    return td;
  }

  function render(body) {
    var links = $('bk-link-rows'); links.textContent = '';
    body.links.forEach(function (l) {
      var tr = el('tr'); tr.dataset.link = l.id; var s = l.sync || {};
      tr.append(el('td', '', (l.name || l.input) + ' (' + l.platform + ')'), el('td', '', l.mode === 'confirm' ? 'held for confirmation' : 'at once'),
        el('td', '', String(s.sets || 0)), el('td', '', time(s.lastSyncAt)), el('td', '', time(s.nextSyncAt)), el('td', s.lastError ? 'err' : '', s.lastError ? s.errors + ': ' + s.lastError : '–'));
      links.append(tr);
    });
    var rows = $('bk-set-rows'); rows.textContent = '';
    body.sets.forEach(function (s) {
      var tr = el('tr'); tr.dataset.code = s.groupCode; tr.dataset.report = s.report.state;
      tr.append(el('td', 'bk-code', s.groupCode), el('td', '', (s.stream || '–') + ' / ' + (s.station || '–')), el('td', '', s.round),
        el('td', '', s.teams.join(' vs ')), el('td', '', s.wins[0] + '–' + s.wins[1] + ' (' + s.status + ')'));
      var fl = el('td', 'flag', s.flags.join(', ') + (s.change ? ': ' + s.change : '')); fl.dataset.flags = s.flags.join(','); tr.append(fl);
      tr.append(report(s));
      var ctl = el('td');
      if (s.report.held) {
        var ok = el('button', 'confirm', 'Confirm report');
        ok.addEventListener('click', function () {
          if (needToken()) return;
          call('POST', '/sets/' + encodeURIComponent(s.groupCode) + '/confirm', JSON.stringify({ held: s.report.held })).then(function (r) {
            if (r.status === 200) { say(s.groupCode + ': report confirmed', true); refresh(); } else say(s.groupCode + ': ' + (r.body.error || ('HTTP ' + r.status)), false);
          }).catch(function (e) { say(e.message, false); });
        });
        ctl.append(ok);
      }
      tr.append(ctl); rows.append(tr);
      if (exchanges[s.groupCode]) showExchanges(s.groupCode);
    });
    Object.keys(exchanges).forEach(loadExchanges);
  }

  function refresh() {
    return fetch(base, { headers: headers() }).then(function (res) { return res.status === 200 ? res.json() : null; })
      .then(function (body) { if (body) render(body); }).catch(function () { /* the next refresh */ });
  }
  // Redrawn every 2 s (the form is not redrawn: only the tables are).
  setInterval(refresh, 2000);
  refresh();
})();
</script>
`;
