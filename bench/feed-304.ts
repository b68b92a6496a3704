// bench/feed-304.ts — a feed poll answered 304, the service against its floor in one sitting (issue
// 38: at most 1.25× the bare uWebSockets.js server's poll). The same pollers (lib/feed-pollers.ts:
// per match, two JSON feeds, each polled once a second with If-None-Match, keep-alive, staggered)
// against the service and against bench/feed-floor.ts's bare server answering every poll 304 (its
// ETag never changes).
//
// The service: `M` copies of the recorded match played to record `--records` and left there, under
// TRUST_REPLAY_TIMESTAMPS (the scoreboard's clock is the match's own and stands still between frames),
// so after each source's first poll every answer is a 304 of an unchanged match: the lookup, the
// ETag compare and the answer.
//
// Both servers run at once, pinned to the same core, and are polled in turn: `--rounds` rounds of a
// `--window` s window each (a settling second after each switch is not counted). A server's CPU in
// the windows the other one is polled is its idle CPU (its timers, the shards' cycles, the metrics),
// subtracted at the same rate for `netMicrosPerPoll`; `mainNetMicrosPerPoll` is the same for the main
// thread alone (the one that answers HTTP; `mainMicrosPerPollByRound`: its gross figure in each
// round, to see warm-up and drift). Each round also has its own net figure (its polled window less
// the same round's idle rate), and `medianRatio` / `medianMainRatio` compare their medians: one
// collection then moves one round, not the run (docs/perf/rest.md, "The method"). CPU is read from
// schedstat (exact), not stat's 10 ms ticks. Polled in turn because this VM's cost of a loopback poll
// drifts by ±25 % within minutes: one server after the other read 75–133 µs for the same floor.
// A server waits a window and three settling half-seconds between its windows: under uWS's idle
// timeout (8–12 s), so its keep-alive connections stay open (`connects` counts polls that had to
// open one in a measured window: 0 when they all stayed open).
//
//   npx tsx bench/feed-304.ts --matches 200 --pin 0:1 [--rounds 8] [--window 4] [--records 400] [--warmup-rounds 3]
import { fork } from 'node:child_process';
import { playReplay } from '#built/tools/replay-client.js';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { opt } from './lib/args.js';
import { startFeedPollers } from './lib/feed-pollers.js';
import { jsonLine, machine, table, writeResults } from './lib/report.js';
import { startServiceProcess } from './lib/service.js';
import { pin, threadRuntime } from './lib/threads.js';

const M = Number(opt('matches', '200'));
const ROUNDS = Number(opt('rounds', '8'));
const WINDOW = Number(opt('window', '4'));
const RECORDS = Number(opt('records', '400'));
const WARMUP_ROUNDS = Number(opt('warmup-rounds', '3'));
const [SERVER_CORE, POLLER_CORE] = opt('pin', '0:1').split(':');
const SETTLE_S = 0.5;
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

/** CPU seconds of a process: all its threads, and its main thread (the one that answers HTTP); exact (schedstat), not in ticks. */
const cpuOf = (pid: number) => {
  const at = threadRuntime(pid);
  let all = 0;
  for (const t of at.values()) all += t;
  return { all, main: at.get(pid) ?? 0 };
};

interface Window { all: number; main: number; s: number; polls: number }
interface Server { name: string; pid: number; pollers: ReturnType<typeof startFeedPollers>; polled: Window; idle: Window; rounds: number[]; byRound: Array<{ polled: Window; idle: Window }> }

const codes = Array.from({ length: M }, (_, i) => 'P' + i.toString(36).toUpperCase().padStart(5, '0'));
pin(process.pid, POLLER_CORE);

