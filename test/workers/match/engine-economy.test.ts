// The economy record `teams[].moneyRecord` (docs/match-rules.md 8.1): checked over the recorded match
// against values computed independently from its raw scoreboard messages, then the cases the
// recording does not have (income in steps, sell-backs, overtime, auxiliary rows, non-supporters).

import { beforeAll, describe, expect, it } from 'vitest';
import { Match } from '../../../src/workers/match/match.js';
import type { MatchState, MoneyRecordEntry } from '../../../src/workers/match/types.js';
import { loadReplay, logon, row, rosterAll, Script, SETTINGS, type Replay, watchAllMatches } from '../../helpers/engine.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

interface RawRow {
  playerId: string;
  startTeam: number;
  money: number;
}

/**
 * Straight from the file, without the engine: for each round, from its `shopping` round_info to the
 * next round_info, each player's credits before their first decrease (or their last value if they
 * never decrease) and at the end of that window; a team's start is the sum of the first, its spent
 * the sum of the differences. A player with no row in the window keeps the money of their last row.
 * One fact of the game is needed: at the side switch (round 13) everybody's credits are reset to 800,
 * so the first row of round 13 is not a purchase even though the money goes down.
 */
function independentRecord(replay: Replay): Map<number, MoneyRecordEntry[]> {
  const money = new Map<string, number>();
  const teamOf = new Map<string, number>();
  const out = new Map<number, MoneyRecordEntry[]>([[0, []], [1, []]]);
  let window: { round: number; start: Map<string, number>; bought: Set<string> } | null = null;
  const close = () => {
    if (!window) return;
    for (const team of [0, 1]) {
      let start = 0;
      let end = 0;
      for (const [id, m] of money) {
        if (teamOf.get(id) !== team) continue;
        start += window.start.get(id) ?? m;
        end += m;
      }
      out.get(team)!.push({ round: window.round, start, spent: start - end });
    }
    window = null;
  };
  for (const r of replay.records) {
    if (r.type === 'round_info') {
      close();
      const d = r.data as { roundNumber: number; roundPhase: string };
      if (d.roundPhase !== 'shopping') continue;
      if (d.roundNumber === 13) for (const id of money.keys()) money.set(id, 800);
      window = { round: d.roundNumber, start: new Map(money), bought: new Set() };
    } else if (r.type === 'scoreboard') {
      const d = r.data as RawRow;
      const before = money.get(d.playerId) ?? 0;
      teamOf.set(d.playerId, d.startTeam);
      money.set(d.playerId, d.money);
      if (window && !window.bought.has(d.playerId)) {
        if (d.money < before) window.bought.add(d.playerId);
        else window.start.set(d.playerId, d.money);
      }
    }
  }
  close();
  return out;
}

function recordedMatch(isSupporter: boolean, replay: Replay): Match {
  const h = replay.header;
  return Match.create(
    { groupCode: h.groupCode, leftTeam: h.leftTeam, rightTeam: h.rightTeam, toolsData: h.toolsData, organizationId: 'org-1', isSupporter },
    h.logStartTime,
    SETTINGS,
  );
}

const byIngameId = (s: MatchState, id: 0 | 1) => s.teams.find((t) => t.ingameTeamId === id)!;

describe('moneyRecord over the recorded match (supporter)', () => {
  let replay: Replay;
  let final: MatchState;
  /** the record as it was at each round_info that ends a buy phase, and at the next shopping */
  const frozenChecks: Array<{ at: string; before: string; after: string }> = [];

  beforeAll(() => {
    replay = loadReplay();
    const m = recordedMatch(true, replay);
    let frozen: string | null = null;
    for (const rec of replay.records) {
      const d = rec.data as { roundNumber: number; roundPhase: string };
      if (rec.type === 'round_info' && d.roundPhase === 'shopping' && frozen !== null) {
        frozenChecks.push({ at: `shopping ${d.roundNumber}`, before: frozen, after: JSON.stringify(m.liveState().teams.map((t) => t.moneyRecord)) });
        frozen = null;
      }
      expect(m.apply(rec, rec.timestamp).ok).toBe(true);
      if (rec.type === 'round_info' && d.roundPhase === 'combat') frozen = JSON.stringify(m.liveState().teams.map((t) => t.moneyRecord));
    }
    final = m.liveState();
  });

  it('has one entry per round, 1 to 19, on both teams', () => {
    for (const team of final.teams) expect(team.moneyRecord.map((e) => e.round)).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
  });

  it('equals the values computed independently from the raw scoreboard messages', () => {
    const expected = independentRecord(replay);
    expect(byIngameId(final, 0).moneyRecord).toEqual(expected.get(0));
    expect(byIngameId(final, 1).moneyRecord).toEqual(expected.get(1));
  });

  it('pins the known credits: 5 × 800 in round 1 and at the side switch (round 13), and plausible bounds', () => {
    for (const team of final.teams) {
      expect(team.moneyRecord[0].start).toBe(4000);
      expect(team.moneyRecord[12].start).toBe(4000);
      for (const e of team.moneyRecord) {
        expect(e.start).toBeLessThanOrEqual(5 * 9000);
        expect(e.spent).toBeGreaterThanOrEqual(0);
        expect(e.spent).toBeLessThanOrEqual(e.start);
      }
    }
    // round 2 (values read off the file by hand): team 0 lost round 1, team 1 won it
    expect(byIngameId(final, 0).moneyRecord[1].start).toBe(2300 + 2250 + 2200 + 2500 + 2800);
    expect(byIngameId(final, 1).moneyRecord[1].start).toBe(3050 + 3100 + 3400 + 3200 + 3450);
  });

  it('freezes each entry when the buy phase ends: plant bonuses in combat and late rows change nothing until the next shopping', () => {
    expect(frozenChecks).toHaveLength(18);
    for (const c of frozenChecks) expect(c.after, c.at).toBe(c.before);
  });

  it('keeps the record empty for a non-supporter', () => {
    const m = recordedMatch(false, replay);
    for (const rec of replay.records) {
      m.apply(rec, rec.timestamp);
      const s = m.liveState();
      if (s.teams[0].moneyRecord.length + s.teams[1].moneyRecord.length !== 0) throw new Error(`record at ${rec.timestamp}`);
    }
    expect(m.liveState().teams.map((t) => t.moneyRecord)).toEqual([[], []]);
  });
});

