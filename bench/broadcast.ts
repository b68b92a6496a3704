// bench:broadcast — M matches, each with one observer streaming the recorded match's messages at
// a fixed rate (the recording's mix and bursts, its gaps scaled) and F overlays.
//
//   npm run bench:broadcast -- [--matches 50] [--overlays 2] [--rate 20] [--duration 20]
//                              [--warmup 5] [--shards N] [--compression on|off] [--sample 50]
//                              [--pattern uniform|recorded] [--ramp [--steps 50,100,...]]
//                              [--idle [--idle-window 10] [--idle-until 45]] [--name NAME]
//                              [--pin 0:1] [--counters on|off] [--feeds]
//                              [--target http://127.0.0.1:5100 [--target-ports 5100,5101,5200] [--target-pid N]]
//                              [--timeline FILE]
//
// Patterns: `uniform` sends the recording's messages in order (its mix of types) at a fixed
// interval of 1000/rate ms; `recorded` keeps the recording's gaps and bursts, scaled so the
// average is `rate` (bursts then put several messages into one 100 ms window).
//
// Per step it prints obs messages/s sent, match_data frames/s received against the frames due,
// the delivery ratio, latency from an obs_data send to the first frame reflecting it (a probe
// value in a scoreboard row's money, read by a sample of overlays), bytes on the wire per frame
// (after the handshake, permessage-deflate negotiated as a browser does), server CPU (all threads,
// /proc) per delivered frame, RSS, and the main thread's event-loop delay.
// --ramp raises M until delivery < 0.95 or p99 > 250 ms and reports the largest M that held.
// --idle measures memory: M matches in agent select, each with its observer connected (RSS 1–6 s
// after every lobby message was applied: kbPerMatch); then the server's CPU (all threads, % of
// one core) over --idle-window seconds with nothing sent (the fixed per-match cost); then RSS once
// the matches idled --idle-until seconds (kbPerMatchIdle: V8 gives the new space the lobby burst
// grew and the burst's garbage back ~20 s after it, docs/perf/memory.md). BENCH_ENTRY=<path to dist/main/index.js> runs another tree's build (A/B).
// --pin S:G pins the service (every thread) to core S and this generator to core G (taskset): the
// service's CPU share of its core at a fixed load, without the two competing for cores. Overlays
// other than the latency sample only count their frames (lib/frame-counter.ts: deflate negotiated,
// nothing inflated) unless --counters off. The CPU is also split by thread and user/kernel
// (lib/threads.ts): µs per observer message on the main thread, the shard threads, V8/libuv helpers.
// --feeds: a vMix-like poller per match on the generator's side (lib/feed-pollers.ts: the scoreboard and
// players feeds, JSON, once a second each with If-None-Match); its answers are counted (feed200, feed304).
// --feed-matches N: only the first N matches are polled (the matches on air; default all).
// --target drives a server this benchmark did not start (the server we replace: Spectra-Server on
// 5100/5101/5200, `INSECURE=true REQUIRE_AUTH_KEY=false node dist/index.js`): nothing is spawned,
// CPU, RSS and the thread split come from /proc/<--target-pid> (NaN without it), --pin pins that
// process; what only our /metrics tells (event-loop delay, cycles, frame forms) is NaN. Group codes
// carry a tag of the run, since a running server keeps a match's code for 30 minutes; restart the
// target between runs for figures that start from an empty server. --idle against a target settles
// for a fixed max(5 s, 5 ms per match) instead of reading the applied-messages counter. A target's
// overlays default to full clients (--counters off): the reference deflates its handshake too.
// --timeline FILE (one step): the generator's side of a burst timeline per 100 ms (lib/timeline.ts;
// the service's side: lib/burst-probe.mjs; joined by bench/burst-report.ts).
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { lineChart } from './lib/chart.js';
import { EioClient, loggedOnObserver } from './lib/eio-client.js';
import { FrameCounter } from './lib/frame-counter.js';
import { startFeedPollers } from './lib/feed-pollers.js';
import { breakdown, pin, threadCpu } from './lib/threads.js';
import { consumeProbes, PROBE_BASE, withProbe } from './lib/probes.js';
import { jsonLine, machine, percentile, RESULTS_DIR, table, writeResults } from './lib/report.js';
import { startServiceProcess, type HostStats } from './lib/service.js';
import { targetServer, type TargetServer } from './lib/target.js';
import { GeneratorTimeline } from './lib/timeline.js';

