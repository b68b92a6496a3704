// bench/feed-poll-cost.ts — one server alone under feed polls answered 304, its main thread's CPU
// per poll, with and without the polls (docs/perf/rest.md, "A feed poll's 304"). Where
// bench/feed-304.ts compares the service with the floor in turn, this asks how a poll's cost
// depends on how it comes: the vMix pattern (`--pattern pollers`: lib/feed-pollers.ts, 200 codes,
// two feeds each polled once a second over its own keep-alive connection, 400 polls a second) or
// a few busy connections (`--pattern autocannon`: `--connections` connections polling one code's
// feed at `--rate` polls a second in all). The server: the service (`--server service`: 200 matches
// of the recorded match played to record 400 under TRUST_REPLAY_TIMESTAMPS, as feed-304 does) or
// the bare uWS floor (`--server floor`: bench/feed-floor.ts's server). Pinned: server core 0,
// pollers core 1. `BENCH_NODE_ARGS=--perf-basic-prof` and `perf record -t <pid>` (the pid is
// printed) attribute the polled window.
//
//   npx tsx bench/feed-poll-cost.ts --server service|floor [--pattern pollers|autocannon] [--rate 400] [--connections 8] [--seconds 20] [--warmup 20]
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import http from 'node:http';
import { playReplay } from '#built/tools/replay-client.js';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { opt } from './lib/args.js';
import { startFeedPollers } from './lib/feed-pollers.js';
import { jsonLine, machine, table, writeResults } from './lib/report.js';
import { startServiceProcess } from './lib/service.js';
import { pin, threadRuntime } from './lib/threads.js';

const SERVER = opt('server', 'service');
const PATTERN = opt('pattern', 'pollers');
const RATE = Number(opt('rate', '400'));
const CONNECTIONS = Number(opt('connections', '8'));
const SECONDS = Number(opt('seconds', '20'));
const WARMUP = Number(opt('warmup', '20'));
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
const codes = Array.from({ length: 200 }, (_, i) => 'P' + i.toString(36).toUpperCase().padStart(5, '0'));
pin(process.pid, '1');

let pid: number;
let url: string;
let stop: () => Promise<void>;
if (SERVER === 'floor') {
  const p = fork(new URL('./feed-floor.ts', import.meta.url).pathname, ['server', '--change-ms', String(1e15)], { execArgv: ['--import', 'tsx'] });
  const { port } = await new Promise<{ port: number }>((r) => p.once('message', (m) => r(m as { port: number })));
  pid = p.pid!;
  url = `http://127.0.0.1:${port}`;
  stop = async () => void p.kill();
} else {
  const svc = await startServiceProcess({ INSECURE: 'true', TRUST_REPLAY_TIMESTAMPS: 'true', LOG_LEVEL: 'error' });
  const replay = recordedMatch();
  const sockets: Array<{ close(): void }> = [];
  for (let i = 0; i < codes.length; i += 20) {
    const played = await Promise.all(codes.slice(i, i + 20).map((groupCode) => playReplay(replay, { url: `http://127.0.0.1:${svc.ports.ingest}`, key: 'bench-key', pace: 'instant', groupCode, to: 400 })));
    sockets.push(...played.map((p) => p.socket));
  }
  pid = svc.child.pid!;
  url = `http://127.0.0.1:${svc.ports.rest}`;
  stop = async () => {
    for (const s of sockets) s.close();
    await svc.stop();
  };
}
pin(pid, '0');
/** The main thread's CPU seconds (schedstat: exact, where stat's ticks round a window's figure by ±10 ms). */
const mainCpu = () => threadRuntime(pid).get(pid)!;

/** Polls for `seconds` (after `warm` s not counted); returns how many were answered 304. */
async function poll(seconds: number, warm: number): Promise<{ polls: number; cpu: number }> {
  if (PATTERN === 'pollers') {
    const pollers = startFeedPollers(url, codes);
    await sleep(warm);
    process.stderr.write(`polling: pid ${pid}\n`);
    const a = mainCpu();
    const n0 = pollers.counts.notModified;
    pollers.measuring.on = true;
    await sleep(seconds);
    pollers.measuring.on = false;
    const cpu = mainCpu() - a;
    const polls = pollers.counts.notModified - n0;
    pollers.stop();
    return { polls, cpu };
  }
  const feed = `${url}/feeds/${codes[0]}/players.json`;
  const etag = await new Promise<string>((r) => http.get(feed, (res) => { res.resume(); r(String(res.headers.etag)); }));
  const run = (duration: number) => autocannon({ url: feed, connections: CONNECTIONS, overallRate: RATE, duration, headers: { 'if-none-match': etag } });
  if (warm > 0) await run(warm);
  process.stderr.write(`polling: pid ${pid}\n`);
  const a = mainCpu();
  const result = await run(seconds);
  return { polls: result.non2xx, cpu: mainCpu() - a };
}

const polled = await poll(SECONDS, WARMUP);
await sleep(2);
const i0 = mainCpu();
await sleep(SECONDS);
const idleCpu = mainCpu() - i0;
const row = {
  server: SERVER, pattern: PATTERN, pollsPerSec: polled.polls / SECONDS,
  mainMicrosPerPoll: (polled.cpu * 1e6) / polled.polls,
  idleMainPct: (idleCpu / SECONDS) * 100,
  mainNetMicrosPerPoll: ((polled.cpu - idleCpu) * 1e6) / polled.polls,
};
await stop();
jsonLine({ bench: 'feed-poll-cost', ...row });
process.stdout.write('\n' + table([{ ...row, pollsPerSec: Math.round(row.pollsPerSec), mainMicrosPerPoll: row.mainMicrosPerPoll.toFixed(1), idleMainPct: row.idleMainPct.toFixed(2), mainNetMicrosPerPoll: row.mainNetMicrosPerPoll.toFixed(1) }], ['server', 'pattern', 'pollsPerSec', 'mainMicrosPerPoll', 'idleMainPct', 'mainNetMicrosPerPoll']) + '\n');
writeResults(`feed-poll-cost-${SERVER}-${PATTERN}`, { bench: 'feed-poll-cost', machine: machine(), options: { SERVER, PATTERN, RATE, CONNECTIONS, SECONDS, WARMUP }, row });
process.exit(0);
