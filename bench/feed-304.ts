// bench/feed-304.ts — a feed poll answered 304, the service against its floor in one sitting (issue
// 38: at most 1.25× the bare uWebSockets.js server's poll). The same pollers (lib/feed-pollers.ts:
// per match, two JSON feeds, each polled once a second with If-None-Match, keep-alive, staggered)
// first against the service, then against bench/feed-floor.ts's bare server answering every poll
// 304 (its ETag never changes).
//
// The service: `M` copies of the recorded match played to record `--records` and left there, under
// TRUST_REPLAY_TIMESTAMPS (the scoreboard's clock is the match's own and stands still between frames),
// so after each source's first poll every answer is a 304 of an unchanged match: the lookup, the
// ETag compare and the answer. Its CPU while idle (no polls) over the same time is measured first and
// reported, and subtracted for `netMicrosPerPoll` (its timers, the shards' cycles, the metrics);
// `mainNetMicrosPerPoll` is the same for the main thread alone (the one that answers HTTP: steadier,
// the shards' periodic work left out).
//
//   npx tsx bench/feed-304.ts --matches 200 --duration 20 --pin 0:1 [--records 400] [--warmup 5]
import { fork } from 'node:child_process';
import { playReplay } from '#built/tools/replay-client.js';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { opt } from './lib/args.js';
import { startFeedPollers } from './lib/feed-pollers.js';
import { jsonLine, machine, table, writeResults } from './lib/report.js';
import { startServiceProcess } from './lib/service.js';
import { cpuBetween, pin, threadCpu, type ThreadCpu } from './lib/threads.js';

const M = Number(opt('matches', '200'));
const DURATION = Number(opt('duration', '20'));
const WARMUP = Number(opt('warmup', '5'));
const RECORDS = Number(opt('records', '400'));
const [SERVER_CORE, POLLER_CORE] = opt('pin', '0:1').split(':');
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

interface Row { server: string; M: number; pollsPerSec: number; ok: number; notModified: number; other: number; errors: number; idleCpuPct: number; cpuPct: number; cpuMicrosPerPoll: number; netMicrosPerPoll: number; mainMicrosPerPoll: number; mainNetMicrosPerPoll: number }

/** The CPU seconds of the process's main thread (the one that answers HTTP) between two readings. */
const mainOf = (pid: number, before: Map<number, ThreadCpu>, after: Map<number, ThreadCpu>) => {
  const a = after.get(pid) ?? { user: 0, kernel: 0 };
  const b = before.get(pid) ?? { user: 0, kernel: 0 };
  return a.user + a.kernel - b.user - b.kernel;
};

/** Polls `restUrl`'s feeds of `codes` for WARMUP + DURATION s; the server's CPU (all threads) over DURATION idle first, then polled. */
async function measure(server: string, pid: number, restUrl: string, codes: string[]): Promise<Row> {
  const idle0 = threadCpu(pid);
  await sleep(DURATION);
  const idle1 = threadCpu(pid);
  const idle = cpuBetween(idle0, idle1);
  const idleMain = mainOf(pid, idle0, idle1);
  const pollers = startFeedPollers(restUrl, codes);
  await sleep(WARMUP);
  const cpu0 = threadCpu(pid);
  pollers.measuring.on = true;
  await sleep(DURATION);
  pollers.measuring.on = false;
  const cpu1 = threadCpu(pid);
  const { user, kernel } = cpuBetween(cpu0, cpu1);
  const main = mainOf(pid, cpu0, cpu1);
  pollers.stop();
  const { ok, notModified, other, errors } = pollers.counts;
  const polls = ok + notModified;
  const cpu = user + kernel;
  const idleCpu = idle.user + idle.kernel;
  return {
    server, M, pollsPerSec: polls / DURATION, ok, notModified, other, errors,
    idleCpuPct: (idleCpu / DURATION) * 100, cpuPct: (cpu / DURATION) * 100,
    cpuMicrosPerPoll: (cpu * 1e6) / polls, netMicrosPerPoll: ((cpu - idleCpu) * 1e6) / polls,
    mainMicrosPerPoll: (main * 1e6) / polls, mainNetMicrosPerPoll: ((main - idleMain) * 1e6) / polls,
  };
}

