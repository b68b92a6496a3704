// bench:dashboard — the operator dashboard at N live matches: page load time in Debian's chromium
// (playwright-core, /usr/bin/chromium), the update rate and size of its event stream, the page's
// work per update (Chrome DevTools Protocol performance metrics), and what an open dashboard costs
// the service (CPU of all its threads, main-thread event-loop delay) against the same load with no
// dashboard open.
//
//   npm run bench:dashboard -- [--matches 300] [--rate 2] [--duration 20] [--warmup 5] [--loads 5]
//
// Each match has one observer (a raw Engine.IO client, bench/lib/eio-client.ts) that logs on with
// its own team names, sends the recording's lobby records, then the recording's game records in
// order at `rate` messages per second (default 2: the recording's buy-phase average is 2.6/s, its
// whole-match average 1.14/s). Every message moves the match's last-event time, so every row
// changes every second: the dashboard's worst case.
import fs from 'node:fs';
import path from 'node:path';
import { EioClient } from './lib/eio-client.js';
import { jsonLine, machine, percentile, table, writeResults } from './lib/report.js';
import { startServiceProcess, type ServiceProcess } from './lib/service.js';

import { recordedMatch } from '#built/tools/recorded-match.js';
import { opt } from './lib/args.js';
import { sseEvents } from '../test/helpers/sse.js';
import { CHROMIUM, openBrowser } from '../test/helpers/browser.js';

const N = Number(opt('matches', '300'));
const RATE = Number(opt('rate', '2'));
const DURATION = Number(opt('duration', '20')) * 1000;
const WARMUP = Number(opt('warmup', '5')) * 1000;
const LOADS = Number(opt('loads', '5'));
// The page's globals, typed just enough for the page.evaluate callbacks (loading the DOM lib would
// retype fetch and Headers for every file of the typecheck).
interface PageElement { hidden: boolean; textContent: string | null; dataset: Record<string, string | undefined>; querySelector(selector: string): PageElement | null }
declare const document: { querySelector(selector: string): PageElement | null; querySelectorAll(selector: string): ArrayLike<PageElement>; body: PageElement };
declare const performance: { now(): number; getEntriesByType(type: string): Array<{ responseEnd: number }> };

const TOKEN = 'bench-dashboard-token-0000';

