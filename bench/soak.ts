// bench:soak — a tournament day: M matches at game pace that start and end continuously for an hour,
// overlays that come and go, an observer blip every few minutes; the service's RSS, open
// descriptors, event-loop p99 and Redis memory sampled over time, with their slopes.
//
//   npm run bench:soak -- [--minutes 60] [--matches 300] [--rate 3] [--overlays 2] [--sample 30]
//                         [--blip-every 180] [--blip-count 10] [--blip-ms 5000] [--churn 0.1]
//                         [--gap 5] [--no-redis] [--docs] [--name soak]
//
// One node with REDIS_URL on a real redis-server (test/helpers/redis-server.ts), so that Redis holds
// what a scaled-out deployment holds (leases, snapshots, directory, sessions, team info) and its
// memory means something; --no-redis runs the embedded default. The load is raw Engine.IO clients
// (bench/lib/eio-client.ts observers, bench/lib/frame-counter.ts overlays) to keep the generator cheap.
// - M slots each play one match after another: logon, the recorded lobby and match_start, then the
//   recorded game at --rate msg/s to its game_end; the observer leaves 2 s later, the slot waits
//   --gap s and starts a new match (a new group code). A slot's first match joins its game part-way
//   (slot i at i/M of it, as an observer started late would), so that ends are spread evenly from
//   the first minute instead of arriving together.
// - Each match has --overlays overlays from its start to its end; every 10 s a --churn share per
//   minute of them leaves and as many new ones open on random live matches.
// - Every --blip-every s, --blip-count observers (mid-game) lose their connection (terminated) and
//   log on again --blip-ms later; the messages due meanwhile are lost (the recording plays on).
// - Every --sample s: the service's RSS (/proc), open descriptors (/proc/<pid>/fd), main-thread
//   event-loop p99 over the interval (/metrics, reset at each scrape), live matches, the RSS above the
//   idle service's per live match (kbPerMatch); Redis
//   used_memory and key count; warnings and errors the service logged (LOG_LEVEL=warn); the
//   machine's 1-minute load average (a shared machine: it explains the loop's peaks).
// Slopes are least-squares fits per hour, over the whole run after the first 10 minutes and over
// its second half (growth that levels off has a second-half slope near 0).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { startRedisServer, type RedisServer } from '../test/helpers/redis-server.js';
import { flag, opt } from './lib/args.js';
import { lineChart } from './lib/chart.js';
import { EioClient, eventPayload } from './lib/eio-client.js';
import { FrameCounter } from './lib/frame-counter.js';
import { jsonLine, machine, RESULTS_DIR, table, writeResults } from './lib/report.js';
import { startServiceProcess } from './lib/service.js';

const MINUTES = Number(opt('minutes', '60'));
const M = Number(opt('matches', '300'));
const RATE = Number(opt('rate', '3'));
const F = Number(opt('overlays', '2'));
const SAMPLE_S = Number(opt('sample', '30'));
const BLIP_EVERY = Number(opt('blip-every', '180')) * 1000;
const BLIP_COUNT = Number(opt('blip-count', '10'));
const BLIP_MS = Number(opt('blip-ms', '5000'));
const CHURN = Number(opt('churn', '0.1'));
const GAP_MS = Number(opt('gap', '5')) * 1000;
const REDIS = !flag('no-redis');
const DOCS = flag('docs');
const NAME = opt('name', 'soak');
const KEY = 'bench-key';

