// bench:ingest-shard — one process, no thread, no network: the shard's side of an observer message
// (the packed batch unpacked, the payload's depth check and JSON.parse, validation, apply), with
// the shard muted so that no frame is made (frames are another benchmark's). The recorded match's
// game messages in batches of 8 records (what a 2 ms batch window holds at ~4,000 msg/s).
//
//   npx tsx bench/ingest-shard.ts [--trees /work/wt-base,.] [--rounds 10]
//
// `--trees A,B` loads each tree's build (dist/workers/shard/shard.js) in this process and
// alternates their rounds: the same load against a "before" checkout, under the same conditions.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { opt } from './lib/args.js';

const TREES = opt('trees', '.').split(',').map((t) => path.resolve(t));
const ROUNDS = Number(opt('rounds', '10'));
const BATCH = 8;

const replay = recordedMatch();
const h = replay.header;
const firstGame = replay.records.findIndex((r) => r.type === 'match_start');
const CODE = 'SHARD1';
const texts = replay.records.slice(firstGame + 1)
  .filter((r) => !(r.type === 'round_info' && (r.data as { roundPhase?: string }).roundPhase === 'game_end'))
  .map((r) => JSON.stringify({ obsName: 'Bench', groupCode: CODE, type: r.type, data: r.data }));
const now = Date.now();
// One observer payload as the main thread packs it (src/protocol/shard-messages.ts). Since issue 35 a
// record carries its input number and forwarder; a tree built before that reads three fields only.
const pack = (t: string, fields: 3 | 5) => (fields === 5 ? `${CODE}\x1f${now}\x1f0\x1f\x1f${t}` : `${CODE}\x1f${now}\x1f${t}`);

type ShardClass = typeof import('#built/workers/shard/shard.js').Shard;
type Shard = InstanceType<ShardClass>;
type RunBatch = typeof import('#built/workers/shard/thread.js').runBatch;
/** A muted shard of `tree`'s build with the match created and its lobby applied, and how a batch is run on it. */
async function shardOf(tree: string) {
  const { Shard } = await import(pathToFileURL(path.join(tree, 'dist/workers/shard/shard.js')).href) as { Shard: ShardClass };
  const { runBatch } = await import(pathToFileURL(path.join(tree, 'dist/workers/shard/thread.js')).href) as { runBatch?: RunBatch };
  // A tree built before the batch loop moved to the thread's entry (thread.ts) has Shard.handle.
  const handle = runBatch ?? ((s: Shard, cmds: Parameters<RunBatch>[1]) => (s as unknown as { handle: (c: typeof cmds) => void }).handle(cmds));
  const shard = new Shard({
    shard: 0, intervalMs: 100, inactivityMs: 3_600_000, trustReplayTimestamps: false, sponsorLogoUrl: 'x', recordReplays: false,
    replayDir: '', serviceVersion: 'bench', compression: true, frameSerializer: 'wire', snapshotIntervalMs: 600_000,
  }, () => undefined);
  const run = (cmds: Parameters<RunBatch>[1]) => handle(shard, cmds);
  const { packObsRecord } = await import(pathToFileURL(path.join(tree, 'dist/protocol/shard-messages.js')).href) as { packObsRecord?: unknown };
  const fields = packObsRecord ? 5 : 3;
  const batches: string[] = [];
  for (let i = 0; i + BATCH <= texts.length; i += BATCH) batches.push(texts.slice(i, i + BATCH).map((t) => pack(t, fields)).join('\x1e'));
  run([{ t: 'create', groupCode: CODE, now, logon: { groupCode: CODE, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false, obsName: 'Bench', clientVersion: '0.3.3' } }]);
  run(replay.records.slice(0, firstGame).map((r) => ({ t: 'obs' as const, count: 1, packed: pack(JSON.stringify({ ...r, groupCode: CODE }), fields) })));
  run([{ t: 'mute', on: true }]);
  return { shard, run, batches };
}

const shards = await Promise.all(TREES.map(shardOf));
const results: number[][] = TREES.map(() => []);
let mark = 0;
for (let r = 0; r <= ROUNDS; r++) {
  shards.forEach(({ run, shard, batches }, k) => {
    const c0 = process.cpuUsage();
    for (const packed of batches) run([{ t: 'obs', count: BATCH, packed }, { t: 'mark', mark: ++mark }]);
    const c = process.cpuUsage(c0);
    // A dropped message did none of the work measured here: a format drift must fail, not flatter.
    if (Object.keys(shard.drops.counts).length > 0) throw new Error(`${TREES[k]}: the shard dropped messages ${JSON.stringify(shard.drops.counts)}`);
    if (r > 0) results[k].push((c.user + c.system) / (batches.length * BATCH)); // round 0 warms the JIT
  });
}
TREES.forEach((tree, k) => {
  const v = [...results[k]].sort((a, b) => a - b);
  process.stdout.write(`${tree}: ${shards[k].batches.length * BATCH} messages per round, applied ${shards[k].shard.stats.applied}; µs CPU per message: min ${v[0].toFixed(2)}, median ${v[v.length >> 1].toFixed(2)} (rounds in order: ${results[k].map((x) => x.toFixed(2)).join(' ')})\n`);
});
process.exit(0);
