// Rounds: phases, side switch, overtime and its timeout grant, swift mode, round records, spike,
// swaps, switch_kda_credits and the roundNumber bound (docs/match-rules.md 4.7–4.15, 6–9).

import { describe, expect, it } from 'vitest';
import { row, rosterAll, Script, watchAllMatches } from '../../helpers/engine.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

/** Plays round n: shopping → combat → end → score, team `winner` (game team id) wins it. */
function playRound(s: Script, n: number, winner: 0 | 1, score: [number, number]): void {
  s.phase(n, 'shopping');
  s.wait(30_000);
  s.phase(n, 'combat');
  s.wait(40_000);
  s.phase(n, 'end');
  score[winner] += 1;
  s.ok('score', { team_0: score[0], team_1: score[1] });
  s.wait(7_000);
}

describe('side switch and overtime', () => {
  it('switches at round 13, then every round from 25, and grants one timeout once (cap 2)', () => {
    const s = new Script();
    rosterAll(s);
    s.ok('match_start', 'm-1');
    const score: [number, number] = [0, 0];
    const [left, right] = s.state.teams;
    // use one timeout of the left team before overtime
    s.ok('left_timeout', true);
    s.wait(60_000); // runs out: charged
    expect(s.state.tools.timeoutCounter).toMatchObject({ left: 1, right: 2 });

    for (let n = 1; n <= 12; n++) playRound(s, n, n % 2 === 0 ? 0 : 1, score);
    expect(left.isAttacking).toBe(true);
    s.ok('scoreboard', row('a0', { money: 3900 }));
    playRound(s, 13, 0, score);
    expect(left.isAttacking).toBe(false); // switched at the shopping of 13
    expect(right.isAttacking).toBe(true);
    for (let n = 14; n <= 24; n++) playRound(s, n, n % 2 === 0 ? 1 : 0, score);
    expect(score).toEqual([12, 12]);
    expect(s.state.hasEnteredOvertime).toBe(false);

    s.ok('scoreboard', row('a0', { money: 4500 }));
    const before = s.match.stateVersion;
    s.phase(25, 'shopping');
    // the grant raises stateVersion on top of the message's own raise
    expect(s.match.stateVersion).toBe(before + 2);
    expect(s.state.hasEnteredOvertime).toBe(true);
    expect(s.state.tools.timeoutCounter).toMatchObject({ max: 2, left: 2, right: 2 }); // min(2, 1+1), min(2, 2+1)
    expect(left.isAttacking).toBe(true); // switched again at 25
    expect(s.player('a0').money).toBe(800); // switch round
    expect(left.roundRecord).toHaveLength(29); // 25 + 4

    s.phase(25, 'combat');
    s.phase(25, 'end');
    s.ok('score', { team_0: 13, team_1: 12 });
    s.phase(26, 'shopping');
    expect(left.isAttacking).toBe(false); // every overtime round alternates
    expect(s.state.tools.timeoutCounter).toMatchObject({ left: 2, right: 2 }); // only once per match
    expect(left.roundRecord).toHaveLength(30);
    // round 25: team 0 attacked and won
    expect(left.roundRecord[24]).toEqual({ type: 'kills', wasAttack: true, round: 25 });
    expect(right.roundRecord[24]).toEqual({ type: 'lost', wasAttack: false, round: 25 });
    // the five following entries carry the side of round 25, before the switch
    expect(left.roundRecord.slice(25, 30)).toEqual(
      [26, 27, 28, 29, 30].map((round) => ({ type: 'upcoming', wasAttack: true, round })),
    );
    s.phase(26, 'combat');
    s.phase(26, 'end');
    s.ok('score', { team_0: 13, team_1: 13 });
    s.phase(27, 'shopping');
    expect(left.isAttacking).toBe(true);
    expect(left.roundRecord).toHaveLength(31); // "31 after the shopping of round 27"
    expect(right.roundRecord[25]).toEqual({ type: 'kills', wasAttack: true, round: 26 }); // right attacked in 26
    // index i holds round i + 1 everywhere
    left.roundRecord.forEach((e, i) => expect(e.round).toBe(i + 1));
  });

  it('swift mode switches at round 5 and never in overtime', () => {
    const s = new Script();
    rosterAll(s);
    s.ok('game_mode', 'swift');
    expect(s.state).toMatchObject({ matchType: 'swift', switchRound: 5, firstOtRound: 99 });
    const score: [number, number] = [0, 0];
    const left = s.state.teams[0];
    for (let n = 1; n <= 4; n++) playRound(s, n, 0, score);
    expect(left.isAttacking).toBe(true);
    s.ok('scoreboard', row('a1', { money: 2000 }));
    playRound(s, 5, 1, score);
    expect(left.isAttacking).toBe(false);
    for (let n = 6; n <= 8; n++) playRound(s, n, 1, score);
    s.phase(9, 'shopping');
    s.phase(10, 'shopping');
    expect(left.isAttacking).toBe(false);
    expect(s.state.hasEnteredOvertime).toBe(false);
    s.ok('game_mode', 'bomb');
    expect(s.state).toMatchObject({ matchType: 'bomb', switchRound: 13, firstOtRound: 25 });
  });
});