const log = (s: string) => process.stderr.write(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const replay = recordedMatch();
const firstGame = replay.records.findIndex((r) => r.type === 'match_start');
const lobby = replay.records.slice(0, firstGame + 1); // up to and with match_start
const game = replay.records.slice(firstGame + 1); // to game_end, the last record
if (game[game.length - 1]?.type !== 'round_info') throw new Error('the recording should end with round_info game_end');

// ---------------------------------------------------------------- service and Redis
const redis: RedisServer | null = REDIS ? await startRedisServer() : null;
const svc = await startServiceProcess({ ...(redis ? { REDIS_URL: redis.url, NODE_ID: 'soak' } : {}), LOG_LEVEL: 'warn' });
// The idle service's RSS (read 2 s after its start, as bench/broadcast.ts --idle does: its shard
// thread has loaded by then): `kbPerMatch` is each sample's RSS above it per live match (issue 38).
await sleep(2000);
const rssIdle = svc.rssBytes();
const ingest = `http://127.0.0.1:${svc.ports.ingest}`;
const broadcast = `http://127.0.0.1:${svc.ports.broadcast}`;

function info(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\r\n')) { const i = line.indexOf(':'); if (i > 0 && !line.startsWith('#')) out[line.slice(0, i)] = line.slice(i + 1); }
  return out;
}
const fds = (pid: number) => { try { return fs.readdirSync(`/proc/${pid}/fd`).length; } catch { return NaN; } };
/** The service's log lines at warn (40) and error (50+), and its stderr. */
const logged = () => {
  let warnings = 0, errors = 0;
  const firsts: string[] = [];
  const byMsg: Record<string, number> = {};
  for (const l of svc.out) {
    const err = l.startsWith('stderr: ') || /"level":(5|6)\d/.test(l);
    const warn = /"level":4\d/.test(l);
    if (err) errors++; else if (warn) warnings++; else continue;
    if (firsts.length < 10) firsts.push(l.slice(0, 400));
    const msg = `${err ? 'error' : 'warn'}: ${/"msg":"([^"]*)"/.exec(l)?.[1] ?? l.slice(0, 80)}${/"error":"([^"]*)"/.exec(l)?.[1] ? ` (${/"error":"([^"]*)"/.exec(l)![1]})` : ''}`;
    byMsg[msg] = (byMsg[msg] ?? 0) + 1;
  }
  return { warnings, errors, firsts, byMsg };
};

/** An observer logged on to `code` (with the group secret its first logon got, when it logs on again). */
function observerLogon(s: Slot): Promise<EioClient> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { c.close(); reject(new Error('no logon ack')); }, 30_000);
    const c: EioClient = new EioClient({
      url: ingest,
      onOpen: () => c.emit('obs_logon', JSON.stringify({ type: 'authenticate', clientVersion: '0.3.3', obsName: 'Bench', key: KEY, groupCode: s.code, groupSecret: s.secret, leftTeam: replay.header.leftTeam, rightTeam: replay.header.rightTeam })),
      onEvent: (event, text) => {
        if (event !== 'obs_logon_ack') return;
        clearTimeout(timer);
        const ack = JSON.parse(eventPayload(text)) as { value: boolean; reason: string };
        if (!ack.value) { c.close(); reject(new Error(`logon refused: ${ack.reason}`)); return; }
        if (!s.secret) s.secret = ack.reason; // a new match's ack carries its group secret
        resolve(c);
      },
    });
  });
}

// ---------------------------------------------------------------- slots: one match after another
interface Overlay { fc: FrameCounter; frames: number; openedAt: number; slot: Slot }
interface Slot {
  i: number; gen: number; code: string; secret: string; state: 'connecting' | 'live' | 'blip' | 'ending' | 'gap';
  observer: EioClient | null; next: number; origin: number; sent: number; resumeAt: number; overlays: Set<Overlay>;
}
const slots: Slot[] = Array.from({ length: M }, (_, i) => ({ i, gen: 0, code: '', secret: '', state: 'gap', observer: null, next: 0, origin: 0, sent: 0, resumeAt: 0, overlays: new Set() }));
const counts = { started: 0, ended: 0, logonFailed: 0, blips: 0, blipRejoinFailed: 0, overlaysOpened: 0, overlaysClosed: 0, overlaysStarved: 0, sent: 0, lostToBlips: 0, frames: 0 };
const codeOf = (s: Slot) => 'K' + s.i.toString(36).toUpperCase().padStart(2, '0') + s.gen.toString(36).toUpperCase().padStart(3, '0');

function openOverlay(s: Slot): void {
  const o: Overlay = { fc: null as unknown as FrameCounter, frames: 0, openedAt: Date.now(), slot: s };
  o.fc = new FrameCounter({ url: broadcast, groupCode: s.code, onFrame: () => { o.frames++; counts.frames++; } });
  s.overlays.add(o);
  counts.overlaysOpened++;
}
function closeOverlay(o: Overlay): void {
  o.fc.close();
  o.slot.overlays.delete(o);
  counts.overlaysClosed++;
  if (o.frames === 0 && Date.now() - o.openedAt > 10_000) counts.overlaysStarved++;
}

async function startMatch(s: Slot, first: boolean): Promise<void> {
  s.state = 'connecting';
  s.code = codeOf(s);
  s.secret = '';
  try {
    s.observer = await observerLogon(s);
  } catch (err) {
    counts.logonFailed++;
    log(`\n  ${s.code}: ${(err as Error).message}\n`);
    s.gen++; s.state = 'gap'; s.resumeAt = Date.now() + GAP_MS;
    return;
  }
  for (const r of lobby) s.observer.emit('obs_data', JSON.stringify({ ...r, groupCode: s.code }));
  s.next = first ? Math.floor((s.i / M) * (game.length - 50)) : 0;
  s.origin = Date.now(); s.sent = 0; s.state = 'live';
  counts.started++;
  for (let k = 0; k < F; k++) openOverlay(s);
}

function endMatch(s: Slot): void {
  s.state = 'ending';
  setTimeout(() => {
    s.observer?.close(); s.observer = null;
    for (const o of [...s.overlays]) closeOverlay(o);
    counts.ended++;
    s.gen++; s.state = 'gap'; s.resumeAt = Date.now() + GAP_MS;
  }, 2000);
}