const codes = Array.from({ length: M }, (_, i) => 'P' + i.toString(36).toUpperCase().padStart(5, '0'));
pin(process.pid, POLLER_CORE);

// 1. The service.
const svc = await startServiceProcess({ INSECURE: 'true', TRUST_REPLAY_TIMESTAMPS: 'true', LOG_LEVEL: 'error' });
pin(svc.child.pid!, SERVER_CORE);
const replay = recordedMatch();
const sockets = [];
for (let i = 0; i < codes.length; i += 20) {
  const played = await Promise.all(codes.slice(i, i + 20).map((groupCode) => playReplay(replay, { url: `http://127.0.0.1:${svc.ports.ingest}`, key: 'bench-key', pace: 'instant', groupCode, to: RECORDS })));
  sockets.push(...played.map((p) => p.socket));
}
// Every match's last frame made (the shards' next cycles).
for (let i = 0; i < 100 && (await svc.stats()).applied < M * RECORDS; i++) await sleep(0.1);
await sleep(1);
process.stderr.write(`service: ${M} matches at record ${RECORDS}; idle ${DURATION}s, then polled\n`);
const service = await measure('service', svc.child.pid!, `http://127.0.0.1:${svc.ports.rest}`, codes);
for (const s of sockets) s.close();
await svc.stop();

// 2. The floor: the bare uWebSockets.js server of bench/feed-floor.ts, every poll a 304.
const floorProc = fork(new URL('./feed-floor.ts', import.meta.url).pathname, ['server', '--change-ms', String(1e15)], { execArgv: ['--import', 'tsx'] });
const { port } = await new Promise<{ port: number }>((r) => floorProc.once('message', (m) => r(m as { port: number })));
pin(floorProc.pid!, SERVER_CORE);
process.stderr.write(`floor: idle ${DURATION}s, then polled\n`);
const floor = await measure('floor (bare uWS, every poll 304)', floorProc.pid!, `http://127.0.0.1:${port}`, codes);
floorProc.kill();

const rows = [service, floor];
for (const r of rows) jsonLine({ bench: 'feed-304', ...r });
const ratio = service.netMicrosPerPoll / floor.netMicrosPerPoll;
const mainRatio = service.mainNetMicrosPerPoll / floor.mainNetMicrosPerPoll;
jsonLine({ bench: 'feed-304', ratio, mainRatio });
process.stdout.write('\n' + table(rows.map((r) => ({ ...r, pollsPerSec: Math.round(r.pollsPerSec), idleCpuPct: r.idleCpuPct.toFixed(2), cpuPct: r.cpuPct.toFixed(2), cpuMicrosPerPoll: r.cpuMicrosPerPoll.toFixed(1), netMicrosPerPoll: r.netMicrosPerPoll.toFixed(1), mainNetMicrosPerPoll: r.mainNetMicrosPerPoll.toFixed(1) })), ['server', 'M', 'pollsPerSec', 'ok', 'notModified', 'errors', 'idleCpuPct', 'cpuPct', 'cpuMicrosPerPoll', 'netMicrosPerPoll', 'mainNetMicrosPerPoll']) + '\n');
process.stdout.write(`service / floor, net µs per poll: all threads ${ratio.toFixed(2)}, the main thread ${mainRatio.toFixed(2)}\n`);
process.stdout.write(`results: ${writeResults('feed-304', { bench: 'feed-304', machine: machine(), options: { M, DURATION, WARMUP, RECORDS, pin: `${SERVER_CORE}:${POLLER_CORE}` }, rows, ratio, mainRatio })}\n`);
process.exit(0);
