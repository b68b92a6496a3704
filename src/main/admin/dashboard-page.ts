// The operator dashboard page (GET /dashboard): plain HTML, CSS and JavaScript in one document, no
// build step, nothing loaded from elsewhere (the route's Content-Security-Policy forbids it). It
// opens /dashboard/events (server-sent events): a 'full' snapshot, then a 'diff' at most once a
// second (changed rows, removed group codes, totals, the newest frames/s point). Rows are updated in
// place, keyed by group code; all text goes through textContent.
// A TypeScript string, so that dist/ and the image carry it; no template literals in its script.
import { REHEARSAL_PANEL_HTML } from '../rehearsal/index.js'; // the "Rehearse" panel, below the table; then "Schedule", "Brackets", "Webhooks"
import { LINKS_CSS, LINKS_SCRIPT } from './dashboard-links-page.js'; // the links column and the standby actions
import { FIXTURES_PANEL_HTML } from '../schedule/index.js'; // the "Schedule" panel and the rows' mismatch mark
import { BRACKETS_PANEL_HTML } from '../brackets/index.js';
import { WEBHOOKS_PANEL_HTML } from '../events/index.js';
import { DELAY_PANEL_HTML } from '../output-delay/index.js'; // the "Output delay" panel, last
export const DASHBOARD_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Live matches · overlay data service</title>
<style>${LINKS_CSS}
  :root { --bg: #0f1419; --panel: #182028; --line: #2a3440; --text: #dfe6ee; --dim: #8b98a8; --accent: #4fb3ff; --good: #3ccf8e; --warn: #ffb347; --bad: #ff5c5c; }
  * { box-sizing: border-box; }
  body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  header { display: flex; align-items: center; gap: 16px; padding: 12px 20px; border-bottom: 1px solid var(--line); }
  header h1 { font-size: 18px; margin: 0; font-weight: 600; }
  #status { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: var(--line); color: var(--dim); }
  #status.live { background: rgba(60, 207, 142, .15); color: var(--good); }
  #status.down { background: rgba(255, 92, 92, .15); color: var(--bad); }
  #clock { margin-left: auto; color: var(--dim); font-variant-numeric: tabular-nums; }
  main { padding: 16px 20px 40px; }
  .top { display: grid; grid-template-columns: minmax(0, 3fr) minmax(260px, 2fr); gap: 16px; margin-bottom: 16px; }
  .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: 8px; }
  .card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
  .card .v { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
  .card .k { font-size: 11px; color: var(--dim); text-transform: uppercase; letter-spacing: .04em; }
  .panel { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; }
  .panel h2 { font-size: 12px; margin: 0 0 6px; color: var(--dim); font-weight: 600; text-transform: uppercase; letter-spacing: .04em; }
  #chart { width: 100%; height: 110px; display: block; }
  #chart polyline { fill: none; stroke: var(--accent); stroke-width: 1.5; vector-effect: non-scaling-stroke; }
  #chart .area { fill: rgba(79, 179, 255, .12); stroke: none; }
  .axis { display: flex; justify-content: space-between; font-size: 11px; color: var(--dim); }
  #drops { margin: 8px 0 0; padding: 0; list-style: none; font-size: 12px; color: var(--dim); max-height: 80px; overflow: auto; }
  #drops li span { color: var(--warn); font-variant-numeric: tabular-nums; }
  .toolbar { display: flex; align-items: center; gap: 12px; margin-bottom: 8px; }
  #filter { background: var(--panel); color: var(--text); border: 1px solid var(--line); border-radius: 4px; padding: 6px 10px; width: 400px; font: inherit; }
  #count { color: var(--dim); font-size: 12px; }
  table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
  thead th { position: sticky; top: 0; background: var(--panel); text-align: left; font-size: 12px; color: var(--dim); font-weight: 600; padding: 6px 8px; border-bottom: 1px solid var(--line); cursor: pointer; user-select: none; white-space: nowrap; }
  thead th.num { text-align: right; }
  thead th[aria-sort="ascending"]::after { content: " \25B2"; color: var(--accent); }
  thead th[aria-sort="descending"]::after { content: " \25BC"; color: var(--accent); }
  tbody td { padding: 4px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
  tbody tr:nth-child(even) { background: rgba(255, 255, 255, .02); }
  /* A score that just changed: a static highlight for about two seconds (no animation: at hundreds
     of rows, per-frame repaints would cost more than the updates themselves). */
  tbody tr.changed td.score { color: var(--accent); }
  td.code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-weight: 600; }
  td.team .tri { font-weight: 600; margin-right: 6px; }
  td.team .name { color: var(--dim); }
  td.score { font-weight: 600; font-size: 15px; }
  td.num { text-align: right; }
  td.age.stale { color: var(--warn); }
  td.age.dead { color: var(--bad); }
  .phase { font-size: 12px; padding: 1px 6px; border-radius: 3px; background: var(--line); }
  .phase.combat { background: rgba(255, 92, 92, .2); }
  .phase.shopping { background: rgba(60, 207, 142, .2); }
  .phase.game_end { background: rgba(255, 179, 71, .2); }
  #empty { color: var(--dim); padding: 24px; text-align: center; }
</style>
</head>
<body>
<header>
  <h1>Live matches</h1>
  <span id="status">connecting…</span>
  <span id="clock"></span>
</header>
<main>
  <div class="top">
    <div class="cards" id="cards">
      <div class="card"><div class="v" id="t-matches">–</div><div class="k">matches</div></div>
      <div class="card"><div class="v" id="t-observers">–</div><div class="k">observers</div></div>
      <div class="card"><div class="v" id="t-auxiliaries">–</div><div class="k">aux clients</div></div>
      <div class="card"><div class="v" id="t-overlays">–</div><div class="k">overlays</div></div>
      <div class="card"><div class="v" id="t-ingest">–</div><div class="k">ingest sockets</div></div>
      <div class="card"><div class="v" id="t-broadcast">–</div><div class="k">broadcast sockets</div></div>
      <div class="card"><div class="v" id="t-fps">–</div><div class="k">frames/s</div></div>
      <div class="card"><div class="v" id="t-bps">–</div><div class="k">frame bytes/s</div></div>
      <div class="card"><div class="v" id="t-egress">–</div><div class="k">sent to overlays/s</div></div>
      <div class="card"><div class="v" id="t-dropped">–</div><div class="k">dropped messages</div></div>
    </div>
    <div class="panel">
      <h2>Frames per second, last 5 minutes</h2>
      <svg id="chart" viewBox="0 0 300 100" preserveAspectRatio="none" aria-label="frames per second">
        <polygon class="area" id="chart-area" points=""></polygon>
        <polyline id="chart-line" points=""></polyline>
      </svg>
      <div class="axis"><span>−5 min</span><span id="chart-max">max –</span><span>now</span></div>
      <ul id="drops"></ul>
    </div>
  </div>
  <div class="toolbar">
    <input id="filter" type="search" placeholder="Filter: group code, team, tricode, map, phase" autocomplete="off" spellcheck="false">
    <span id="count"></span>
  </div>
  <table id="matches">
    <thead><tr>
      <th data-key="groupCode">Group code</th>
      <th data-key="left">Left team</th>
      <th data-key="score">Score</th>
      <th data-key="right">Right team</th>
      <th data-key="roundNumber" class="num">Round</th>
      <th data-key="roundPhase">Phase</th>
      <th data-key="map">Map</th>
      <th data-key="observers" class="num">Obs.</th>
      <th data-key="auxiliaries" class="num">Aux</th>
      <th data-key="overlays" class="num">Overlays</th>
      <th data-key="age" class="num">Last event</th>
      <th data-key="shard" class="num">Shard</th><th data-key="link">Links</th>
    </tr></thead>
    <tbody id="rows"></tbody>
  </table>
  <div id="empty">No live matches.</div>
${REHEARSAL_PANEL_HTML}${FIXTURES_PANEL_HTML}${BRACKETS_PANEL_HTML}${WEBHOOKS_PANEL_HTML}${DELAY_PANEL_HTML}
</main>
${LINKS_SCRIPT}
<script>
(function () {
  'use strict';
  var rows = new Map();          // groupCode -> { data, tr, cells }
  var history = [];
  var clockOffset = 0;           // server time - local time
  var sortKey = 'groupCode', sortDir = 1;
  var filterText = '';
  var lastOrder = '';
  var $ = function (id) { return document.getElementById(id); };
  var tbody = $('rows');

  function serverNow() { return Date.now() + clockOffset; }
  function fmtInt(n) { return Math.round(n).toLocaleString('en-US'); }
  function fmtBytes(n) {
    if (n >= 1048576) return (n / 1048576).toFixed(1) + ' MB';
    if (n >= 1024) return (n / 1024).toFixed(1) + ' kB';
    return Math.round(n) + ' B';
  }
  function fmtAge(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function sortValue(d, key) {
    switch (key) {
      case 'left': return (d.teams[0].tricode + ' ' + d.teams[0].name).toLowerCase();
      case 'right': return (d.teams[1].tricode + ' ' + d.teams[1].name).toLowerCase();
      case 'score': return d.teams[0].score + d.teams[1].score;
      case 'age': return serverNow() - d.lastEventAt;
      default: var v = d[key]; return typeof v === 'string' ? v.toLowerCase() : v;
    }
  }
  function matchesFilter(d) {
    if (!filterText) return true;
    var hay = [d.groupCode, d.matchId, d.teams[0].name, d.teams[0].tricode, d.teams[1].name, d.teams[1].tricode, d.map, d.roundPhase, 'shard ' + d.shard].join(' ').toLowerCase();
    return filterText.split(/\s+/).every(function (w) { return hay.indexOf(w) >= 0; });
  }

  function createRow(code) {
    var tr = el('tr');
    tr.dataset.code = code;
    var c = {
      code: el('td', 'code', code),
      left: el('td', 'team left'), score: el('td', 'score'), right: el('td', 'team right'),
      round: el('td', 'num round'), phase: el('td', 'phase-cell'), map: el('td', 'map'),
      observers: el('td', 'num observers'), auxiliaries: el('td', 'num auxiliaries'), overlays: el('td', 'num overlays'),
      age: el('td', 'num age'), shard: el('td', 'num shard'), link: el('td', 'link')
    };
    c.leftTri = el('span', 'tri'); c.leftName = el('span', 'name'); c.left.append(c.leftTri, c.leftName);
    c.rightTri = el('span', 'tri'); c.rightName = el('span', 'name'); c.right.append(c.rightTri, c.rightName);
    c.scoreLeft = el('span', 'score-left'); c.scoreRight = el('span', 'score-right');
    c.score.append(c.scoreLeft, document.createTextNode(' – '), c.scoreRight);
    c.phaseTag = el('span', 'phase'); c.phase.append(c.phaseTag);
    tr.append(c.code, c.left, c.score, c.right, c.round, c.phase, c.map, c.observers, c.auxiliaries, c.overlays, c.age, c.shard, c.link);
    return { tr: tr, cells: c, data: null, changedAt: 0 };
  }

  function setText(node, text) { if (node.textContent !== text) node.textContent = text; }
  function setClass(node, cls) { if (node.className !== cls) node.className = cls; }
  function upsert(d) {
    var r = rows.get(d.groupCode);
    if (!r) { r = createRow(d.groupCode); rows.set(d.groupCode, r); } // render() places it (the row order changed)
    var prev = r.data, c = r.cells;
    r.data = d;
    setText(c.leftTri, d.teams[0].tricode); setText(c.leftName, d.teams[0].name);
    setText(c.rightTri, d.teams[1].tricode); setText(c.rightName, d.teams[1].name);
    setText(c.scoreLeft, String(d.teams[0].score)); setText(c.scoreRight, String(d.teams[1].score));
    setText(c.round, String(d.roundNumber));
    setText(c.phaseTag, d.roundPhase); setClass(c.phaseTag, 'phase ' + d.roundPhase);
    setText(c.map, d.map);
    setText(c.observers, String(d.observers)); setText(c.auxiliaries, String(d.auxiliaries)); setText(c.overlays, String(d.overlays));
    setText(c.shard, String(d.shard)); if (window.odsLinks) window.odsLinks.cell(c.link, d, r.tr, serverNow() - Date.now());
    setClass(c.code, d.rehearsal ? 'code rehearsal' : 'code');
    if (prev && (prev.teams[0].score !== d.teams[0].score || prev.teams[1].score !== d.teams[1].score)) {
      r.changedAt = Date.now();
      r.tr.classList.add('changed');
    }
  }

  function updateAges() {
    var now = serverNow();
    rows.forEach(function (r) {
      var age = now - r.data.lastEventAt;
      setText(r.cells.age, fmtAge(age));
      setClass(r.cells.age, 'num age' + (age > 300000 ? ' dead' : age > 60000 ? ' stale' : ''));
      if (r.changedAt && Date.now() - r.changedAt > 2000) { r.changedAt = 0; r.tr.classList.remove('changed'); }
    });
    setText($('clock'), new Date(now).toISOString().replace('T', ' ').slice(0, 19) + ' UTC');
  }

  function render() {
    var list = [];
    var shown = 0;
    rows.forEach(function (r) {
      var visible = matchesFilter(r.data);
      if (r.tr.hidden === visible) r.tr.hidden = !visible;
      if (visible) shown++;
      list.push(r);
    });
    list.sort(function (a, b) {
      var silent = (b.data.links && b.data.links.silent ? 1 : 0) - (a.data.links && a.data.links.silent ? 1 : 0); if (silent) return silent;
      var x = sortValue(a.data, sortKey), y = sortValue(b.data, sortKey);
      if (x < y) return -sortDir;
      if (x > y) return sortDir;
      return a.data.groupCode < b.data.groupCode ? -1 : a.data.groupCode > b.data.groupCode ? 1 : 0;
    });
    var order = list.map(function (r) { return r.data.groupCode; }).join('\n');
    if (order !== lastOrder) {
      var frag = document.createDocumentFragment();
      list.forEach(function (r) { frag.append(r.tr); });
      tbody.append(frag);
      lastOrder = order;
    }
    setText($('count'), filterText ? shown + ' of ' + rows.size + ' matches' : rows.size + ' matches');
    $('empty').hidden = rows.size > 0;
    updateAges();
  }

  function setTotals(t) {
    setText($('t-matches'), fmtInt(t.matches));
    setText($('t-observers'), fmtInt(t.sockets.observers));
    setText($('t-auxiliaries'), fmtInt(t.sockets.auxiliaries));
    setText($('t-overlays'), fmtInt(t.sockets.overlays));
    setText($('t-ingest'), fmtInt(t.sockets.ingest));
    setText($('t-broadcast'), fmtInt(t.sockets.broadcast));
    setText($('t-fps'), fmtInt(t.framesPerSecond));
    setText($('t-bps'), fmtBytes(t.frameBytesPerSecond));
    setText($('t-egress'), fmtBytes(t.egressBytesPerSecond));
    var drops = [], total = 0;
    ['ingest', 'shards', 'broadcast'].forEach(function (where) {
      var m = t.dropped[where] || {};
      Object.keys(m).sort().forEach(function (reason) { drops.push([where + ' · ' + reason, m[reason]]); total += m[reason]; });
    });
    setText($('t-dropped'), fmtInt(total));
    var ul = $('drops');
    ul.textContent = '';
    drops.forEach(function (d) { var li = el('li', '', d[0] + ': '); li.append(el('span', '', fmtInt(d[1]))); ul.append(li); });
  }

  function drawChart() {
    var n = 300, pts = history.slice(-n), max = 1;
    pts.forEach(function (v) { if (v > max) max = v; });
    var top = max * 1.1, offset = n - pts.length, line = [];
    pts.forEach(function (v, i) { line.push((offset + i) + ',' + (100 - (v / top) * 100).toFixed(1)); });
    $('chart-line').setAttribute('points', line.join(' '));
    $('chart-area').setAttribute('points', line.length ? offset + ',100 ' + line.join(' ') + ' ' + (n - 1) + ',100' : '');
    setText($('chart-max'), 'max ' + fmtInt(max) + ' frames/s');
  }

  function onFull(msg) {
    clockOffset = msg.serverTime - Date.now();
    var seen = new Set();
    msg.matches.forEach(function (d) { seen.add(d.groupCode); upsert(d); });
    rows.forEach(function (r, code) { if (!seen.has(code)) { r.tr.remove(); rows.delete(code); } });
    history = msg.history.framesPerSecond.slice();
    setTotals(msg.totals);
    drawChart();
    render();
  }

  function onDiff(msg) {
    clockOffset = msg.serverTime - Date.now();
    msg.changed.forEach(upsert);
    msg.removed.forEach(function (code) { var r = rows.get(code); if (r) { r.tr.remove(); rows.delete(code); } });
    history.push(msg.point);
    if (history.length > 300) history.shift();
    setTotals(msg.totals);
    drawChart();
    render();
  }

  document.querySelectorAll('thead th').forEach(function (th) {
    th.addEventListener('click', function () {
      var key = th.dataset.key;
      if (sortKey === key) sortDir = -sortDir; else { sortKey = key; sortDir = 1; }
      document.querySelectorAll('thead th').forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', sortDir > 0 ? 'ascending' : 'descending');
      lastOrder = '';
      render();
    });
  });
  document.querySelector('thead th[data-key="groupCode"]').setAttribute('aria-sort', 'ascending');
  $('filter').addEventListener('input', function (e) { filterText = e.target.value.trim().toLowerCase(); render(); });
  setInterval(updateAges, 1000);

  var status = $('status');
  // Relative to the page, so that a reverse proxy may serve the service under a path prefix.
  var es = new EventSource(location.pathname.replace(/dashboard\/?$/, '') + 'dashboard/events');
  es.addEventListener('open', function () {
    if (!document.body.dataset.streamOpenAt) document.body.dataset.streamOpenAt = performance.now().toFixed(1);
    status.textContent = 'live'; status.className = 'live';
  });
  es.addEventListener('error', function () { status.textContent = 'reconnecting…'; status.className = 'down'; });
  // data-updates / data-render-ms / data-render-total-ms / data-first-update-at / data-first-frame-at:
  // what each update cost the page, when the first snapshot was applied and when the frame showing it
  // began (ms since navigation start), for tests and the bench.
  function timed(handler) {
    return function (e) {
      var t0 = performance.now();
      handler(JSON.parse(e.data));
      var ms = performance.now() - t0, body = document.body.dataset;
      if (!body.updates) {
        body.firstUpdateAt = performance.now().toFixed(1);
        requestAnimationFrame(function () { body.firstFrameAt = performance.now().toFixed(1); });
      }
      body.updates = String(Number(body.updates || 0) + 1);
      body.renderMs = ms.toFixed(2);
      body.renderTotalMs = (Number(body.renderTotalMs || 0) + ms).toFixed(2);
    };
  }
  es.addEventListener('full', timed(onFull));
  es.addEventListener('diff', timed(onDiff));
})();
</script>
</body>
</html>
`;