function blip(s: Slot): void {
  s.state = 'blip';
  s.observer?.close(); s.observer = null;
  s.resumeAt = Date.now() + BLIP_MS;
  counts.blips++;
}
async function rejoin(s: Slot): Promise<void> {
  s.state = 'connecting';
  try {
    s.observer = await observerLogon(s);
  } catch (err) {
    counts.blipRejoinFailed++;
    log(`\n  ${s.code} after a blip: ${(err as Error).message}\n`);
  }
  s.state = 'live';
}

/** Sends what is due; moves slots between states. Messages due during a blip are lost. */
function tick(): void {
  const now = Date.now();
  for (const s of slots) {
    if (s.state === 'gap' && now >= s.resumeAt) { void startMatch(s, false); continue; }
    if (s.state === 'blip' && now >= s.resumeAt) { void rejoin(s); continue; }
    if (s.state !== 'live' && s.state !== 'blip') continue;
    let ended = false;
    while (!ended && s.origin + (s.sent * 1000) / RATE <= now) {
      const rec = game[s.next];
      if (s.state === 'live' && s.observer) { s.observer.emit('obs_data', JSON.stringify({ obsName: 'Bench', groupCode: s.code, type: rec.type, data: rec.data })); counts.sent++; }
      else counts.lostToBlips++;
      s.next++; s.sent++;
      if (s.next >= game.length) { endMatch(s); ended = true; }
    }
  }
}

function churn(): void {
  const live = slots.filter((s) => s.state === 'live' && s.overlays.size > 0);
  if (!live.length) return;
  const n = Math.round((M * F * CHURN) / 6); // per 10 s
  for (let k = 0; k < n; k++) {
    const from = live[Math.floor(Math.random() * live.length)];
    const o = [...from.overlays][0];
    if (o) closeOverlay(o);
    openOverlay(live[Math.floor(Math.random() * live.length)]);
  }
}

function blipSome(): void {
  const candidates = slots.filter((s) => s.state === 'live' && s.next < game.length - (RATE * BLIP_MS) / 1000 - 30);
  for (let k = 0; k < BLIP_COUNT && candidates.length; k++) blip(candidates.splice(Math.floor(Math.random() * candidates.length), 1)[0]);
}

// ---------------------------------------------------------------- sampling
type Sample = Record<string, number>;
const samples: Sample[] = [];
const genLoop = monitorEventLoopDelay({ resolution: 10 });
genLoop.enable();
const t0 = Date.now();
async function sample(): Promise<Sample> {
  const st = await svc.stats();
  const r = redis ? info(await redis.command('INFO', 'memory')) : {};
  const keys = redis ? Number(/:(\d+)/.exec(await redis.command('DBSIZE'))?.[1] ?? NaN) : NaN;
  const l = logged();
  const s: Sample = {
    min: +((Date.now() - t0) / 60_000).toFixed(2),
    rssMB: +(st.rss / 2 ** 20).toFixed(1), kbPerMatch: st.matches ? Math.round((st.rss - rssIdle) / 1024 / st.matches) : NaN, heapMB: +(st.heapUsed / 2 ** 20).toFixed(1), fds: fds(svc.child.pid!), loopP99: +st.loop.p99.toFixed(1), loopMax: +st.loop.max.toFixed(1),
    liveMatches: st.matches, redisMB: redis ? +(Number(r.used_memory) / 2 ** 20).toFixed(2) : NaN, redisRssMB: redis ? +(Number(r.used_memory_rss) / 2 ** 20).toFixed(1) : NaN, redisKeys: keys,
    started: counts.started, ended: counts.ended, overlays: slots.reduce((a, x) => a + x.overlays.size, 0), blips: counts.blips,
    sent: counts.sent, frames: counts.frames, warnings: l.warnings, errors: l.errors, genLoopP99: +(genLoop.percentile(99) / 1e6).toFixed(1), load1: +os.loadavg()[0].toFixed(1),
  };
  genLoop.reset();
  samples.push(s);
  jsonLine({ bench: 'soak-sample', ...s });
  return s;
}

/** Least-squares slope of `key` per hour over the samples from minute `from`. */
function slope(key: string, from: number): number {
  const pts = samples.filter((s) => s.min >= from && Number.isFinite(s[key]));
  if (pts.length < 3) return NaN;
  const n = pts.length, mx = pts.reduce((a, p) => a + p.min, 0) / n, my = pts.reduce((a, p) => a + p[key], 0) / n;
  const sxy = pts.reduce((a, p) => a + (p.min - mx) * (p[key] - my), 0), sxx = pts.reduce((a, p) => a + (p.min - mx) ** 2, 0);
  return sxx ? (sxy / sxx) * 60 : NaN;
}