const replay = recordedMatch();
const firstGame = replay.records.findIndex((r) => r.type === 'match_start');
const lobby = replay.records.slice(0, firstGame + 1);
const game = replay.records.slice(firstGame + 1).filter((r) => !(r.type === 'round_info' && (r.data as { roundPhase?: string }).roundPhase === 'game_end'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const code = (i: number) => `D${String(i).padStart(5, '0')}`;
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

if (!fs.existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} is missing: apt-get update && apt-get install -y chromium`);
  process.exit(1);
}

// ---------------------------------------------------------------- service and load
const svc: ServiceProcess = await startServiceProcess({
  ADMIN_TOKEN: `bench:${TOKEN}`,
  // The load generator is one address sending far more than one observer would.
  INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000', MAX_SOCKETS_PER_ADDRESS: '0', MAX_CONNECTIONS_PER_ADDRESS: '0',
  MAX_LIVE_MATCHES: String(N * 2), MAX_MATCHES_PER_KEY: String(N * 2),
});
const ingest = `http://127.0.0.1:${svc.ports.ingest}`;
const rest = `http://127.0.0.1:${svc.ports.rest}`;

function observer(groupCode: string, i: number): Promise<EioClient> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${groupCode}: no logon ack`)), 30_000);
    const c: EioClient = new EioClient({
      url: ingest,
      deflate: false,
      onOpen: () => c.emit('obs_logon', JSON.stringify({
        type: 'authenticate', clientVersion: '0.3.3', obsName: 'Bench', key: 'bench-key', groupCode, groupSecret: '',
        leftTeam: { name: `Team ${i * 2 + 1}`, tricode: `L${i % 100}`, url: '', attackStart: true },
        rightTeam: { name: `Team ${i * 2 + 2}`, tricode: `R${i % 100}`, url: '', attackStart: false },
      })),
      onEvent: (event, text) => {
        if (event !== 'obs_logon_ack') return;
        clearTimeout(timer);
        if (!text.includes('\\"value\\":true')) return reject(new Error(`${groupCode}: logon refused ${text}`));
        resolve(c);
      },
    });
  });
}

const observers: EioClient[] = [];
for (let i = 0; i < N; i += 50) {
  observers.push(...(await Promise.all(Array.from({ length: Math.min(50, N - i) }, (_, k) => observer(code(i + k), i + k)))));
}
observers.forEach((o, i) => { for (const r of lobby) o.emit('obs_data', JSON.stringify({ ...r, groupCode: code(i) })); });
// Each match starts at its own place in the recording, so scores, rounds and phases differ.
const cursor = observers.map((_, i) => Math.floor((i / N) * game.length));
let sent = 0;
const interval = setInterval(() => {
  sent += observers.length;
  observers.forEach((o, i) => {
    const rec = game[cursor[i]++ % game.length];
    o.emit('obs_data', JSON.stringify({ obsName: 'Bench', groupCode: code(i), type: rec.type, data: rec.data }));
  });
}, 1000 / RATE);
console.error(`${N} matches, ${RATE} msg/s each; warming up ${WARMUP / 1000} s`);
await sleep(WARMUP);

// ---------------------------------------------------------------- phase A: no dashboard open
async function window(ms: number) {
  await svc.stats(); // resets the loop histogram
  const cpu0 = svc.cpuSeconds();
  const sent0 = sent;
  await sleep(ms);
  const stats = await svc.stats();
  return {
    cpuPercent: ((svc.cpuSeconds() - cpu0) / (ms / 1000)) * 100, loopP50: stats.loop.p50, loopP99: stats.loop.p99, loopMax: stats.loop.max,
    rss: svc.rssBytes(), obsMessagesPerSecond: (sent - sent0) / (ms / 1000),
  };
}
console.error(`no dashboard: ${DURATION / 1000} s`);
const closed = await window(DURATION);

// ---------------------------------------------------------------- the JSON and the stream
const jsonTimes: number[] = [];
let jsonBytes = 0;
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const res = await fetch(`${rest}/admin/matches`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  jsonBytes = (await res.arrayBuffer()).byteLength;
  jsonTimes.push(performance.now() - t0);
}

// ---------------------------------------------------------------- page loads
const browser = await openBrowser({
  viewport: { width: 1440, height: 900 },
  // The credentials a browser has cached after its first prompt (HTTP Basic, the token as password).
  headers: { Authorization: `Basic ${Buffer.from(`bench:${TOKEN}`).toString('base64')}` },
});
const context = browser.context;
const loads: Array<{ wall: number; inPage: number; html: number; firstUpdate: number; firstFrame: number; streamOpen: number; firstRenderMs: number }> = [];
for (let i = 0; i < LOADS; i++) {
  const page = await context.newPage();
  const t0 = performance.now();
  await page.goto(`${rest}/dashboard`);
  await page.waitForFunction((n) => document.querySelectorAll('#rows tr').length >= n && document.body.dataset.firstFrameAt, N, { timeout: 30_000 });
  const wall = performance.now() - t0;
  const inPage = Number(await page.evaluate(() => document.body.dataset.firstFrameAt));
  const stream = await page.evaluate(() => ({ open: Number(document.body.dataset.streamOpenAt), firstRenderMs: Number(document.body.dataset.renderTotalMs) }));
  const html = await page.evaluate(() => performance.getEntriesByType('navigation')[0].responseEnd);
  const firstUpdate = Number(await page.evaluate(() => document.body.dataset.firstUpdateAt));
  loads.push({ wall, inPage, html, firstUpdate, firstFrame: inPage, streamOpen: stream.open, firstRenderMs: stream.firstRenderMs });
  await page.close();
}

// ---------------------------------------------------------------- phase B: one dashboard open
const page = await context.newPage();
await page.goto(`${rest}/dashboard`);
await page.waitForFunction((n) => document.querySelectorAll('#rows tr').length >= n, N, { timeout: 30_000 });
const cdp = await context.newCDPSession(page);
await cdp.send('Performance.enable');
const metrics = async () => Object.fromEntries(((await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> }).metrics.map((m) => [m.name, m.value]));

// A second, raw reader of the event stream: sizes of the events and rows per diff.
const controller = new AbortController();
const events: Array<{ type: string; bytes: number; changed: number; at: number }> = [];
void (async () => {
  const res = await fetch(`${rest}/dashboard/events`, { headers: { Authorization: `Bearer ${TOKEN}` }, signal: controller.signal });
  try {
    for await (const { event: type, data, bytes } of sseEvents(res.body!)) {
      const parsed = JSON.parse(data) as { changed?: unknown[]; matches?: unknown[] };
      events.push({ type, bytes, changed: (parsed.changed ?? parsed.matches ?? []).length, at: Date.now() });
    }
  } catch { /* aborted */ }
})();

await sleep(1500);
const updates0 = Number(await page.evaluate(() => document.body.dataset.updates));
const render0 = Number(await page.evaluate(() => document.body.dataset.renderTotalMs));
const m0 = await metrics();
const eventsFrom = events.length;
console.error(`one dashboard open: ${DURATION / 1000} s`);
// The service's own measure of an update's main-thread cost (build rows, diff, serialize, write).
const updateCosts: number[] = [];
const sampler = setInterval(() => {
  void fetch(`${rest}/admin/matches`, { headers: { Authorization: `Bearer ${TOKEN}` } })
    .then((r) => r.json() as Promise<{ dashboards: { lastUpdateMs: number } }>)
    .then((j) => updateCosts.push(j.dashboards.lastUpdateMs), () => undefined);
}, 1000);
const open = await window(DURATION);
clearInterval(sampler);
const updates = Number(await page.evaluate(() => document.body.dataset.updates)) - updates0;
const renderMs = Number(await page.evaluate(() => document.body.dataset.renderTotalMs)) - render0;
const m1 = await metrics();
controller.abort();
fs.mkdirSync(path.resolve(import.meta.dirname, 'results'), { recursive: true });
await page.screenshot({ path: path.resolve(import.meta.dirname, 'results', `dashboard-${N}.png`) });

await page.close();
console.error(`dashboard closed again: ${DURATION / 1000} s`);
const closedAgain = await window(DURATION);

const seconds = DURATION / 1000;
const diffs = events.slice(eventsFrom).filter((e) => e.type === 'diff');
const full = events.find((e) => e.type === 'full');
const gaps = diffs.slice(1).map((e, i) => e.at - diffs[i].at);
const rendererBusy = (name: string) => ((m1[name] ?? 0) - (m0[name] ?? 0)) / seconds * 1000; // ms per second

const result = {
  machine: machine(),
  matches: N, ratePerMatch: RATE, durationS: seconds,
  pageLoad: {
    rowsRenderedMsMedian: median(loads.map((l) => l.inPage)),
    rowsRenderedMsMax: Math.max(...loads.map((l) => l.inPage)),
    wallMsMedian: median(loads.map((l) => l.wall)),
    htmlResponseEndMsMedian: median(loads.map((l) => l.html)),
    firstSnapshotAppliedMsMedian: median(loads.map((l) => l.firstUpdate)),
    eventStreamOpenMsMedian: median(loads.map((l) => l.streamOpen)),
    firstSnapshotScriptMsMedian: median(loads.map((l) => l.firstRenderMs)),
    loads: loads.length,
  },
  stream: {
    updatesPerSecondInPage: updates / seconds,
    diffsPerSecond: diffs.length / seconds,
    gapMsP50: percentile([...gaps].sort((a, b) => a - b), 50),
    gapMsMax: Math.max(...gaps),
    rowsPerDiffMedian: median(diffs.map((d) => d.changed)),
    diffBytesMedian: median(diffs.map((d) => d.bytes)),
    fullBytes: full?.bytes ?? 0,
  },
  page: {
    scriptMsPerUpdate: updates > 0 ? renderMs / updates : 0,
    rendererScriptMsPerSecond: rendererBusy('ScriptDuration'),
    rendererLayoutMsPerSecond: rendererBusy('LayoutDuration'),
    rendererStyleMsPerSecond: rendererBusy('RecalcStyleDuration'),
    rendererTaskMsPerSecond: rendererBusy('TaskDuration'),
  },
  adminMatchesJson: { bytes: jsonBytes, msMedian: median(jsonTimes) },
  service: { noDashboard: closed, oneDashboard: open, noDashboardAgain: closedAgain, updateBuildMsMedian: median(updateCosts), updateBuildMsMax: Math.max(...updateCosts) },
};

console.log(table([
  { measure: `page load: ${N} rows on screen (ms from navigation, median)`, value: result.pageLoad.rowsRenderedMsMedian },
  { measure: 'page load: rows on screen (ms, max of loads)', value: result.pageLoad.rowsRenderedMsMax },
  { measure: 'page load: event stream open (ms, median)', value: result.pageLoad.eventStreamOpenMsMedian },
  { measure: 'page load: script time of the first snapshot (ms, median)', value: result.pageLoad.firstSnapshotScriptMsMedian },
  { measure: 'page load: HTML response end (ms, median)', value: result.pageLoad.htmlResponseEndMsMedian },
  { measure: 'page load: first snapshot applied (ms, median)', value: result.pageLoad.firstSnapshotAppliedMsMedian },
  { measure: 'updates/s applied by the page', value: result.stream.updatesPerSecondInPage },
  { measure: 'gap between diffs (ms, p50 / max)', value: `${result.stream.gapMsP50} / ${result.stream.gapMsMax}` },
  { measure: 'rows per diff (median)', value: result.stream.rowsPerDiffMedian },
  { measure: 'diff size (bytes, median)', value: result.stream.diffBytesMedian },
  { measure: 'full snapshot (bytes)', value: result.stream.fullBytes },
  { measure: 'page script per update (ms)', value: result.page.scriptMsPerUpdate },
  { measure: 'renderer busy (task ms per s)', value: result.page.rendererTaskMsPerSecond },
  { measure: 'GET /admin/matches (bytes / ms median)', value: `${jsonBytes} / ${result.adminMatchesJson.msMedian.toFixed(1)}` },
  { measure: 'service: update build+write on the main thread (ms, median / max)', value: `${median(updateCosts).toFixed(1)} / ${Math.max(...updateCosts).toFixed(1)}` },
  { measure: 'service CPU %, closed / open / closed', value: `${closed.cpuPercent.toFixed(1)} / ${open.cpuPercent.toFixed(1)} / ${closedAgain.cpuPercent.toFixed(1)}` },
  { measure: 'obs msgs/s sent, closed / open / closed', value: `${closed.obsMessagesPerSecond.toFixed(0)} / ${open.obsMessagesPerSecond.toFixed(0)} / ${closedAgain.obsMessagesPerSecond.toFixed(0)}` },
  { measure: 'main loop delay p99 ms, closed / open / closed', value: `${closed.loopP99.toFixed(1)} / ${open.loopP99.toFixed(1)} / ${closedAgain.loopP99.toFixed(1)}` },
], ['measure', 'value']));
jsonLine({ bench: 'dashboard', ...result });
console.error(`results: ${writeResults(`dashboard-${N}`, result)}`);

clearInterval(interval);
await browser.close();
for (const o of observers) o.close();
await svc.stop();
process.exit(0);