import { recordedMatch } from '#built/tools/recorded-match.js';
import { flag, opt } from './lib/args.js';

// ---------------------------------------------------------------- options
const F = Number(opt('overlays', '2'));
const RATE = Number(opt('rate', '20'));
const DURATION = Number(opt('duration', '20')) * 1000;
const WARMUP = Number(opt('warmup', '5')) * 1000;
const SHARDS = opt('shards', '');
const COMPRESSION = opt('compression', 'on') !== 'off';
const SAMPLE = Number(opt('sample', '50'));
const RAMP = flag('ramp');
const IDLE = flag('idle');
const IDLE_WINDOW = Number(opt('idle-window', '10')) * 1000;
const IDLE_UNTIL = Number(opt('idle-until', '45')) * 1000;
const STEPS = opt('steps', RAMP ? '50,100,150,200,250,300,400,500,700,1000,1300,1600,2000' : opt('matches', IDLE ? '1000' : '50')).split(',').map(Number);
const PATTERN = opt('pattern', 'uniform') === 'recorded' ? 'recorded' : 'uniform';
const PIN = opt('pin', '');
const FEEDS = flag('feeds');
const FEED_MATCHES = Number(opt('feed-matches', '0'));
const NAME = opt('name', IDLE ? 'memory' : RAMP ? `ramp-${RATE}` : `broadcast-${RATE}`);
const TARGET = opt('target', '');
const TARGET_PORTS = opt('target-ports', '5100,5101,5200');
const TARGET_PID = opt('target-pid', '') ? Number(opt('target-pid', '')) : null;
// A running server keeps a match's group code after its observer left: a tag per run keeps codes new.
// The reference compresses every message, the handshake's too, with a shared deflate window: a
// counter that inflates nothing cannot log on there, so a target's overlays are full clients.
const COUNTERS = opt('counters', TARGET ? 'off' : 'on') !== 'off';
const TIMELINE = opt('timeline', '');
const RUN_TAG = TARGET ? (Date.now() % 1296).toString(36).toUpperCase().padStart(2, '0') : '';

// ---------------------------------------------------------------- the recorded messages
const replay = recordedMatch();
const firstGame = replay.records.findIndex((r) => r.type === 'match_start');
const lobby = replay.records.slice(0, firstGame); // map, roster: sent once at logon
const game = replay.records.slice(firstGame + 1).filter((r) => !(r.type === 'round_info' && (r.data as { roundPhase?: string }).roundPhase === 'game_end'));
const gameSpanMs = Number(game[game.length - 1].timestamp) - Number(game[0].timestamp);
const recordedRate = game.length / (gameSpanMs / 1000);

interface MatchLoad {
  code: string;
  observer: EioClient;
  overlays: (EioClient | FrameCounter)[];
  next: number; // index into game
  origin: number; // wall time that game[0] maps to in this loop
  loopStart: number; // recorded time of game[next] loop start
  probe: number;
  sentAt: Map<number, number>;
  sent: number; // messages sent since the loop start
  // Frames due: the service's rule replayed over this match's send times (at most one frame per
  // 100 ms, on the leading edge, a pending change going out when the 100 ms have passed).
  due: number;
  lastFrameAt: number;
  pending: boolean;
}

