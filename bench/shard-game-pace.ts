// Micro-benchmark (one process, no thread, no network): a shard's whole work at game pace, with a
// virtual clock. M matches each get one recorded game message every 1000/rate ms (staggered), each
// message its own batch (as at 3 msg/s, where a 2 ms batch window seldom holds two), so every
// message makes a frame on the leading edge; the shard's cycle runs every 100 ms of virtual time
// (timers, snapshot rounds every SNAPSHOT_INTERVAL_MS, stats). Prints the shard's CPU per message,
// all of it (batches, frames, deltas, cycles, snapshot rounds), and that of the cycles alone.
// `--trees A,B` alternates the builds of several trees in this process (A/B in the same sitting).
// It also prints the longest cycle and the 99th percentile of the cycles' CPU (ms): the bursts a
// snapshot round makes (issue 28). `--clone` structured-clones every output as a thread's
// postMessage would (its serializing half; the main thread pays about as much again to read it).
//
//   npx tsx bench/shard-game-pace.ts [--matches 50] [--rate 3] [--seconds 20] [--rounds 5] [--trees /tmp/before,.] [--clone] [--no-events] [--snapshot-ms 1000]
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { flag, opt } from './lib/args.js';

const TREES = opt('trees', '.').split(',').map((t) => path.resolve(t));
const M = Number(opt('matches', '50'));
const RATE = Number(opt('rate', '3'));
const SECONDS = Number(opt('seconds', '20'));
const ROUNDS = Number(opt('rounds', '5'));
const CLONE = flag('clone');
/** Events derived as the service does by default (EVENTS_ENABLED); `--no-events` leaves them out. */
const EVENTS = !flag('no-events');
/** The snapshot rounds' interval (the service's default 1,000; 0: never, to see what they cost). */
const SNAPSHOT_MS = Number(opt('snapshot-ms', '1000'));

const replay = recordedMatch();
const h = replay.header as unknown as Record<string, unknown>;
const firstGame = replay.records.findIndex((r) => r.type === 'match_start');
const lobby = replay.records.slice(0, firstGame);
const game = replay.records.slice(firstGame + 1).filter((r) => !(r.type === 'round_info' && (r.data as { roundPhase?: string }).roundPhase === 'game_end'));

// The virtual clock: Date.now() is what the shard reads for its time.
let vnow = Date.now();
Date.now = () => vnow;

interface Tree { tree: string; run(cmds: unknown[]): void; cycle(): void; next: number[]; outputs: number; pack: Pack; drops: Record<string, number> }
/** One observer payload as the main thread packs it for the shard (the tree's own format). */
type Pack = (groupCode: string, receivedAt: number, raw: string) => string;
async function load(tree: string): Promise<Tree> {
  const imp = (p: string) => import(pathToFileURL(path.join(tree, 'dist', p)).href);
  const { Shard } = await imp('workers/shard/shard.js');
  const { runCycle } = await imp('workers/shard/cycle.js');
  const { runBatch } = await imp('workers/shard/thread.js');
  // Since issue 35 a record carries its input number and forwarder too; a tree before that packs three fields.
  const { packObsRecord } = await imp('protocol/shard-messages.js') as { packObsRecord?: (g: string, at: number, input: number, via: string, raw: string) => string };
  const pack: Pack = packObsRecord ? (g, at, raw) => packObsRecord(g, at, 0, '', raw) : (g, at, raw) => g + '\x1f' + at + '\x1f' + raw;
  const t: Tree = { tree, run: () => undefined, cycle: () => undefined, next: [], outputs: 0, pack, drops: {} };
  const shard = new Shard({
    shard: 0, intervalMs: 100, inactivityMs: 3_600_000, trustReplayTimestamps: false, sponsorLogoUrl: '', recordReplays: false,
    replayDir: '', serviceVersion: 'bench', compression: true, frameSerializer: 'wire', matchEvents: EVENTS, snapshotIntervalMs: SNAPSHOT_MS > 0 ? SNAPSHOT_MS : Number.MAX_SAFE_INTEGER,
  }, (out: unknown) => { t.outputs++; if (CLONE) structuredClone(out); });
  (shard.pacer ?? shard.scheduler).stop(); // (scheduler: its name before 2026-11-29) no real timers: every frame here is a leading edge, the cycle sends the rest
  t.run = (cmds) => runBatch(shard, cmds);
  t.drops = shard.drops.counts;
  t.cycle = () => runCycle(shard);
  for (let i = 0; i < M; i++) {
    const code = 'G' + i.toString(36).toUpperCase().padStart(5, '0');
    t.run([{ t: 'create', groupCode: code, logon: { ...h, groupCode: code }, now: vnow }]);
    t.run([{ t: 'obs', count: lobby.length, packed: lobby.map((r) => pack(code, vnow, JSON.stringify({ ...r, groupCode: code }))).join('\x1e') }]);
    t.next.push(0);
  }
  return t;
}

