// The dashboard's "Schedule" panel (README, "A day's schedule"): loads a day's fixtures (a CSV or
// JSON file) and lists them beside the live matches (upcoming, live, finished: planned start, group
// code, teams, best of, the series score, flags), each finished map's result with a correction
// control (its two scores and Save), Reopen for a finished series and Delete. It reads
// GET /admin/fixtures every 2 s and calls the admin API with the Bearer token the operator types
// into the toolbar's token field (#admin-token, dashboard-links-page.ts); without it the reads go
// with the Basic credentials the browser sent for the page. It also marks a live match's row whose
// match is not the fixture's (`mismatch`, from the event stream's rows: window.odsFixtures.row,
// called by the links cell). Like the page: no template literals in the script, all text through
// textContent. Inserted into the page (dashboard-page.ts) as one piece; its table has no thead (the
// page's sorting takes every "thead th" for the matches table).

export const FIXTURES_PANEL_HTML = String.raw`
<style>
  #schedule { margin-top: 20px; }
  #schedule .bar { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
  #schedule input, #schedule button { background: var(--bg); color: var(--text); border: 1px solid var(--line); border-radius: 4px; padding: 4px 8px; font: inherit; }
  #schedule button { cursor: pointer; border-color: var(--accent); }
  #fx-msg { margin: 8px 0; font-size: 13px; }
  #fx-msg.bad { color: var(--bad); }
  #fx-msg.good { color: var(--good); }
  #fx-list { margin-top: 8px; }
  #fx-list th { text-align: left; font-size: 12px; color: var(--dim); font-weight: 600; padding: 6px 8px; border-bottom: 1px solid var(--line); }
  #fx-list td { vertical-align: top; }
  #fx-list td input.score { width: 44px; padding: 2px 4px; }
  #fx-list .result { white-space: nowrap; margin-bottom: 3px; }
  #fx-list tr[data-status="live"] td.fx-status { color: var(--good); font-weight: 600; }
  #fx-list tr[data-status="finished"] td.fx-status { color: var(--dim); }
  #fx-list .flag { color: var(--bad); font-weight: 600; }
  tbody tr.mismatch { background: rgba(255, 140, 0, .18) !important; }
  td.code[data-mismatch]::after { content: " ≠ fixture (" attr(data-mismatch) ")"; font-size: 11px; font-weight: 600; color: var(--bad); }
</style>
<section class="panel" id="schedule">
  <h2>Schedule</h2>
  <div class="bar">
    <label>Load fixtures (CSV or JSON) <input id="fx-file" type="file" accept=".csv,.json,text/csv,application/json"></label>
    <button id="fx-load" type="button">Load</button>
  </div>
  <div id="fx-msg" role="status"></div>
  <table id="fx-list">
    <tbody><tr><th>Start</th><th>Group code</th><th>Teams</th><th>Best of</th><th>Series</th><th>Status</th><th>Maps played (correct: scores, Save)</th><th></th></tr></tbody>
    <tbody id="fx-rows"></tbody>
  </table>
</section>
<script>
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var base = location.pathname.replace(/dashboard\/?$/, '') + 'admin/fixtures';
  function headers(extra) { var t = $('admin-token'); var h = extra || {}; if (t && t.value) h.Authorization = 'Bearer ' + t.value; return h; }
  function say(text, ok) { var m = $('fx-msg'); m.textContent = text; m.className = ok ? 'good' : 'bad'; }
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function call(method, path, body, type) {
    var init = { method: method, headers: headers(body === undefined ? {} : { 'Content-Type': type || 'application/json' }) };
    if (body !== undefined) init.body = body;
    return fetch(base + path, init).then(function (res) { return res.json().then(function (b) { return { status: res.status, body: b }; }); });
  }
  function needToken() { var t = $('admin-token'); if (t && t.value) return false; say('Type the admin token first.', false); return true; }

  $('fx-load').addEventListener('click', function () {
    var file = $('fx-file').files[0];
    if (!file) { say('Choose a CSV or JSON file first.', false); return; }
    if (needToken()) return;
    file.text().then(function (text) {
      var csv = /\.csv$/i.test(file.name) || file.type === 'text/csv';
      return call('POST', '', text, csv ? 'text/csv' : 'application/json');
    }).then(function (r) {
      if (r.status === 201) { say(r.body.added + ' fixtures loaded', true); refresh(); } else say(r.body.error || ('HTTP ' + r.status), false);
    }).catch(function (e) { say(e.message, false); });
  });

  function act(code, path, body, done) {
    if (needToken()) return;
    call('POST', '/' + encodeURIComponent(code) + path, body).then(function (r) {
      if (r.status === 200) { say(done, true); refresh(); } else say(code + ': ' + (r.body.error || ('HTTP ' + r.status)), false);
    }).catch(function (e) { say(e.message, false); });
  }

  function resultLine(f, i, r) {
    var line = el('div', 'result'); line.dataset.map = String(i + 1);
    line.append(el('span', '', (i + 1) + '. ' + r.map + ' ' + f.teams[0].tricode + ' '));
    var a = el('input', 'score'); a.type = 'number'; a.min = '0'; a.value = String(r.scores[0]); a.dataset.side = '0';
    var b = el('input', 'score'); b.type = 'number'; b.min = '0'; b.value = String(r.scores[1]); b.dataset.side = '1';
    var save = el('button', 'save', 'Save');
    save.addEventListener('click', function () {
      act(f.groupCode, '/results/' + (i + 1), JSON.stringify({ scores: [Number(a.value), Number(b.value)] }), f.groupCode + ': map ' + (i + 1) + ' corrected');
    });
    line.append(a, el('span', '', ' – '), b, el('span', '', ' ' + f.teams[1].tricode + (r.correctedBy ? ' (corrected)' : '') + ' '), save);
    return line;
  }

  function render(list) {
    var rows = $('fx-rows'); rows.textContent = '';
    list.forEach(function (f) {
      var tr = el('tr'); tr.dataset.code = f.groupCode; tr.dataset.status = f.status;
      tr.append(el('td', '', f.startsAt ? new Date(f.startsAt).toISOString().slice(0, 16).replace('T', ' ') + ' UTC' : '–'));
      tr.append(el('td', 'fx-code', f.groupCode));
      tr.append(el('td', '', f.teams[0].tricode + ' ' + f.teams[0].name + ' vs ' + f.teams[1].name + ' ' + f.teams[1].tricode));
      tr.append(el('td', '', String(f.bestOf)));
      tr.append(el('td', 'fx-series', f.wins[0] + '–' + f.wins[1]));
      var st = el('td', 'fx-status', f.status); tr.append(st);
      if (f.live && f.live.flags.length) st.append(el('div', 'flag', 'not the fixture: ' + f.live.flags.join(', ')));
      var maps = el('td', 'fx-results'); f.results.forEach(function (r, i) { maps.append(resultLine(f, i, r)); }); tr.append(maps);
      var ctl = el('td');
      if (f.status === 'finished') { var re = el('button', 'reopen', 'Reopen'); re.addEventListener('click', function () { act(f.groupCode, '/reopen', undefined, f.groupCode + ': reopened'); }); ctl.append(re); }
      var del = el('button', 'delete', 'Delete'); del.addEventListener('click', function () { if (confirm('Delete fixture ' + f.groupCode + '?')) act(f.groupCode, '/delete', undefined, f.groupCode + ': deleted'); });
      ctl.append(del); tr.append(ctl);
      rows.append(tr);
    });
  }

  function refresh() {
    return fetch(base, { headers: headers() }).then(function (res) { return res.status === 200 ? res.json() : null; })
      .then(function (body) { if (body) render(body.fixtures); }).catch(function () { /* the next refresh */ });
  }
  // The rows being edited are not redrawn under the operator's cursor.
  setInterval(function () { var a = document.activeElement; if (!a || !a.classList || !a.classList.contains('score')) refresh(); }, 2000);
  refresh();

  window.odsFixtures = {
    row: function (d, tr) {
      var code = tr.querySelector('td.code');
      tr.classList.toggle('mismatch', !!d.mismatch);
      if (!code) return;
      if (d.mismatch) code.dataset.mismatch = d.mismatch.join(', '); else delete code.dataset.mismatch;
    }
  };
})();
</script>
`;