describe('round records', () => {
  it('records detonated, defused, timeout and kills with the right sides', () => {
    const s = new Script();
    rosterAll(s);
    const [left, right] = s.state.teams; // left = game team 0, attacking

    // round 1: attackers plant and the spike detonates
    s.phase(1, 'shopping');
    s.phase(1, 'combat');
    s.wait(20_000);
    s.ok('spike_planted', true);
    expect(s.state.spikeDetonationTime).toBe(s.now + 45_000);
    expect(s.state.roundTimeoutTime).toBeUndefined();
    s.wait(45_000);
    s.ok('spike_detonated', true);
    expect(s.state.spikeDetonationTime).toBeUndefined();
    s.phase(1, 'end');
    s.ok('score', { team_0: 1, team_1: 0 });
    expect(s.state.attackersWon).toBe(true);
    expect(s.state.spikeState.planted).toBe(false); // cleared by score

    // round 2: defenders run the clock out (end at 99 s; score after end)
    s.phase(2, 'shopping');
    expect(s.state.spikeState).toEqual({ planted: false, detonated: false, defused: false });
    s.phase(2, 'combat');
    const combatAt = s.now;
    expect(s.state.roundTimeoutTime).toBe(combatAt + 99_000);
    s.wait(99_000);
    s.phase(2, 'end');
    expect(s.state.wasTimeout).toBe(true);
    expect(s.state.roundTimeoutTime).toBeUndefined();
    s.ok('score', { team_0: 1, team_1: 1 });
    expect(s.state.wasTimeout).toBe(true); // kept: the timer was already unset
    expect(s.state.attackersWon).toBe(false);

    // round 3: plant, then defuse
    s.phase(3, 'shopping');
    s.phase(3, 'combat');
    expect(s.state.wasTimeout).toBe(false);
    s.ok('spike_planted', true);
    s.wait(50_000);
    s.phase(3, 'end');
    s.ok('score', { team_0: 1, team_1: 2 });
    s.ok('spike_defused', true);

    // round 4: defenders win by kills, 98 s into the round
    s.phase(4, 'shopping');
    s.phase(4, 'combat');
    s.wait(98_000);
    s.phase(4, 'end');
    expect(s.state.wasTimeout).toBe(false);
    s.ok('score', { team_0: 1, team_1: 3 });

    // round 5: attackers win by kills, the score arrives before the end (as in the recording)
    s.phase(5, 'shopping');
    s.phase(5, 'combat');
    s.wait(30_000);
    s.ok('score', { team_0: 2, team_1: 3 });
    s.phase(5, 'end');
    s.phase(6, 'shopping');

    const types = (t: typeof left) => t.roundRecord.slice(0, 5).map((e) => e.type);
    expect(types(left)).toEqual(['detonated', 'lost', 'lost', 'lost', 'kills']);
    expect(types(right)).toEqual(['lost', 'timeout', 'defused', 'kills', 'lost']);
    expect(left.roundRecord.slice(0, 5).every((e) => e.wasAttack)).toBe(true);
    expect(right.roundRecord.slice(0, 5).every((e) => !e.wasAttack)).toBe(true);
    expect(left.roundsWon).toBe(2);
    expect(right.roundsWon).toBe(3);
  });

  it('records the final round at game_end and reports the post-match team info', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(1, 'shopping');
    s.phase(1, 'combat');
    s.phase(1, 'end');
    s.ok('score', { team_0: 0, team_1: 1 });
    s.ok('left_timeout', true);
    s.phase(1, 'game_end');
    expect(s.state.isRunning).toBe(false);
    expect(s.state.teams[1].roundRecord[0]).toEqual({ type: 'kills', wasAttack: false, round: 1 });
    expect(s.state.teams[0].roundRecord[0]).toEqual({ type: 'lost', wasAttack: true, round: 1 });
    // timeout timers stopped, flags left as they are
    expect(s.match.nextTimerAt).toBeNull();
    expect(s.state.timeoutState.leftTeam).toBe(true);
    expect(s.match.takeEffects().find((e) => e.kind === 'team_info_final')).toEqual({
      kind: 'team_info_final',
      info: {
        higherScore: 1,
        tournamentInfo: { name: '', logoUrl: '', backdropUrl: '' },
        sponsorInfo: { enabled: false, duration: 5000, sponsors: [] },
        isSupporter: false,
      },
    });
    expect(s.match.ended).toBe(true);
    expect(s.send('score', { team_0: 5, team_1: 5 })).toEqual({ ok: false, reason: 'match_ended' });
    expect(s.state.teams[0].roundsWon).toBe(0);
  });

  it('drops round_info outside 1..99 without touching the state', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(3, 'shopping');
    const before = JSON.stringify(s.match.liveState());
    const ev = s.match.stateVersion;
    for (const n of [0, -1, 100, 1e9, 2.5]) {
      expect(s.send('round_info', { roundNumber: n, roundPhase: 'shopping' })).toMatchObject({ ok: false, reason: 'round_out_of_range' });
    }
    expect(s.send('round_info', { roundNumber: '7', roundPhase: 'shopping' })).toMatchObject({ ok: false, reason: 'invalid_data' });
    expect(s.match.stateVersion).toBe(ev);
    expect(JSON.stringify(s.match.liveState())).toBe(before);
    expect(s.state.teams[0].roundRecord).toHaveLength(25);
    // the bounds themselves are accepted
    s.phase(99, 'shopping');
    expect(s.state.roundNumber).toBe(99);
    expect(s.state.teams[0].roundRecord).toHaveLength(103); // 99 + 4, no holes
    s.state.teams[0].roundRecord.forEach((e, i) => expect(e.round).toBe(i + 1));
    s.phase(1, 'combat');
    expect(s.state.roundNumber).toBe(1);
  });
});

