// Which intervals FRAME_EDGE=auto holds to their end (issue 38, docs/perf/message-path.md "Frames
// that wait anyway"): the main thread's real ShardBatches fed bench/broadcast.ts's schedule (M
// matches, staggered over a second, the recorded match's messages `uniform` at `rate` or with the
// recording's gaps and bursts, `recorded`) on a mocked clock, no service and no sockets. A message is
// held when its batch went to the shard more than 10 ms after it came (a short window is SHARD_BATCH_MS); a hand-off is a
// batch posted. Prints, per schedule, the messages, the held ones, the intervals with a held message
// (and of those, the ones after an interval of AUTO_EDGE_BUSY messages or more: held by the rule
// for fast matches, not as a quiet service's), the hand-offs a second and the most messages in one
// interval: what the rule does with each load, in a few seconds of CPU.
//
//   npx tsx bench/held-intervals.ts [--seconds 300]
import { mock } from 'node:test';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { AUTO_EDGE_BUSY, ShardBatches } from '#built/main/shards/batches.js';
import { opt } from './lib/args.js';
import { jsonLine, machine, table } from './lib/report.js';

const SECONDS = Number(opt('seconds', '300'));
const INTERVAL = 100;
const BATCH_MS = 2;
/** A message that waited longer than this for its batch was held (the short window is BATCH_MS). */
const HELD_MS = 10;
const T0 = 1_700_000_000_000; // a multiple of the interval: the mocked clock's 0

const replay = recordedMatch();
const firstGame = replay.records.findIndex((r) => r.type === 'match_start');
const game = replay.records.slice(firstGame + 1).filter((r) => !(r.type === 'round_info' && (r.data as { roundPhase?: string }).roundPhase === 'game_end'));
const gameStart = Number(game[0].timestamp);
const recordedRate = game.length / ((Number(game[game.length - 1].timestamp) - gameStart) / 1000);

/** Every message's time (ms from the start) and match, as bench/broadcast.ts sends them, in time order. */
function schedule(M: number, rate: number, pattern: 'uniform' | 'recorded'): { at: number; match: number }[] {
  const out: { at: number; match: number }[] = [];
  const speed = rate / recordedRate;
  for (let i = 0; i < M; i++) {
    const origin = (i * 1000) / M;
    for (let n = 0; ; n++) {
      const rec = game[n % game.length];
      const loops = Math.floor(n / game.length);
      const at = pattern === 'uniform'
        ? origin + (n * 1000) / rate
        : origin + loops * ((Number(game[game.length - 1].timestamp) - gameStart) / speed) + (Number(rec.timestamp) - gameStart) / speed;
      if (at >= SECONDS * 1000) break;
      out.push({ at, match: i });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

function run(M: number, rate: number, pattern: 'uniform' | 'recorded'): Record<string, unknown> {
  const messages = schedule(M, rate, pattern);
  const perInterval = new Map<number, number>();
  for (const m of messages) perInterval.set(Math.floor(m.at / INTERVAL), (perInterval.get(Math.floor(m.at / INTERVAL)) ?? 0) + 1);
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 }); // Date.now(): the mocked clock, in the posts too
  const waiting: number[] = []; // the times of the messages not posted yet, in order
  let head = 0;
  let posts = 0;
  let held = 0;
  const heldIntervals = new Set<number>();
  const batches = new ShardBatches(1, BATCH_MS, (_shard, cmds) => {
    posts++;
    const clock = Date.now();
    for (const cmd of cmds) {
      if (cmd.t !== 'obs') continue;
      for (let k = 0; k < cmd.count; k++) {
        const at = waiting[head++];
        // Held: posted by the window that ends with the interval (a short one waits SHARD_BATCH_MS at most).
        if (clock - at > HELD_MS) { held++; heldIntervals.add(Math.floor(at / INTERVAL)); }
      }
    }
  }, INTERVAL);
  try {
    for (const m of messages) {
      const at = Math.floor(m.at);
      while (Date.now() < at) mock.timers.tick(1); // a millisecond at a time: a timer's callback sees its own time
      waiting.push(at);
      batches.obs(0, 'M' + m.match, '{}', T0 + at);
    }
    mock.timers.tick(INTERVAL);
  } finally {
    mock.timers.reset();
  }
  return {
    bench: 'held-intervals', M, rate, pattern, seconds: SECONDS, messages: messages.length, held,
    heldShare: held / messages.length, heldIntervals: heldIntervals.size,
    // After an interval of AUTO_EDGE_BUSY messages or more the service is not quiet: a held one is the fast matches' rule.
    heldBusyIntervals: [...heldIntervals].filter((k) => (perInterval.get(k - 1) ?? 0) >= AUTO_EDGE_BUSY).length, intervals: (SECONDS * 1000) / INTERVAL,
    handOffsPerSec: posts / SECONDS, maxPerInterval: Math.max(...perInterval.values()),
  };
}

const rows = [
  run(50, 3, 'uniform'), run(50, 10, 'uniform'), run(50, 15, 'uniform'), run(50, 20, 'uniform'),
  run(500, 3, 'uniform'), run(500, 3, 'recorded'), run(1500, 3, 'recorded'),
];
for (const r of rows) jsonLine({ ...r, machine: machine() });
process.stdout.write('\n' + table(rows.map((r) => ({ ...r, heldShare: (r.heldShare as number).toFixed(3), handOffsPerSec: (r.handOffsPerSec as number).toFixed(1) })),
  ['M', 'rate', 'pattern', 'messages', 'held', 'heldShare', 'heldIntervals', 'heldBusyIntervals', 'intervals', 'handOffsPerSec', 'maxPerInterval']) + '\n');