const trees = await Promise.all(TREES.map(load));
const stepMs = 1000 / (M * RATE); // one message every stepMs, matches in turn
let mark = 0;
/** One virtual run of SECONDS: CPU µs per message, and of the cycles alone. */
function runFor(t: Tree): { perMsg: number; cyclesPerMsg: number; cycleMaxMs: number; cycleP99Ms: number } {
  let cycleCpu = 0;
  const cycles: number[] = [];
  let messages = 0;
  let nextCycle = vnow + 100;
  const end = vnow + SECONDS * 1000;
  const c0 = process.cpuUsage();
  for (let k = 0; vnow < end; k++) {
    vnow += stepMs;
    while (vnow >= nextCycle) {
      const c = process.cpuUsage();
      t.cycle();
      const d = process.cpuUsage(c);
      cycleCpu += d.user + d.system;
      cycles.push((d.user + d.system) / 1000);
      nextCycle += 100;
    }
    const i = k % M;
    const code = 'G' + i.toString(36).toUpperCase().padStart(5, '0');
    const rec = game[t.next[i]];
    t.next[i] = (t.next[i] + 1) % game.length;
    const raw = JSON.stringify({ obsName: 'Bench', groupCode: code, type: rec.type, data: rec.data });
    t.run([{ t: 'obs', count: 1, packed: t.pack(code, Math.floor(vnow), raw) }, { t: 'mark', mark: ++mark }]);
    messages++;
  }
  const c = process.cpuUsage(c0);
  // A message the shard dropped did none of the work measured here: a format drift must fail, not flatter.
  if (Object.keys(t.drops).length > 0) throw new Error(`${t.tree}: the shard dropped messages ${JSON.stringify(t.drops)}`);
  cycles.sort((a, b) => a - b);
  return { perMsg: (c.user + c.system) / messages, cyclesPerMsg: cycleCpu / messages, cycleMaxMs: cycles[cycles.length - 1], cycleP99Ms: cycles[Math.floor(cycles.length * 0.99)] };
}

const results = trees.map(() => [] as ReturnType<typeof runFor>[]);
for (let r = 0; r <= ROUNDS; r++) {
  trees.forEach((t, k) => {
    const res = runFor(t);
    if (r > 0) results[k].push(res); // round 0 warms the JIT
  });
}
const med = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
trees.forEach((t, k) => {
  const per = results[k].map((x) => x.perMsg);
  const cyc = results[k].map((x) => x.cyclesPerMsg);
  console.log(JSON.stringify({ bench: 'shard-game-pace', tree: t.tree, M, rate: RATE, seconds: SECONDS, usPerMsg: +med(per).toFixed(1), usPerMsgMin: +Math.min(...per).toFixed(1), cyclesUsPerMsg: +med(cyc).toFixed(1), cycleMaxMs: +med(results[k].map((x) => x.cycleMaxMs)).toFixed(1), cycleP99Ms: +med(results[k].map((x) => x.cycleP99Ms)).toFixed(1), clone: CLONE, events: EVENTS, snapshotMs: SNAPSHOT_MS, rounds: per.map((x) => +x.toFixed(1)) }));
});
process.exit(0);