function countDue(m: MatchLoad, t: number): void {
  if (m.pending && t >= m.lastFrameAt + 100) { m.due++; m.lastFrameAt += 100; m.pending = false; }
  if (t >= m.lastFrameAt + 100) { m.due++; m.lastFrameAt = t; } else m.pending = true;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function connectObserver(url: string, code: string): Promise<EioClient> {
  return loggedOnObserver(url, code, 'bench-key', replay.header);
}

interface StepResult { [k: string]: unknown }

/** Our service, spawned for the step (the default), or the --target. */
async function startTarget(): Promise<TargetServer> {
  if (TARGET) return targetServer(TARGET, TARGET_PORTS, TARGET_PID);
  const svc = await startServiceProcess({ ...(SHARDS ? { SHARD_WORKERS: SHARDS } : {}), COMPRESSION: String(COMPRESSION), LOG_LEVEL: 'error' });
  return {
    pid: svc.child.pid!,
    urls: { ingest: `http://127.0.0.1:${svc.ports.ingest}`, broadcast: `http://127.0.0.1:${svc.ports.broadcast}`, rest: `http://127.0.0.1:${svc.ports.rest}` },
    cpuSeconds: () => svc.cpuSeconds(), rssBytes: () => svc.rssBytes(), stats: () => svc.stats(), stop: () => svc.stop(),
  };
}

const NO_STATS: HostStats = { loop: { p50: NaN, p99: NaN, max: NaN }, rss: NaN, matches: NaN, applied: NaN, framesPublished: NaN, cycleSeconds: NaN, cycles: NaN,
  heapUsed: NaN, broadcast: { deliveries: NaN, deltas: NaN, keyframes: NaN, plain: NaN, polling: NaN, skipped: NaN } };

async function runStep(M: number): Promise<StepResult> {
  const svc = await startTarget();
  if (PIN) {
    const [svcCore, genCore] = PIN.split(':');
    if (svc.pid !== null) pin(svc.pid, svcCore);
    pin(process.pid, genCore);
  }
  const stats = async () => (await svc.stats()) ?? NO_STATS;
  const ingest = svc.urls.ingest;
  const broadcast = svc.urls.broadcast;
  // The banner comes before the shard threads have loaded and compiled their modules (~15 MB
  // less than a second later): --idle reads its baseline once they have.
  if (IDLE) await sleep(2000);
  const rssBefore = svc.rssBytes();
  const matches: MatchLoad[] = [];
  let measuring = false;
  let framesReceived = 0;
  let framesBytes = 0;
  const latencies: number[] = [];
  let sampled = 0;
  const rawFramesSeen: number[] = [];
  let pollers: ReturnType<typeof startFeedPollers> | undefined;
  const timeline = TIMELINE ? new GeneratorTimeline(TIMELINE) : null;
  try {
    // Connect observers (and lobby data), then overlays, in batches to avoid a connect storm.
    const BATCH = 50;
    for (let base = 0; base < M; base += BATCH) {
      await Promise.all(Array.from({ length: Math.min(BATCH, M - base) }, async (_, k) => {
        const idx = base + k;
        const code = 'B' + RUN_TAG + idx.toString(36).toUpperCase().padStart(5 - RUN_TAG.length, '0');
        const observer = await connectObserver(ingest, code);
        for (const r of lobby) observer.emit('obs_data', JSON.stringify({ ...r, groupCode: code }));
        const m: MatchLoad = { code, observer, overlays: [], next: 0, origin: 0, loopStart: Number(game[0].timestamp), probe: PROBE_BASE, sentAt: new Map(), sent: 0, due: 0, lastFrameAt: -Infinity, pending: false };
        matches.push(m);
      }));
      process.stderr.write(`\r  M=${M}: ${Math.min(base + BATCH, M)} observers`);
    }
    if (IDLE) {
      // Read RSS once every match exists and has applied its lobby data: the observers' lobby
      // messages beyond the per-socket budget wait in their backlogs for seconds, so a fixed 3 s
      // sleep read a state with part of them still queued. Then the median of 10 samples over 5 s
      // (RSS moves by tens of MB with GC timing).
      const settleStart = Date.now();
      let settled = await stats();
      if (TARGET) await sleep(Math.max(5000, M * 5)); // no counter of applied messages to wait for
      else {
        while ((settled.matches < M || settled.applied < M * lobby.length) && Date.now() - settleStart < 60_000) {
          await sleep(250);
          settled = await stats();
        }
        if (settled.matches < M || settled.applied < M * lobby.length) throw new Error(`not settled after 60 s: ${settled.matches} matches, ${settled.applied} of ${M * lobby.length} lobby messages applied`);
      }
      const settleMs = Date.now() - settleStart;
      await sleep(1000);
      const samples: number[] = [];
      for (let k = 0; k < 10; k++) { samples.push(svc.rssBytes()); await sleep(500); }
      const rss = percentile([...samples].sort((a, b) => a - b), 50);
      // Server CPU while nothing happens (every match settled): the fixed cost of idle matches.
      const cpu0 = svc.cpuSeconds();
      const t0 = Date.now();
      await sleep(IDLE_WINDOW);
      const idleCpuPct = ((svc.cpuSeconds() - cpu0) / ((Date.now() - t0) / 1000)) * 100;
      // Idle for longer: the median of the samples of the last 5 s before --idle-until.
      const late: number[] = [];
      while (Date.now() - settleStart - settleMs < IDLE_UNTIL) {
        late.push(svc.rssBytes());
        if (late.length > 10) late.shift();
        await sleep(500);
      }
      const rssIdle = percentile([...late].sort((a, b) => a - b), 50);
      const result = {
        M, settleMs, rssBefore, rssAfter: rss, rssMin: Math.min(...samples), rssMax: Math.max(...samples), kbPerMatch: (rss - rssBefore) / 1024 / M, idleCpuPct,
        rssIdle, kbPerMatchIdle: (rssIdle - rssBefore) / 1024 / M,
      };
      process.stderr.write('\n');
      return result;
    }
    for (const m of matches) {
      for (let f = 0; f < F; f++) {
        const sample = f === 0 && sampled < SAMPLE;
        if (sample) sampled++;
        if (!sample && COUNTERS) {
          m.overlays.push(new FrameCounter({ url: broadcast, groupCode: m.code, onFrame: (bytes) => { if (measuring) { framesReceived++; framesBytes += bytes; timeline?.frame(Date.now()); } } }));
          continue;
        }
        const c = new EioClient({
          url: broadcast,
          onOpen: () => c.emit('logon', JSON.stringify({ groupCode: m.code })),
          onEvent: (event, text, length) => {
            if (event !== 'match_data') return;
            if (measuring) {
              framesReceived++;
              framesBytes += length;
              timeline?.frame(Date.now());
            }
            if (!sample) return;
            // Probes are consumed during the warm-up too, so none is counted late.
            consumeProbes(text, m.sentAt, measuring, latencies, timeline ? (s, r) => timeline.probe(s, r) : undefined);
          },
        });
        m.overlays.push(c);
      }
    }
    await sleep(1000 + M * 2);
    if (FEEDS) {
      if (!svc.urls.rest) throw new Error('--feeds needs the REST port (--target-ports ingest,rest,broadcast)');
      pollers = startFeedPollers(svc.urls.rest, matches.slice(0, FEED_MATCHES > 0 ? FEED_MATCHES : matches.length).map((m) => m.code));
    }
    process.stderr.write(`\r  M=${M}: ${matches.length} observers, ${matches.length * F} overlays; warming up ${Math.max(WARMUP, M * 20) / 1000}s`);

    // Feed: every 10 ms, each match sends the records that are due (recorded gaps / speed).
    const speed = RATE / recordedRate;
    const start = Date.now();
    matches.forEach((m, i) => { m.origin = start + (i * 1000) / M; }); // stagger the matches
    let sent = 0;
    const feed = setInterval(() => {
      const now = Date.now();
      for (const m of matches) {
        for (;;) {
          const rec = game[m.next];
          const due = PATTERN === 'uniform' ? m.origin + (m.sent * 1000) / RATE : m.origin + (Number(rec.timestamp) - m.loopStart) / speed;
          if (due > now) break;
          const data = withProbe(m, rec.type, rec.data, now);
          m.observer.emit('obs_data', JSON.stringify({ obsName: 'Bench', groupCode: m.code, type: rec.type, data }));
          if (measuring) { sent++; countDue(m, now); timeline?.sent(now); }
          m.next++;
          m.sent++;
          if (m.next >= game.length) { m.next = 0; m.sent = 0; m.origin = now; m.loopStart = Number(game[0].timestamp); }
        }
        if (m.sentAt.size > 2000) m.sentAt.clear();
      }
    }, 10);

    // Connecting hundreds of overlays ends in a burst of keyframes and lobby frames: let the
    // warm-up grow with M so that the measurement starts in the steady state.
    await sleep(Math.max(WARMUP, M * 20));
    // Measure.
    const bytesStart = matches.map((m) => m.overlays.map((f) => f.bytesSinceOpen()));
    const hostStart = await stats(); // resets the event-loop histogram
    const genLoop = monitorEventLoopDelay({ resolution: 10 });
    genLoop.enable();
    const cpu0 = svc.cpuSeconds();
    const threads0 = svc.pid !== null ? threadCpu(svc.pid) : new Map();
    const t0 = Date.now();
    measuring = true;
    timeline?.start();
    if (pollers) pollers.measuring.on = true;
    let lastReport = t0;
    while (Date.now() - t0 < DURATION) {
      await sleep(250);
      if (Date.now() - lastReport >= 1000) {
        lastReport = Date.now();
        process.stderr.write(`\r  M=${M}: ${((Date.now() - t0) / 1000).toFixed(0)}/${DURATION / 1000}s sent ${sent} frames ${framesReceived} lat samples ${latencies.length}   `);
      }
    }
    measuring = false;
    timeline?.stop();
    if (pollers) pollers.measuring.on = false;
    const t1 = Date.now();
    const cpu1 = svc.cpuSeconds();
    // A target is one Node thread (plus V8's and libuv's): no shard thread to tell apart.
    const parts = svc.pid !== null ? breakdown(svc.pid, threads0, threadCpu(svc.pid), TARGET ? 0 : Number(SHARDS || 1)) : {};
    const host = await stats();
    clearInterval(feed);
    const seconds = (t1 - t0) / 1000;
    let wireBytes = 0;
    matches.forEach((m, i) => m.overlays.forEach((f, j) => { wireBytes += f.bytesSinceOpen() - bytesStart[i][j]; }));
    const due = matches.reduce((a, m) => a + m.due + (m.pending ? 1 : 0), 0) * F;
    latencies.sort((a, b) => a - b);
    const cpuSeconds = cpu1 - cpu0;
    process.stderr.write('\n');
    void rawFramesSeen;
    return {
      M, F, rate: RATE, pattern: PATTERN, shards: SHARDS || 'default', compression: COMPRESSION,
      obsPerSec: sent / seconds,
      framesPerSec: framesReceived / seconds,
      duePerSec: due / seconds,
      delivery: due ? framesReceived / due : 0,
      p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? NaN,
      latencySamples: latencies.length,
      wireBytesPerFrame: framesReceived ? wireBytes / framesReceived : 0,
      textBytesPerFrame: framesReceived ? framesBytes / framesReceived : 0,
      cpuPct: (cpuSeconds / seconds) * 100,
      cpuMicrosPerFrame: framesReceived ? (cpuSeconds * 1e6) / framesReceived : NaN,
      cpuMicrosPerMessage: sent ? (cpuSeconds * 1e6) / sent : NaN,
      // µs per observer message, by thread and user/kernel (lib/threads.ts)
      ...Object.fromEntries(Object.entries(parts).map(([k, v]) => [`${k}PerMsg`, sent ? (v * 1e6) / sent : NaN])),
      pin: PIN || 'none', counters: COUNTERS, target: TARGET || 'spawned',
      // the shards' periodic cycles (snapshot rounds included), wall time, per observer message
      cycleMicrosPerMsg: sent ? ((host.cycleSeconds - hostStart.cycleSeconds) * 1e6) / sent : NaN,
      rssMB: svc.rssBytes() / 2 ** 20,
      loopP50: host.loop.p50, loopP99: host.loop.p99, loopMax: host.loop.max,
      generatorLoopP99: genLoop.percentile(99) / 1e6,
      deltas: host.broadcast.deltas, keyframes: host.broadcast.keyframes, skipped: host.broadcast.skipped,
      ...(pollers ? { feed200: pollers.counts.ok, feed304: pollers.counts.notModified, feedOther: pollers.counts.other, feedErrors: pollers.counts.errors } : {}),
    };
  } finally {
    pollers?.stop();
    for (const m of matches) { m.observer.close(); for (const f of m.overlays) f.close(); }
    await svc.stop();
  }
}

const held = (r: StepResult) => (r.delivery as number) >= 0.95 && (r.p99 as number) <= 250;
const results: StepResult[] = [];
for (const M of STEPS) {
  const r = await runStep(M);
  results.push(r);
  jsonLine({ bench: 'broadcast', ...r });
  if (RAMP && !held(r)) break;
}
const cols = IDLE ? ['M', 'settleMs', 'rssBefore', 'rssAfter', 'rssMin', 'rssMax', 'kbPerMatch', 'idleCpuPct', 'rssIdle', 'kbPerMatchIdle'] : ['M', 'obsPerSec', 'framesPerSec', 'duePerSec', 'delivery', 'p50', 'p95', 'p99', 'max', 'wireBytesPerFrame', 'cpuPct', 'cpuMicrosPerFrame', 'rssMB', 'loopP99'];
const partCols = ['M', 'cpuMicrosPerMessage', 'mainUserPerMsg', 'mainKernelPerMsg', 'shardUserPerMsg', 'shardKernelPerMsg', 'helpersUserPerMsg', 'helpersKernelPerMsg', 'cycleMicrosPerMsg'];
process.stdout.write('\n' + table(results, cols) + '\n');
if (!IDLE) process.stdout.write('\n' + table(results, partCols) + '\n');
const out: Record<string, unknown> = { bench: 'broadcast', name: NAME, machine: machine(), options: { F, RATE, PATTERN, DURATION, WARMUP, SHARDS, COMPRESSION, SAMPLE, RAMP, IDLE, PIN, COUNTERS, FEEDS, FEED_MATCHES, entry: TARGET ? `target ${TARGET}` : process.env.BENCH_ENTRY ?? 'dist' }, results };
if (RAMP) {
  const ok = results.filter(held);
  out.largestHeld = ok.length ? ok[ok.length - 1].M : 0;
  process.stdout.write(`largest M held (delivery ≥ 0.95, p99 ≤ 250 ms): ${out.largestHeld}\n`);
}
process.stdout.write(`results: ${writeResults(NAME, out)}\n`);
if (!IDLE && results.length > 1) {
  const svg = lineChart(`p99 latency and server CPU vs matches (F=${F}, ${RATE} msg/s)`, 'matches (M)',
    { name: 'p99 latency', color: '#c0392b', unit: 'ms', points: results.map((r) => [r.M as number, r.p99 as number]) },
    { name: 'server CPU', color: '#2c7fb8', unit: '% of one core', points: results.map((r) => [r.M as number, r.cpuPct as number]) });
  const file = path.join(RESULTS_DIR, `${NAME}.svg`);
  fs.writeFileSync(file, svg);
  process.stdout.write(`chart: ${file}\n`);
}
process.exit(0);