describe('spike plant', () => {
  it('is set by spike_planted only in combat and only once', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(1, 'shopping');
    s.ok('spike_planted', true);
    expect(s.state.spikeState.planted).toBe(false);
    s.phase(1, 'combat');
    const plantAt = s.now + 10_000;
    s.at(plantAt).ok('spike_planted', true);
    s.wait(5_000).ok('spike_planted', true);
    expect(s.state.spikeState.planted).toBe(true);
    expect(s.state.spikeDetonationTime).toBe(plantAt + 45_000); // the first one counts
    s.phase(1, 'end');
    expect(s.state.spikeDetonationTime).toBeUndefined();
  });

  it('is detected from a +300 money change during combat', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(1, 'shopping');
    s.ok('scoreboard', row('a2', { money: 400 }));
    s.ok('scoreboard', row('a2', { money: 700 })); // +300 in shopping: nothing
    expect(s.state.spikeState.planted).toBe(false);
    s.phase(1, 'combat');
    s.ok('scoreboard', row('a2', { money: 900 })); // +200 (kill reward): nothing
    expect(s.state.spikeState.planted).toBe(false);
    s.wait(12_345);
    s.ok('scoreboard', row('a2', { money: 1200 })); // exactly +300
    expect(s.state.spikeState.planted).toBe(true);
    expect(s.state.spikeDetonationTime).toBe(s.now + 45_000);
    expect(s.state.roundTimeoutTime).toBeUndefined();
    // an unknown player id never triggers it
    const s2 = new Script();
    rosterAll(s2);
    s2.phase(1, 'combat');
    s2.ok('scoreboard', row('a9', { agentInternal: 'Wushu', money: 1100 }));
    expect(s2.state.spikeState.planted).toBe(false);
  });

  it('is detected from auxiliary rows too', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(1, 'combat');
    s.ok('scoreboard', row('b1', { money: 500 }));
    expect(s.aux('b0', 'aux_scoreboard_team', JSON.stringify([{ ...row('b1', { money: 800 }), startTeam: undefined }])).ok).toBe(true);
    expect(s.state.spikeState.planted).toBe(true);
  });
});