// The service.
const svc = await startServiceProcess({ INSECURE: 'true', TRUST_REPLAY_TIMESTAMPS: 'true', LOG_LEVEL: 'error' });
pin(svc.child.pid!, SERVER_CORE);
const svcStartedAt = Date.now(); // (≈ the service's V8 clock of --trace-gc, which starts a fraction of a second before)
/** Each counted window: the server polled, from and to in seconds since the service started (to place --trace-gc's collections). */
const windows: Array<{ server: string; from: number; to: number }> = [];
const replay = recordedMatch();
const sockets = [];
for (let i = 0; i < codes.length; i += 20) {
  const played = await Promise.all(codes.slice(i, i + 20).map((groupCode) => playReplay(replay, { url: `http://127.0.0.1:${svc.ports.ingest}`, key: 'bench-key', pace: 'instant', groupCode, to: RECORDS })));
  sockets.push(...played.map((p) => p.socket));
}
// Every match's last frame made (the shards' next cycles).
for (let i = 0; i < 100 && (await svc.stats()).applied < M * RECORDS; i++) await sleep(0.1);

// The floor: the bare uWebSockets.js server of bench/feed-floor.ts, every poll a 304.
const floorProc = fork(new URL('./feed-floor.ts', import.meta.url).pathname, ['server', '--change-ms', String(1e15)], { execArgv: ['--import', 'tsx'] });
const { port } = await new Promise<{ port: number }>((r) => floorProc.once('message', (m) => r(m as { port: number })));
pin(floorProc.pid!, SERVER_CORE);

const server = (name: string, pid: number, url: string): Server => {
  const pollers = startFeedPollers(url, codes);
  pollers.paused.on = true;
  return { name, pid, pollers, polled: { all: 0, main: 0, s: 0, polls: 0 }, idle: { all: 0, main: 0, s: 0, polls: 0 }, rounds: [], byRound: [] };
};
const servers = [server('service', svc.child.pid!, `http://127.0.0.1:${svc.ports.rest}`), server('floor (bare uWS, every poll 304)', floorProc.pid!, `http://127.0.0.1:${port}`)];
await sleep(2);
process.stderr.write(`${M} matches at record ${RECORDS}; ${ROUNDS} rounds of ${WINDOW} s windows, each server polled in turn\n`);

// Windows in turn not counted (warm-up: each source's first poll is a 200, and V8 compiles the
// service's poll path at 400 polls a second over the first ~10 s; it was one window, 4 s, until
// session 15, so part of the first rounds ran the service's unoptimized code).
for (let round = 0; round < WARMUP_ROUNDS; round++) {
  for (const s of servers) {
    s.pollers.paused.on = false;
    await sleep(WINDOW);
    s.pollers.paused.on = true;
  }
}
for (let round = 0; round < ROUNDS; round++) {
  for (const x of servers) x.byRound.push({ polled: { all: 0, main: 0, s: 0, polls: 0 }, idle: { all: 0, main: 0, s: 0, polls: 0 } });
  for (const s of servers) {
    s.pollers.paused.on = false;
    await sleep(SETTLE_S);
    const before = servers.map((x) => cpuOf(x.pid));
    const t0 = performance.now();
    const polls0 = s.pollers.counts.notModified + s.pollers.counts.ok;
    s.pollers.measuring.on = true;
    const from = (Date.now() - svcStartedAt) / 1000;
    await sleep(WINDOW);
    windows.push({ server: s.name, from, to: (Date.now() - svcStartedAt) / 1000 });
    s.pollers.measuring.on = false;
    const after = servers.map((x) => cpuOf(x.pid));
    const secs = (performance.now() - t0) / 1000;
    const polls = s.pollers.counts.notModified + s.pollers.counts.ok - polls0;
    s.pollers.paused.on = true;
    servers.forEach((x, i) => {
      const all = after[i].all - before[i].all;
      const main = after[i].main - before[i].main;
      if (x === s) x.rounds.push(Math.round((main * 1e6) / polls));
      const add = (w: Window) => Object.assign(w, { all: w.all + all, main: w.main + main, s: w.s + secs, polls: w.polls + (x === s ? polls : 0) });
      if (x === s) {
        add(x.polled);
        add(x.byRound[round].polled);
      } else {
        add(x.idle);
        add(x.byRound[round].idle);
      }
    });
    await sleep(SETTLE_S); // its last polls answered
  }
}

