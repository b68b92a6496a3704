// What one frame's parts cost, in process (issue 38, docs/perf/message-path.md "Frames as patches"):
// the recorded match applied to its `--at`th message, then `--frames` frames of that state timed
// one way at a time: the layout (wireSerializeLayout) and the delta against the frame before
// (layoutDelta, with the patch edits as the shard passes them), (a) with nothing changed but
// serverTime, (b) with one player card changed (a kill more, marked as a rule marks it). And what a
// player card's patch state holds on the heap: 200 copies of the match at that message, every card
// patched once, the heap's growth after a full GC (their texts counted apart). A/B: copy this file
// into the other tree's bench/ and run it there (a tree without the patcher times its frames alone).
//
//   node --expose-gc --import tsx bench/frame-parts.ts [--at 1500] [--frames 100000] [--rounds 3]
import { layoutDelta } from '#built/codec/layout-delta.js';
import { playerSchema } from '#built/schemas/match-data.js';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { touch } from '#built/workers/match/dirty.js';
import { Match } from '#built/workers/match/match.js';
import { wireSerializeLayout, type FrameLayout } from '#built/workers/wire-serializer.js';
import { opt } from './lib/args.js';
import { jsonLine, machine, table } from './lib/report.js';

// A tree built before the patcher (A/B: this file copied into it) times its frames without edits.
type Patch = typeof import('#built/workers/subtree-patch.js');
const patch = (await import('#built/workers/subtree-patch.js' as string).catch(() => null)) as Patch | null;
const subtreeEdits = patch?.subtreeEdits;

const AT = Number(opt('at', '1500'));
const FRAMES = Number(opt('frames', '100000'));
const ROUNDS = Number(opt('rounds', '3'));
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const { header, records } = recordedMatch();
function matchAt(n: number): Match {
  const m = Match.create({ groupCode: header.groupCode, leftTeam: header.leftTeam as never, rightTeam: header.rightTeam as never, organizationId: '', isSupporter: false }, Number(records[0].timestamp), { sponsorLogoUrl: 'x' });
  for (const r of records.slice(0, n)) m.apply(structuredClone(r), Number(r.timestamp));
  return m;
}

const m = matchAt(AT);
const t0 = Number(records[AT - 1].timestamp);
const player = m.liveState().teams[0].players[0];
const ns = () => process.hrtime.bigint();

/** µs a frame for the layout and for the delta; `change` runs before each frame, outside the timing. */
function time(change: () => void): { layoutUs: number; deltaUs: number } {
  let prev: FrameLayout = wireSerializeLayout(m, t0);
  let layout = 0n;
  let delta = 0n;
  for (let i = 1; i <= FRAMES; i++) {
    change();
    const a = ns();
    const next = wireSerializeLayout(m, t0 + i);
    const b = ns();
    layoutDelta(prev, next, subtreeEdits);
    delta += ns() - b;
    layout += b - a;
    prev = next;
  }
  return { layoutUs: Number(layout) / FRAMES / 1000, deltaUs: Number(delta) / FRAMES / 1000 };
}

const rows: Record<string, unknown>[] = [];
for (let r = 0; r <= ROUNDS; r++) {
  const still = time(() => undefined);
  const card = time(() => { player.kills += 1; touch(player); });
  if (r > 0) rows.push({ round: r, stillLayoutUs: still.layoutUs, stillDeltaUs: still.deltaUs, cardLayoutUs: card.layoutUs, cardDeltaUs: card.deltaUs }); // round 0 warms the JIT
}

// The patch states: cards of 200 matches patched once each, their texts kept apart.
let stateBytesPerCard: number | null = null;
let cards = 0;
if (patch) {
  const copies = Array.from({ length: 200 }, () => matchAt(AT));
  const all = copies.flatMap((c) => c.liveState().teams.flatMap((t) => t.players));
  const patcher = patch.compilePatcher(playerSchema as Parameters<Patch['compilePatcher']>[0]);
  gc();
  const before = process.memoryUsage().heapUsed;
  const texts = all.map((p) => patcher.text(p).text);
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  const textBytes = texts.reduce((n, t) => n + t.length + 16, 0); // one-byte strings: a character a byte, ~16 of header
  stateBytesPerCard = Math.round((grown - textBytes) / all.length);
  cards = all.length;
}

const med = (k: string) => [...rows.map((x) => x[k] as number)].sort((a, b) => a - b)[rows.length >> 1];
jsonLine({
  bench: 'frame-parts', ...machine(), at: AT, frames: FRAMES,
  stillLayoutUs: +med('stillLayoutUs').toFixed(2), stillDeltaUs: +med('stillDeltaUs').toFixed(2),
  cardLayoutUs: +med('cardLayoutUs').toFixed(2), cardDeltaUs: +med('cardDeltaUs').toFixed(2),
  patcher: patch !== null, cards, stateBytesPerCard, rounds: rows,
});
console.log(table(rows, ['round', 'stillLayoutUs', 'stillDeltaUs', 'cardLayoutUs', 'cardDeltaUs']));
if (stateBytesPerCard !== null) console.log(`patch state: ${stateBytesPerCard} bytes a card (${cards} cards, their texts apart)`);
