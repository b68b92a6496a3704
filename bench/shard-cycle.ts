// Micro-benchmark (one process, no lock needed): the shard's periodic cycle (workers/shard/cycle.ts)
// with M idle matches (logon and lobby applied, frames out), in the build of this tree or of the
// tree given by --tree (A/B): microseconds per cycle and per match. `npx tsx bench/shard-cycle.ts [--matches 1000] [--tree /work/wt-base]`
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { opt } from './lib/args.js';
import { recordedMatch } from '#built/tools/recorded-match.js';

const M = Number(opt('matches', '1000'));
const tree = path.resolve(opt('tree', path.resolve(import.meta.dirname, '..')));
const load = (p: string) => import(pathToFileURL(path.join(tree, 'dist', p)).href);
const { Shard } = await load('workers/shard/shard.js');
const { runCycle } = await load('workers/shard/cycle.js');
// The batch loop is the thread's entry's (thread.ts); a tree built before that has Shard.handle.
const { runBatch } = await load('workers/shard/thread.js');
// A record as the main thread packs it; since issue 35 with its input number and forwarder (a tree before that: three fields).
const { packObsRecord } = await load('protocol/shard-messages.js') as { packObsRecord?: (g: string, at: number, input: number, via: string, raw: string) => string };
const pack = (g: string, at: number, raw: string) => (packObsRecord ? packObsRecord(g, at, 0, '', raw) : g + '\x1f' + at + '\x1f' + raw);

const replay = recordedMatch();
const firstGame = replay.records.findIndex((r) => r.type === 'match_start');
const lobby = replay.records.slice(0, firstGame);
const settings = {
  shard: 0, intervalMs: 100, inactivityMs: 1_800_000, trustReplayTimestamps: false, sponsorLogoUrl: '', recordReplays: false,
  replayDir: '', serviceVersion: 'bench', compression: true, frameSerializer: 'wire', snapshotIntervalMs: 1000,
};
let outputs = 0;
const shard = new Shard(settings, () => { outputs++; });
const run = (cmds: unknown[]) => (runBatch ? runBatch(shard, cmds) : shard.handle(cmds));
const tick = setInterval(() => runCycle(shard), settings.intervalMs); // as the thread's entry does
const h = replay.header as unknown as Record<string, unknown>;
const now = Date.now();
for (let i = 0; i < M; i++) {
  const code = 'C' + i.toString(36).toUpperCase().padStart(5, '0');
  run([{ t: 'create', groupCode: code, logon: { ...h, groupCode: code }, now }]);
  const packed = lobby.map((r) => pack(code, now, JSON.stringify({ ...r, groupCode: code }))).join('\x1e');
  run([{ t: 'obs', count: lobby.length, packed }]);
  // A dropped record did none of the work this measures: a format drift must fail, not flatter.
  if (Object.keys(shard.drops.counts).length > 0) throw new Error(`the shard dropped records ${JSON.stringify(shard.drops.counts)}`);
}
// Let the frames go out and the first snapshots be taken, then time idle cycles.
await new Promise((r) => setTimeout(r, 1500));
clearInterval(tick);
shard.exit(); // its timers off: the cycles below are the only ones
const N = Number(opt("cycles", "5000"));
for (let k = 0; k < 200; k++) runCycle(shard);
const t0 = process.hrtime.bigint();
for (let k = 0; k < N; k++) runCycle(shard);
const us = Number(process.hrtime.bigint() - t0) / 1e3 / N;
console.log(JSON.stringify({ bench: 'shard-cycle', tree, M, usPerCycle: +us.toFixed(2), nsPerMatchPerCycle: +((us * 1000) / M).toFixed(1), cpuPctAt10Hz: +((us * 10) / 1e4).toFixed(3) }));
process.exit(0);