// ---------------------------------------------------------------- run
log(`soak: ${M} matches at ${RATE} msg/s, ${F} overlays each, ${MINUTES} min, ${REDIS ? 'one node on Redis' : 'embedded'}; a match is ${(game.length / RATE / 60).toFixed(1)} min of game\n`);
for (let b = 0; b < M; b += 50) await Promise.all(slots.slice(b, b + 50).map((s) => startMatch(s, true)));
const feed = setInterval(tick, 50);
const churner = setInterval(churn, 10_000);
const blipper = setInterval(blipSome, BLIP_EVERY);
await sample();
const end = t0 + MINUTES * 60_000;
while (Date.now() < end) {
  await sleep(Math.min(SAMPLE_S * 1000, Math.max(0, end - Date.now())));
  const s = await sample();
  log(`\r  ${s.min.toFixed(1)}/${MINUTES} min: live ${s.liveMatches}, ended ${s.ended}, rss ${s.rssMB} MB, heap ${s.heapMB} MB, fds ${s.fds}, loop p99 ${s.loopP99} ms, redis ${s.redisMB} MB, errors ${s.errors}      `);
}
clearInterval(feed); clearInterval(churner); clearInterval(blipper);
log('\n');
for (const s of slots) { s.observer?.close(); for (const o of [...s.overlays]) closeOverlay(o); }
const l = logged();
await svc.stop();
await redis?.stop();

const warm = Math.min(10, MINUTES / 3);
const half = MINUTES / 2;
const keys = ['rssMB', 'heapMB', 'fds', 'loopP99', 'redisMB', 'redisKeys', 'liveMatches'];
const slopes = keys.map((k) => ({ metric: k, first: samples[0][k], last: samples[samples.length - 1][k], min: Math.min(...samples.map((s) => s[k])), max: Math.max(...samples.map((s) => s[k])), [`perHourFrom${warm}min`]: slope(k, warm), perHourSecondHalf: slope(k, half) }));
const results = { bench: 'soak', name: NAME, machine: machine(), options: { MINUTES, M, RATE, F, SAMPLE_S, BLIP_EVERY, BLIP_COUNT, BLIP_MS, CHURN, GAP_MS, REDIS, matchMinutes: game.length / RATE / 60 }, counts, logged: l, slopes, samples };
const every = Math.max(1, Math.round(300 / SAMPLE_S)); // one row per 5 minutes
process.stdout.write('\n' + table(samples.filter((_, i) => i % every === 0 || i === samples.length - 1), ['min', 'liveMatches', 'started', 'ended', 'overlays', 'rssMB', 'kbPerMatch', 'heapMB', 'fds', 'loopP99', 'redisMB', 'redisKeys', 'warnings', 'errors', 'genLoopP99', 'load1']) + '\n');
process.stdout.write('\n' + table(slopes, Object.keys(slopes[0])) + '\n');
process.stdout.write('\n' + table([counts], Object.keys(counts)) + '\n');
if (l.firsts.length) process.stdout.write(`\nwarnings/errors logged, by message:\n${Object.entries(l.byMsg).map(([m, n]) => `${String(n).padStart(7)}  ${m}`).join('\n')}\nfirst ones:\n${l.firsts.join('\n')}\n`);
process.stdout.write(`results: ${writeResults(NAME, results)}\n`);

const ticks = Array.from({ length: Math.floor(MINUTES / 10) + 1 }, (_, i) => i * 10).filter((x) => x <= MINUTES);
const pts = (k: string): [number, number][] => samples.filter((s) => Number.isFinite(s[k])).map((s) => [s.min, s[k]]);
const charts: [string, string][] = [
  [`${NAME}-memory`, lineChart(`Soak: service RSS and Redis memory (${M} matches, ${RATE} msg/s)`, 'minutes',
    { name: 'service RSS', color: '#2c7fb8', unit: 'MB', points: pts('rssMB') },
    REDIS ? { name: 'Redis used_memory', color: '#c0392b', unit: 'MB', points: pts('redisMB') } : { name: 'live matches', color: '#c0392b', unit: 'count', points: pts('liveMatches') }, ticks, false)],
  [`${NAME}-loop`, lineChart(`Soak: open descriptors and event-loop p99 (${M} matches)`, 'minutes',
    { name: 'open descriptors', color: '#27ae60', unit: 'count', points: pts('fds') },
    { name: 'event-loop p99', color: '#8e44ad', unit: 'ms', points: pts('loopP99') }, ticks, false)],
];
for (const [name, svg] of charts) {
  const file = DOCS ? path.resolve(import.meta.dirname, `../docs/bench-${name}.svg`) : path.join(RESULTS_DIR, `${name}.svg`);
  fs.writeFileSync(file, svg);
  process.stdout.write(`chart: ${file}\n`);
}
process.exit(0);
