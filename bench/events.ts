// bench:events — what match events cost the matches: bench:broadcast's load (M matches, each an
// observer streaming the recorded match and F overlays) run side by side without events
// (EVENTS_ENABLED=false) and with them (events derived, journaled on disk, delivered to two webhook
// endpoints: one local receiver answering 204, one dead address refusing every connection), the
// service pinned to one core and this generator to the other (--pin 0:1). Alternates the modes
// --runs times and compares the service's CPU (all threads) and the frames' latency. Modes: `off`;
// `on` (single-event deliveries); `batch` (both endpoints with `batch: true`, docs/events.md);
// `before` (`on` run by another tree's build, --before <its dist/main/index.js>, for A/B in one sitting);
// `feeds` (no events, the feed pollers only: what the feeds alone cost; `before-feeds`: the same on --before). Every mode but `off` also
// polls the feeds as vMix would (bench:broadcast --feeds, lib/feed-pollers.ts: per match, the
// scoreboard and players feeds as JSON, once a second each, with If-None-Match) unless --no-feeds.
// --warmup S: seconds of load before the measured window (bench:broadcast's; 60 puts the 200
// lobbies and first rounds behind it: the steady state at game pace).
//
//   npm run bench:events -- [--matches 200] [--rate 3] [--pattern recorded] [--duration 30] [--runs 2]
//     [--modes off,on,batch] [--before <dist/main/index.js>] [--no-feeds] [--feed-matches N] [--warmup 5]
//
// Prints JSON lines and a table; the figures go in docs/benchmarks.md ("Match events").
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { jsonLine, machine, table, writeResults } from './lib/report.js';
import { flag, opt } from './lib/args.js';

const M = opt('matches', '200');
const RATE = opt('rate', '3');
const PATTERN = opt('pattern', 'recorded');
const DURATION = opt('duration', '30');
const RUNS = Number(opt('runs', '2'));
const WARMUP = opt('warmup', '5');
const FEEDS = !flag('no-feeds');
/** --feed-matches N: only the first N matches' feeds are polled (the matches on air; default all). */
const FEED_MATCHES = opt('feed-matches', '');
const BEFORE = opt('before', '');
const MODES = opt('modes', BEFORE ? 'off,on,batch,before' : 'off,on,batch').split(',');
const SECRET = `whsec_${Buffer.from('bench-events-secret-24-bytes!!').toString('base64')}`;

let received = 0;
const receiver = http.createServer((req, res) => { req.resume(); req.on('end', () => { received++; res.writeHead(204).end(); }); });
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const dead = http.createServer();
await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
const deadPort = (dead.address() as AddressInfo).port;
await new Promise<void>((r) => dead.close(() => r()));
const webhooks = (batch: boolean) => JSON.stringify([
  { id: 'live', url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, secret: SECRET, ...(batch ? { batch } : {}) },
  { id: 'dead', url: `http://127.0.0.1:${deadPort}/hook`, secret: SECRET, ...(batch ? { batch } : {}) },
]);
const envOf: Record<string, Record<string, string>> = {
  off: { EVENTS_ENABLED: 'false' },
  on: { EVENTS_ENABLED: 'true', WEBHOOKS: webhooks(false) },
  batch: { EVENTS_ENABLED: 'true', WEBHOOKS: webhooks(true) },
  before: { EVENTS_ENABLED: 'true', WEBHOOKS: webhooks(false), BENCH_ENTRY: BEFORE },
  feeds: { EVENTS_ENABLED: 'false' },
  'before-feeds': { EVENTS_ENABLED: 'false', BENCH_ENTRY: BEFORE },
};

/** One bench:broadcast run as a child process with `env`: its result line. */
function broadcastRun(env: Record<string, string>, name: string, feeds: boolean): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const args = ['tsx', path.join(import.meta.dirname, 'broadcast.ts'), '--matches', M, '--rate', RATE, '--pattern', PATTERN, '--duration', DURATION, '--pin', '0:1', '--warmup', WARMUP, '--name', name, ...(feeds ? ['--feeds', ...(FEED_MATCHES ? ['--feed-matches', FEED_MATCHES] : [])] : [])];
    const child = spawn('npx', args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{') && l.includes('"bench":"broadcast"'));
      if (code !== 0 || !line) return reject(new Error(`bench:broadcast failed (${code}):\n${out}`));
      resolve(JSON.parse(line) as Record<string, unknown>);
    });
  });
}

const rows: Record<string, unknown>[] = [];
for (let run = 1; run <= RUNS; run++) {
  for (const mode of MODES) {
    const before = received;
    const feeds = FEEDS && mode !== 'off';
    const r = await broadcastRun(envOf[mode], `events-${mode}-${run}`, feeds);
    const row = { run, events: mode, feeds, warmup: Number(WARMUP), M: r.M, obsPerSec: r.obsPerSec, delivery: r.delivery, p50: r.p50, p99: r.p99, cpuPct: r.cpuPct, cpuMicrosPerFrame: r.cpuMicrosPerFrame, rssMB: r.rssMB, loopP99: r.loopP99, mainUsPerMsg: Number(r.mainUserPerMsg) + Number(r.mainKernelPerMsg), shardUsPerMsg: Number(r.shardUserPerMsg) + Number(r.shardKernelPerMsg), webhookRequests: received - before, feed200: r.feed200 ?? 0, feed304: r.feed304 ?? 0, feedErrors: (Number(r.feedErrors ?? 0) + Number(r.feedOther ?? 0)) };
    jsonLine({ bench: 'events', ...row });
    rows.push(row);
  }
}
const mean = (on: string, k: string) => { const xs = rows.filter((r) => r.events === on).map((r) => Number(r[k])); return xs.reduce((a, b) => a + b, 0) / xs.length; };
const summary: Record<string, number> = {};
for (const mode of MODES) {
  summary[`cpuPct_${mode}`] = mean(mode, 'cpuPct');
  summary[`p99_${mode}`] = mean(mode, 'p99');
  if (mode !== 'off') summary[`cpuIncrease_${mode}`] = mean(mode, 'cpuPct') / mean('off', 'cpuPct') - 1;
}
jsonLine({ bench: 'events-summary', ...summary });
process.stdout.write('\n' + table(rows, ['run', 'events', 'M', 'obsPerSec', 'delivery', 'p50', 'p99', 'cpuPct', 'cpuMicrosPerFrame', 'rssMB', 'loopP99', 'mainUsPerMsg', 'shardUsPerMsg', 'webhookRequests', 'feed200', 'feed304', 'feedErrors']) + '\n');
for (const mode of MODES.filter((m) => m !== 'off')) process.stdout.write(`CPU with events (${mode}): ${(summary[`cpuIncrease_${mode}`] * 100).toFixed(1)} % against without (mean of ${RUNS} runs each)\n`);
writeResults('events', { machine: machine(), options: { M, RATE, PATTERN, DURATION, WARMUP, RUNS, MODES, FEEDS }, rows, summary });
receiver.close();
