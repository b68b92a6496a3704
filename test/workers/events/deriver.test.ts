// The event deriver on its own (src/workers/events/deriver.ts), driven as the shard drives it
// (workers/shard/apply.ts, match-events.ts: timeReached() at the message, the engine's apply, message(),
// observe()) with the real engine and the recorded 19-round match: how each round was won, what a
// player spent, the recording with the messages of each millisecond in the other order, a plant the
// engine refused, and a restore (snapshot and journal) at many points of the match.
import { describe, expect, it } from 'vitest';
import type { DerivedEvent } from '../../../src/protocol/match-events.js';
import { recordedMatch } from '../../../src/tools/recorded-match.js';
import { MatchEventDeriver } from '../../../src/workers/events/deriver.js';
import { Match } from '../../../src/workers/match/match.js';
import { DEFAULT_SPONSOR_LOGO_URL } from '../../../src/workers/match/tools.js';
import { sameMillisecondReversed } from '../../helpers/recorded-events.js';
import { expectEqual } from '../../helpers/equal.js';

type Rec = { type: string; data: any; timestamp: number };
const replay = recordedMatch() as unknown as { header: any; records: Rec[] };
const records = replay.records;

interface Run {
  match: Match;
  deriver: MatchEventDeriver;
  events: DerivedEvent[];
  /** Per round, playerId → moneySpent as the `combat` phase began (read from the state before it). */
  spentAtCombat: Map<number, Map<string, number>>;
  /** The lowest moneySpent any player had when a score came in. */
  lowestAtScore: number;
}

function start(): Run {
  const h = replay.header;
  const match = Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam, rightTeam: h.rightTeam, toolsData: h.toolsData, organizationId: '', isSupporter: false }, h.logStartTime, { sponsorLogoUrl: DEFAULT_SPONSOR_LOGO_URL });
  const deriver = new MatchEventDeriver(match.liveState(), match.stateVersion, h.logStartTime, false);
  return { match, deriver, events: deriver.take(), spentAtCombat: new Map(), lowestAtScore: 0 };
}

function step(run: Run, rec: Rec): void {
  const { match, deriver } = run;
  const state = match.liveState();
  if (rec.type === 'round_info' && rec.data.roundPhase === 'combat') {
    run.spentAtCombat.set(rec.data.roundNumber, new Map(state.teams.flatMap((t) => t.players.map((p) => [p.riotId, p.moneySpent] as [string, number]))));
  }
  deriver.timeReached(state, match.stateVersion, rec.timestamp);
  const result = match.apply(rec, rec.timestamp);
  if (result.ok) deriver.message(match.liveState(), match.stateVersion, rec.type, rec.data, rec.timestamp);
  deriver.observe(match.liveState(), match.stateVersion, match.lastChangeAt);
  run.events.push(...deriver.take());
  if (rec.type === 'score') for (const t of state.teams) for (const p of t.players) run.lowestAtScore = Math.min(run.lowestAtScore, p.moneySpent);
}

function play(recs: readonly Rec[], run = start()): Run {
  for (const rec of recs) step(run, rec);
  return run;
}

/** A copy of the run as a restart rebuilds it: the engine from its snapshot, the deriver from the journal the shard's snapshot keeps (through JSON). */
function restored(run: Run): Run {
  const match = Match.fromSnapshot(run.match.toSnapshot());
  const journal = JSON.parse(JSON.stringify(run.deriver.journal()));
  const deriver = new MatchEventDeriver(match.liveState(), match.stateVersion, match.lastChangeAt, true, journal);
  const events = deriver.take();
  deriver.observe(match.liveState(), match.stateVersion, match.lastChangeAt); // the shard's restore touches the match
  return { match, deriver, events: [...events, ...deriver.take()], spentAtCombat: new Map(), lowestAtScore: 0 };
}

const plainEvent = ({ type, at, round, data }: DerivedEvent) => ({ type, at, round, data });
const rounds = (run: Run) => run.events.filter((e) => e.type === 'round_ended');