/** Net µs per poll of one round: its polled window less the server's idle rate in the same round. */
const roundNet = (r: { polled: Window; idle: Window }, part: 'all' | 'main') => ((r.polled[part] - (r.idle[part] / r.idle.s) * r.polled.s) * 1e6) / r.polled.polls;
const median = (xs: number[]) => { const a = [...xs].sort((p, q) => p - q); return a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2; };
const rows = servers.map((s) => {
  const netAll = s.polled.all - (s.idle.all / s.idle.s) * s.polled.s;
  const netMain = s.polled.main - (s.idle.main / s.idle.s) * s.polled.s;
  const { ok, notModified, other, errors, connects } = s.pollers.counts;
  return {
    server: s.name, M, pollsPerSec: s.polled.polls / s.polled.s, ok, notModified, other, errors, connects,
    idleCpuPct: (s.idle.all / s.idle.s) * 100, cpuPct: (s.polled.all / s.polled.s) * 100,
    cpuMicrosPerPoll: (s.polled.all * 1e6) / s.polled.polls, netMicrosPerPoll: (netAll * 1e6) / s.polled.polls,
    mainMicrosPerPoll: (s.polled.main * 1e6) / s.polled.polls, mainNetMicrosPerPoll: (netMain * 1e6) / s.polled.polls,
    mainMicrosPerPollByRound: s.rounds,
    // Each round's own net figure, and their median: a collection that falls in one window (V8's
    // memory reducer after the setup's burst, ~1 min in) moves one round, not the figure.
    netMicrosPerPollByRound: s.byRound.map((r) => Math.round(roundNet(r, 'all'))),
    medianNetMicrosPerPoll: median(s.byRound.map((r) => roundNet(r, 'all'))),
    medianMainNetMicrosPerPoll: median(s.byRound.map((r) => roundNet(r, 'main'))),
  };
});
for (const s of servers) s.pollers.stop();
floorProc.kill();
for (const s of sockets) s.close();
await svc.stop();

const [service, floor] = rows;
for (const r of rows) jsonLine({ bench: 'feed-304', ...r });
const ratio = service.netMicrosPerPoll / floor.netMicrosPerPoll;
const mainRatio = service.mainNetMicrosPerPoll / floor.mainNetMicrosPerPoll;
const medianRatio = service.medianNetMicrosPerPoll / floor.medianNetMicrosPerPoll;
const medianMainRatio = service.medianMainNetMicrosPerPoll / floor.medianMainNetMicrosPerPoll;
jsonLine({ bench: 'feed-304', ratio, mainRatio, medianRatio, medianMainRatio });
process.stdout.write('\n' + table(rows.map((r) => ({ ...r, pollsPerSec: Math.round(r.pollsPerSec), idleCpuPct: r.idleCpuPct.toFixed(2), cpuPct: r.cpuPct.toFixed(2), cpuMicrosPerPoll: r.cpuMicrosPerPoll.toFixed(1), netMicrosPerPoll: r.netMicrosPerPoll.toFixed(1), mainNetMicrosPerPoll: r.mainNetMicrosPerPoll.toFixed(1) })), ['server', 'M', 'pollsPerSec', 'ok', 'notModified', 'errors', 'connects', 'idleCpuPct', 'cpuPct', 'cpuMicrosPerPoll', 'netMicrosPerPoll', 'mainNetMicrosPerPoll']) + '\n');
process.stdout.write(`service / floor, net µs per poll: all threads ${ratio.toFixed(2)}, the main thread ${mainRatio.toFixed(2)}\n`);
process.stdout.write(`the same, medians of the rounds' own net figures: all threads ${medianRatio.toFixed(2)}, the main thread ${medianMainRatio.toFixed(2)}\n`);
for (const r of rows) process.stdout.write(`  ${r.server}: net µs per poll by round ${r.netMicrosPerPollByRound.join(', ')}\n`);
process.stdout.write(`results: ${writeResults('feed-304', { bench: 'feed-304', machine: machine(), options: { M, ROUNDS, WINDOW, RECORDS, WARMUP_ROUNDS, pin: `${SERVER_CORE}:${POLLER_CORE}` }, rows, ratio, mainRatio, medianRatio, medianMainRatio, windows })}\n`);
process.exit(0);