function supporter(): Script {
  const s = new Script(logon({ isSupporter: true }));
  rosterAll(s);
  return s;
}

const record = (s: Script, team: 0 | 1) => s.state.teams[team].moneyRecord;

describe('moneyRecord rules', () => {
  it('is empty before the first buy phase and gets an entry at each shopping', () => {
    const s = supporter();
    expect(record(s, 0)).toEqual([]);
    s.phase(1, 'game_start');
    expect(record(s, 0)).toEqual([]);
    s.phase(1, 'shopping');
    expect(record(s, 0)).toEqual([{ round: 1, start: 0, spent: 0 }]);
    for (let i = 0; i < 5; i++) s.ok('scoreboard', row(`a${i}`, { money: 800 }));
    expect(record(s, 0)).toEqual([{ round: 1, start: 4000, spent: 0 }]);
    expect(record(s, 1)).toEqual([{ round: 1, start: 0, spent: 0 }]); // team 1 sent no rows yet
  });

  it('counts income that arrives in several rows once, and sell-backs as negative spending', () => {
    const s = supporter();
    s.phase(1, 'shopping');
    s.ok('scoreboard', row('a0', { money: 800 }));
    s.phase(1, 'combat');
    s.phase(1, 'end');
    s.phase(2, 'shopping');
    // income in two steps (a plant bonus, then the round income), as in the recording; upstream's
    // heuristic would add both rises above 300
    s.ok('scoreboard', row('a0', { money: 1200 }));
    s.ok('scoreboard', row('a0', { money: 3100 }));
    expect(record(s, 0)[1]).toEqual({ round: 2, start: 3100, spent: 0 });
    s.ok('scoreboard', row('a0', { money: 200 })); // a rifle
    s.ok('scoreboard', row('a0', { money: 1000 })); // sold a shield back
    s.ok('scoreboard', row('a0', { money: 600 }));
    expect(record(s, 0)[1]).toEqual({ round: 2, start: 3100, spent: 2500 });
    s.phase(2, 'combat');
    s.ok('scoreboard', row('a0', { money: 900 })); // plant bonus: not a refund
    expect(record(s, 0)[1]).toEqual({ round: 2, start: 3100, spent: 2500 });
    expect(s.player('a0').moneySpent).toBe(2200); // the player's own counter does count it
  });

  it('starts the switch round and every overtime round from the credits the game gives', () => {
    const s = supporter();
    for (let r = 1; r <= 24; r++) {
      s.phase(r, 'shopping');
      s.phase(r, 'combat');
      s.phase(r, 'end');
    }
    s.ok('scoreboard', row('b2', { money: 9000 }));
    s.phase(25, 'shopping'); // first overtime round: the engine resets money to 800 ...
    expect(record(s, 1).at(-1)).toEqual({ round: 25, start: 4000, spent: 0 });
    for (let i = 0; i < 5; i++) s.ok('scoreboard', row(`b${i}`, { money: 5000 })); // ... the game gives 5000
    expect(record(s, 1).at(-1)).toEqual({ round: 25, start: 25000, spent: 0 });
    expect(record(s, 1).map((e) => e.round)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it('restarts the entry of a repeated shopping from the money then, instead of adding a second one', () => {
    const s = supporter();
    s.phase(1, 'shopping');
    s.ok('scoreboard', row('a0', { money: 800 }));
    s.ok('scoreboard', row('a0', { money: 600 }));
    s.phase(1, 'shopping'); // like the players' moneySpent, the round's spending starts again
    s.ok('scoreboard', row('a0', { money: 400 }));
    expect(record(s, 0)).toEqual([{ round: 1, start: 600, spent: 200 }]);
  });

  it('follows auxiliary rows, and stays with its team through swap_left_right and swap_attacker_defender', () => {
    const s = supporter();
    s.phase(1, 'shopping');
    s.aux('b1', 'aux_scoreboard', row('b1', { money: 800 }));
    s.aux('b2', 'aux_scoreboard_team', [row('b2', { money: 800 }), row('b3', { money: 800 })]);
    expect(record(s, 1)).toEqual([{ round: 1, start: 2400, spent: 0 }]);
    s.aux('b1', 'aux_scoreboard', row('b1', { money: 300 }));
    expect(record(s, 1)).toEqual([{ round: 1, start: 2400, spent: 500 }]);
    s.ok('swap_left_right', true);
    expect(record(s, 0)).toEqual([{ round: 1, start: 2400, spent: 500 }]);
    s.ok('swap_attacker_defender', true);
    expect(record(s, 0)).toEqual([{ round: 1, start: 2400, spent: 500 }]);
  });
});