describe('operator toggles', () => {
  it('swap_left_right reverses the teams and the timeout counters, not the timeout flags', () => {
    const s = new Script();
    s.ok('left_timeout', true);
    s.wait(60_000);
    expect(s.state.tools.timeoutCounter).toMatchObject({ left: 1, right: 2 });
    s.ok('right_timeout', true);
    s.ok('swap_left_right', true);
    expect(s.state.teams.map((t) => t.teamName)).toEqual(['Team Bravo', 'Team Alpha']);
    expect(s.state.tools.timeoutCounter).toMatchObject({ left: 2, right: 1 });
    expect(s.state.timeoutState).toMatchObject({ leftTeam: false, rightTeam: true });
    // ingameTeamId routing still works after the swap
    rosterAll(s);
    expect(s.state.teams[0].players.map((p) => p.riotId)).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
  });

  it('swap_attacker_defender flips sides and swaps scores and records, keeping ingameTeamId', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(1, 'shopping');
    s.phase(1, 'combat');
    s.phase(1, 'end');
    s.ok('score', { team_0: 1, team_1: 0 });
    s.phase(2, 'shopping');
    const [left, right] = s.state.teams;
    const leftRecord = left.roundRecord;
    const rightRecord = right.roundRecord;
    s.ok('swap_attacker_defender', true);
    expect([left.isAttacking, right.isAttacking]).toEqual([false, true]);
    expect([left.roundsWon, right.roundsWon]).toEqual([0, 1]);
    expect(left.roundRecord).toBe(rightRecord);
    expect(right.roundRecord).toBe(leftRecord);
    expect([left.ingameTeamId, right.ingameTeamId]).toEqual([0, 1]);
    expect(left.players[0].riotId).toBe('a0');
    // the next score sets roundsWon by game team again
    s.ok('score', { team_0: 1, team_1: 1 });
    expect([left.roundsWon, right.roundsWon]).toEqual([1, 1]);
  });

  it('switch_kda_credits toggles showAliveKDA', () => {
    const s = new Script();
    s.ok('switch_kda_credits', true);
    expect(s.state.showAliveKDA).toBe(true);
    s.ok('switch_kda_credits', true);
    expect(s.state.showAliveKDA).toBe(false);
  });

  it('maps the map name, with the Infinity alias and the Corrode fallback', () => {
    const s = new Script();
    expect(s.state.map).toBe('Loading');
    s.ok('map', 'Infinity');
    expect(s.state.map).toBe('Abyss');
    s.ok('map', 'Port');
    expect(s.state.map).toBe('Icebox');
    s.ok('map', 'SomeNewMap');
    expect(s.state.map).toBe('Corrode');
    s.ok('map', 'constructor');
    expect(s.state.map).toBe('Corrode');
  });
});