describe('the event deriver on the recorded match', () => {
  const clean = play(records);

  it('says each round was won the way the overlay\'s round record says, a defuse as `defuse`', () => {
    const ended = rounds(clean);
    expect(ended.map((e) => e.data.round)).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    const state = clean.match.liveState();
    const asRecord = { detonation: 'detonated', defuse: 'defused', time: 'timeout', elimination: 'kills' } as const;
    for (const e of ended) {
      const d = e.data as { round: number; winner: { team: 0 | 1 }; method: keyof typeof asRecord };
      const team = state.teams.find((t) => t.ingameTeamId === d.winner.team)!;
      expect(team.roundRecord[d.round - 1].type, `round ${d.round}`).toBe(asRecord[d.method]);
    }
    // The recording's own word: the rounds with a spike_defused row (before or after the score) that
    // the defenders won. Round 12 has one too, but its attackers won: game team 0 attacks in rounds
    // 1–12 and its count rose.
    const defused = new Set<number>();
    const attackersWon = new Map<number, boolean>();
    let round = 0;
    let last = { team_0: 0, team_1: 0 };
    for (const r of records) {
      if (r.type === 'round_info') round = r.data.roundNumber;
      if (r.type === 'spike_defused') defused.add(round);
      if (r.type === 'score') {
        attackersWon.set(round, (r.data.team_0 > last.team_0) === (round < 13));
        last = r.data;
      }
    }
    expect([...defused]).toEqual([1, 7, 8, 11, 12]);
    expect(attackersWon.get(12)).toBe(true);
    const defusedRounds = [...defused].filter((r) => !attackersWon.get(r));
    expect(defusedRounds).toEqual([1, 7, 8, 11]);
    expect(ended.filter((e) => e.data.method === 'defuse').map((e) => e.round)).toEqual(defusedRounds);
  });

  it('gives each round_ended the score change\'s time, and its clutch after it', () => {
    const scores = records.filter((r) => r.type === 'score').map((r) => r.timestamp);
    expect(rounds(clean).map((e) => e.at)).toEqual(scores);
    for (const c of clean.events.filter((e) => e.type === 'clutch')) {
      const before = clean.events[clean.events.indexOf(c) - 1];
      expect(before.type).toBe('round_ended');
      expect(c.at).toBe(before.at);
    }
  });

  it('counts as spent what a player spent in the buy phase, never the plant bonus', () => {
    expect(clean.lowestAtScore).toBeLessThan(0); // the state's count at a score includes the plant bonus as a refund
    for (const e of rounds(clean)) {
      const buy = clean.spentAtCombat.get(e.round)!;
      for (const line of e.data.players as Array<{ playerId: string; spent: number }>) {
        expect(line.spent, `round ${e.round} ${line.playerId}`).toBe(Math.max(0, buy.get(line.playerId)!));
        expect(line.spent).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it('gives the same events when the messages that share a millisecond come in the other order', () => {
    const variant = sameMillisecondReversed(records);
    expect(variant).not.toEqual(records);
    const reordered = play(variant);
    expect(reordered.events.map(plainEvent)).toEqual(clean.events.map(plainEvent));
    // Numbered in the order emitted (the journal keeps only an order above the last it stored).
    for (const run of [clean, reordered]) run.events.forEach((e, i) => i > 0 && expect(e.order).toBeGreaterThan(run.events[i - 1].order));
  });

  it('emits no spike_planted for a plant the engine refused (round 9\'s, after its end)', () => {
    expect(records.filter((r) => r.type === 'spike_planted')).toHaveLength(11);
    const planted = clean.events.filter((e) => e.type === 'spike_planted').map((e) => e.round);
    expect(planted).toEqual([1, 3, 7, 8, 11, 12, 15, 16, 17, 19]);
  });

  it('after a restore anywhere in the match, derives what the clean run did (same events, same order numbers)', () => {
    // Cuts: right after each score (a round not settled yet), after every third kill (clutches, multi-kills), in each buy phase.
    const cuts = new Set<number>();
    let kills = 0;
    records.forEach((r, i) => {
      if (r.type === 'score') cuts.add(i + 1);
      if (r.type === 'killfeed' && ++kills % 3 === 0) cuts.add(i + 1);
      if (r.type === 'round_info' && r.data.roundPhase === 'shopping') cuts.add(i + 5);
    });
    const want = clean.events.map((e) => ({ ...plainEvent(e), order: e.order }));
    const prefix = start();
    let done = 0;
    for (const cut of [...cuts].sort((a, b) => a - b)) {
      for (; done < cut; done++) step(prefix, records[done]);
      const after = play(records.slice(cut), restored(prefix));
      const got = [...prefix.events, ...after.events].map((e) => ({ ...plainEvent(e), order: e.order }));
      expectEqual(got, want, `restored after record ${cut}`);
    }
    expect(cuts.size).toBeGreaterThan(60);
  });
});
