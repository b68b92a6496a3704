// The dashboard's "Rehearse" panel (README, "Rehearsals"): a form that starts a rehearsal (group
// code, the recorded match or an uploaded replay file, speed, starting round, loop, team names,
// tricodes, logo URLs, tool settings as JSON, or a preview code to copy them from) and a list of the
// running rehearsals with pause, resume, seek to a round and stop. It calls the admin API with the
// Bearer token the operator types once into the toolbar's token field (#admin-token,
// dashboard-links-page.ts, which the row actions use too): the state-changing routes take Bearer only
// (rest/admin.ts), and the page cannot read the Basic credentials the browser sent; the token is kept
// in that field only, never stored. Inserted into the page (dashboard-page.ts) as one piece; like the page, no
// template literals in the script, all text through textContent. Its table has no thead: the page's
// sorting handler takes every "thead th" for a column of the matches table.

import { panelHelpers } from '../http/panel-script.js';

export const REHEARSAL_PANEL_HTML = String.raw`
<style>
  #rehearse { margin-top: 20px; }
  #rehearse form { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 8px 12px; align-items: end; }
  #rehearse label { display: flex; flex-direction: column; gap: 2px; font-size: 11px; color: var(--dim); text-transform: uppercase; letter-spacing: .04em; }
  #rehearse input, #rehearse select, #rehearse textarea, #rehearse button { background: var(--bg); color: var(--text); border: 1px solid var(--line); border-radius: 4px; padding: 5px 8px; font: inherit; text-transform: none; letter-spacing: 0; }
  #rehearse textarea { grid-column: 1 / -1; min-height: 48px; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
  #rehearse button { cursor: pointer; border-color: var(--accent); }
  #rehearse label.check { flex-direction: row; align-items: center; gap: 6px; }
  #rh-msg { margin: 8px 0; font-size: 13px; }
  #rh-msg.bad { color: var(--bad); }
  #rh-msg.good { color: var(--good); }
  #rh-list th { text-align: left; font-size: 12px; color: var(--dim); font-weight: 600; padding: 6px 8px; border-bottom: 1px solid var(--line); }
  #rh-list td button { padding: 2px 8px; margin-right: 4px; }
  #rh-list td input { width: 56px; }
  td.code.rehearsal::after { content: " rehearsal"; font-size: 11px; font-weight: 400; color: var(--warn); }
</style>
<section class="panel" id="rehearse">
  <h2>Rehearse</h2>
  <form id="rh-form" autocomplete="off">
    <label>Group code<input id="rh-code" required maxlength="64"></label>
    <label>Recording<select id="rh-recording"><option value="recorded">the recorded 19-round match</option><option value="upload">an uploaded replay file</option></select></label>
    <label>Replay file<input id="rh-file" type="file" accept=".replay,.txt,.json"></label>
    <label>Speed<select id="rh-speed"><option>1</option><option>2</option><option>5</option><option selected>10</option></select></label>
    <label>Start at round (0: agent select)<input id="rh-round" type="number" min="0" value="0"></label>
    <label class="check"><input id="rh-loop" type="checkbox">loop</label>
    <label>Copy teams and tools from preview<input id="rh-preview" placeholder="preview code"></label>
    <label>Left team name<input id="rh-left-name"></label>
    <label>Left tricode<input id="rh-left-tricode" maxlength="16"></label>
    <label>Left logo URL<input id="rh-left-url"></label>
    <label>Right team name<input id="rh-right-name"></label>
    <label>Right tricode<input id="rh-right-tricode" maxlength="16"></label>
    <label>Right logo URL<input id="rh-right-url"></label>
    <textarea id="rh-tools" placeholder='Tool settings (toolsData JSON, optional): {"tournamentInfo": {...}, "seriesInfo": {...}, "seedingInfo": {...}, "sponsorInfo": {...}, "roundWinBox": {...}}'></textarea>
    <button id="rh-start" type="submit">Rehearse</button>
  </form>
  <div id="rh-msg" role="status"></div>
  <table id="rh-list">
    <tbody><tr><th>Group code</th><th>Teams</th><th>State</th><th>Round</th><th>Speed</th><th>Control</th></tr></tbody>
    <tbody id="rh-rows"></tbody>
  </table>
</section>
<script>
(function () {
  'use strict';
  ${panelHelpers('rh-msg', 'admin/rehearsals')}
  function team(side) {
    var name = $('rh-' + side + '-name').value.trim(), tri = $('rh-' + side + '-tricode').value.trim(), url = $('rh-' + side + '-url').value.trim();
    if (!name && !tri && !url) return undefined;
    return { name: name, tricode: tri, url: url };
  }
  function build() {
    var body = { groupCode: $('rh-code').value.trim(), recording: $('rh-recording').value, speed: Number($('rh-speed').value), startRound: Number($('rh-round').value || 0), loop: $('rh-loop').checked };
    var left = team('left'), right = team('right'), preview = $('rh-preview').value.trim(), tools = $('rh-tools').value.trim();
    if (left) body.leftTeam = left;
    if (right) body.rightTeam = right;
    if (preview) body.fromPreview = preview;
    if (tools) body.toolsData = JSON.parse(tools);
    if (body.recording !== 'upload') return Promise.resolve(body);
    var file = $('rh-file').files[0];
    if (!file) return Promise.reject(new Error('Choose a replay file to upload'));
    return file.text().then(function (text) { body.replay = text; return body; });
  }
  $('rh-form').addEventListener('submit', function (e) {
    e.preventDefault();
    if (!token()) { say('Type the admin token (top of the page) first.', false); return; }
    var p;
    try { p = build(); } catch (err) { say('Tool settings: ' + err.message, false); return; }
    p.then(function (body) { return call('POST', '', body); })
      .then(function (r) { say('Rehearsal of ' + r.groupCode + ' started', true); refresh(); })
      .catch(function (err) { say(err.message, false); });
  });
  function act(code, action, body) {
    call('POST', '/' + encodeURIComponent(code) + '/' + action, body)
      .then(function () { say(code + ': ' + action + ' done', true); refresh(); })
      .catch(function (err) { say(code + ': ' + err.message, false); });
  }
  function button(text, onClick) { var b = document.createElement('button'); b.type = 'button'; b.textContent = text; b.addEventListener('click', onClick); return b; }
  function cell(text) { var td = document.createElement('td'); td.textContent = text; return td; }
  // Rounds typed to seek to and not sent yet, by group code: a refresh that lands meanwhile redraws
  // the rows with them, not with the rounds playing.
  var typed = {};
  function seekTyping() { return document.activeElement && document.activeElement.className === 'rh-seek-round'; }
  function render(list) {
    var tbody = $('rh-rows');
    tbody.textContent = '';
    for (var code in typed) if (!list.some(function (r) { return r.groupCode === code; })) delete typed[code]; // stopped meanwhile
    list.forEach(function (r) {
      var tr = document.createElement('tr');
      tr.dataset.code = r.groupCode;
      tr.dataset.state = r.state;
      tr.dataset.round = String(r.round);
      var controls = document.createElement('td');
      var round = document.createElement('input');
      round.type = 'number'; round.min = '0'; round.className = 'rh-seek-round';
      round.value = typed[r.groupCode] !== undefined ? typed[r.groupCode] : String(r.round);
      round.addEventListener('input', function () { typed[r.groupCode] = round.value; });
      controls.append(
        button('Pause', function () { act(r.groupCode, 'pause'); }),
        button('Resume', function () { act(r.groupCode, 'resume'); }),
        round,
        button('Seek', function () { delete typed[r.groupCode]; act(r.groupCode, 'seek', { round: Number(round.value) }); }),
        button('Stop', function () { act(r.groupCode, 'stop'); }));
      var state = r.state + (r.loop ? ' (loop ' + r.loops + ')' : '');
      tr.append(cell(r.groupCode), cell(r.teams.left.tricode + ' vs ' + r.teams.right.tricode), cell(state), cell(r.round + ' / ' + r.rounds), cell(r.speed + '×'), controls);
      tbody.append(tr);
    });
  }
  var busy = false;
  function refresh() {
    if (busy || !token()) return;
    busy = true;
    call('GET', '').then(function (data) { if (!seekTyping()) render(data.rehearsals); }, function () { /* shown on the next action */ })
      .then(function () { busy = false; });
  }
  setInterval(function () {
    // The list is left alone while the operator types a round to seek to.
    if (!seekTyping()) refresh();
  }, 2000);
})();
</script>
`;
