// How long a healthy observer stays silent: the longest gap between consecutive messages of the
// recorded match, per phase (lobby before the first round, then each round phase, after the end).
// It sizes OBSERVER_SILENT_MS (a silent-link flag must not fire on a healthy observer) and explains
// why the failover rule compares the primary with the standby instead of using a bare silence
// (docs/reliability.md, "A standby observer"). Prints JSON, then a table.
// `npm run build && npx tsx bench/observer-gaps.ts`
import { recordedMatch } from '#built/tools/recorded-match.js';

interface Gap { phase: string; messages: number; maxGapMs: number; p99GapMs: number; longestAtRecord: number }

const replay = recordedMatch();
const byPhase = new Map<string, { gaps: number[]; max: number; at: number }>();
let phase = 'lobby';
let prev: number | null = null;
replay.records.forEach((r, i) => {
  const t = Number(r.timestamp);
  if (prev !== null) {
    const g = t - prev;
    const e = byPhase.get(phase) ?? { gaps: [], max: 0, at: 0 };
    e.gaps.push(g);
    if (g > e.max) { e.max = g; e.at = i; }
    byPhase.set(phase, e);
  }
  prev = t;
  // The message starts the phase it announces: the gap before it belongs to the phase it ends.
  if (r.type === 'round_info') {
    const p = (r.data as { roundPhase?: string }).roundPhase ?? phase;
    phase = p === 'game_end' ? 'after_end' : p;
  }
});
const out: Gap[] = [...byPhase].map(([p, e]) => {
  const sorted = [...e.gaps].sort((a, b) => a - b);
  return { phase: p, messages: e.gaps.length, maxGapMs: e.max, p99GapMs: sorted[Math.floor(sorted.length * 0.99)] ?? 0, longestAtRecord: e.at };
});
const liveRound = out.filter((g) => ['game_start', 'shopping', 'combat', 'end'].includes(g.phase));
const result = { file: 'data/replays/icebox-19-rounds.replay', phases: out, longestLiveRoundGapMs: Math.max(...liveRound.map((g) => g.maxGapMs)) };
console.log(JSON.stringify(result));
console.log('\n| phase | gaps | longest gap (s) | p99 gap (s) |\n|---|---|---|---|');
for (const g of out) console.log(`| ${g.phase} | ${g.messages} | ${(g.maxGapMs / 1000).toFixed(1)} | ${(g.p99GapMs / 1000).toFixed(1)} |`);
