// The whole recorded match (19 rounds on Icebox, final score team_0 6 – team_1 13) through the engine.

import { beforeAll, describe, expect, it } from 'vitest';
import { Match } from '../../../src/workers/match/match.js';
import type { MatchState, RoundRecordType } from '../../../src/workers/match/types.js';
import { loadReplay, SETTINGS, type Replay, watchAllMatches } from '../../helpers/engine.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

interface Outcome {
  round: number;
  winner: 0 | 1;
  defused: boolean;
  detonated: boolean;
  /** combat lasted ≥ 99 s with no spike_planted before the end */
  timedOut: boolean;
}

/** Independent reading of the file: who won each round and how, from the raw messages. */
function outcomes(replay: Replay): Outcome[] {
  const rounds = new Map<number, Outcome & { combatAt: number; endAt: number; planted: boolean }>();
  const get = (round: number) => {
    let o = rounds.get(round);
    if (!o) {
      o = { round, winner: 0, defused: false, detonated: false, timedOut: false, combatAt: 0, endAt: 0, planted: false };
      rounds.set(round, o);
    }
    return o;
  };
  let round = 0;
  let phase = '';
  let score = [0, 0];
  for (const r of replay.records) {
    if (r.type === 'round_info') {
      const d = r.data as { roundNumber: number; roundPhase: string };
      round = d.roundNumber;
      phase = d.roundPhase;
      if (phase === 'combat') get(round).combatAt = r.timestamp;
      if (phase === 'end') get(round).endAt = r.timestamp;
    } else if (r.type === 'spike_planted' && phase === 'combat') get(round).planted = true;
    else if (r.type === 'spike_defused' && (phase === 'combat' || phase === 'end')) get(round).defused = true;
    else if (r.type === 'spike_detonated') get(round).detonated = true;
    else if (r.type === 'score') {
      const d = r.data as { team_0: number; team_1: number };
      get(round).winner = d.team_0 > score[0] ? 0 : 1;
      score = [d.team_0, d.team_1];
    }
  }
  return [...rounds.values()]
    .sort((a, b) => a.round - b.round)
    .map((o) => ({ ...o, timedOut: !o.planted && o.endAt - o.combatAt >= 99_000 }));
}

function expectedType(o: Outcome, team: 0 | 1): RoundRecordType {
  const attacker: 0 | 1 = o.round <= 12 ? 0 : 1;
  if (o.winner !== team) return 'lost';
  if (team === attacker) return o.detonated ? 'detonated' : 'kills';
  if (o.defused) return 'defused';
  if (o.timedOut) return 'timeout';
  return 'kills';
}

describe('replay of the recorded match', () => {
  let replay: Replay;
  let match: Match;
  let final: MatchState;
  const drops: string[] = [];
  const stateVersions: number[] = [];

  beforeAll(() => {
    replay = loadReplay();
    const h = replay.header;
    match = Match.create(
      { groupCode: h.groupCode, leftTeam: h.leftTeam, rightTeam: h.rightTeam, toolsData: h.toolsData, organizationId: '', isSupporter: false },
      h.logStartTime,
      SETTINGS,
    );
    for (const rec of replay.records) {
      const r = match.apply(rec, rec.timestamp);
      if (!r.ok) drops.push(`${rec.type}: ${r.reason} ${r.detail ?? ''}`);
      stateVersions.push(match.stateVersion);
    }
    final = match.liveState();
  });

  it('accepts every one of the 2,763 messages', () => {
    expect(replay.records).toHaveLength(2763);
    expect(drops).toEqual([]);
    // one raise per accepted message, starting one above the "last sent" marker 0
    expect(stateVersions[0]).toBe(2);
    expect(stateVersions[stateVersions.length - 1]).toBe(1 + 2763);
  });

  it('ends the game: game_end phase, not running, ended', () => {
    expect(final.roundPhase).toBe('game_end');
    expect(final.roundNumber).toBe(19);
    expect(final.isRunning).toBe(false);
    expect(match.ended).toBe(true);
    expect(final.map).toBe('Icebox');
    expect(final.matchId).toBe('c0ffee00-1111-2222-3333-444455556666');
    expect(match.apply(replay.records[0], replay.records[0].timestamp)).toEqual({ ok: false, reason: 'match_ended' });
  });

  it('has the final score 6–13 on the right teams', () => {
    // team_0 started on attack = the header's leftTeam (attackStart true)
    expect(replay.header.leftTeam.attackStart).toBe(true);
    const [left, right] = final.teams;
    expect(left.teamName).toBe(replay.header.leftTeam.name);
    expect(left.ingameTeamId).toBe(0);
    expect(left.roundsWon).toBe(6);
    expect(right.teamName).toBe(replay.header.rightTeam.name);
    expect(right.ingameTeamId).toBe(1);
    expect(right.roundsWon).toBe(13);
    // after the side switch at round 13, team 0 defends
    expect(left.isAttacking).toBe(false);
    expect(right.isAttacking).toBe(true);
  });

  it('writes 19 round records per team that agree with the score sequence', () => {
    const os = outcomes(replay);
    expect(os.map((o) => o.round)).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    expect(os.filter((o) => o.winner === 0)).toHaveLength(6);
    for (const team of final.teams) {
      const id = team.ingameTeamId;
      expect(team.roundRecord.length).toBe(25);
      for (const o of os) {
        const entry = team.roundRecord[o.round - 1];
        expect(entry, `team ${id} round ${o.round}`).toEqual({
          type: expectedType(o, id),
          wasAttack: o.round <= 12 ? id === 0 : id === 1,
          round: o.round,
        });
      }
      // rounds 20–24 were rewritten as upcoming with the final round's side, 25 keeps its start side
      for (let r = 20; r <= 24; r++) {
        expect(team.roundRecord[r - 1]).toEqual({ type: 'upcoming', wasAttack: id === 1, round: r });
      }
      expect(team.roundRecord[24]).toEqual({ type: 'upcoming', wasAttack: id === 0, round: 25 });
    }
  });

  it('matches the first 13 rounds of the example frame in docs/match-rules.md 16.4', () => {
    const alpha = ['lost', 'lost', 'kills', 'lost', 'lost', 'lost', 'lost', 'lost', 'kills', 'lost', 'lost', 'kills', 'kills'];
    const bravo = ['defused', 'kills', 'lost', 'kills', 'timeout', 'timeout', 'defused', 'defused', 'lost', 'kills', 'defused', 'lost', 'lost'];
    expect(final.teams[0].roundRecord.slice(0, 13).map((e) => e.type)).toEqual(alpha);
    expect(final.teams[1].roundRecord.slice(0, 13).map((e) => e.type)).toEqual(bravo);
  });

  it("gives every player the kills/deaths/assists of their last scoreboard row", () => {
    const last = new Map<string, { kills: number; deaths: number; assists: number }>();
    for (const r of replay.records) {
      if (r.type === 'scoreboard') {
        const d = r.data as { playerId: string; kills: number; deaths: number; assists: number };
        last.set(d.playerId, { kills: d.kills, deaths: d.deaths, assists: d.assists });
      }
    }
    expect(last.size).toBe(10);
    const players = final.teams.flatMap((t) => t.players);
    expect(players).toHaveLength(10);
    for (const p of players) {
      const want = last.get(p.riotId)!;
      expect({ id: p.riotId, kills: p.kills, deaths: p.deaths, assists: p.assists }).toEqual({ id: p.riotId, ...want });
      expect(p.kdRatio).toBe(p.deaths === 0 ? null : p.kills / p.deaths);
    }
    expect(final.teams[0].playerCount).toBe(5);
    expect(final.teams[1].playerCount).toBe(5);
  });

  it('keeps killfeed counters that add up', () => {
    const kills = replay.records.filter((r) => r.type === 'killfeed');
    const players = final.teams.flatMap((t) => t.players);
    const byWeapon = players.reduce((n, p) => n + Object.values(p.killsByWeaponsAndAbilities).reduce((a, b) => a + b, 0), 0);
    expect(byWeapon).toBe(kills.length);
    const teamkillFlags = kills.filter((r) => (r.data as { isTeamkill: boolean }).isTeamkill === true).length;
    expect(players.reduce((n, p) => n + p.teamKills, 0)).toBe(teamkillFlags);
    const headshots = kills.filter((r) => (r.data as { headshotKill: boolean }).headshotKill === true).length;
    expect(players.reduce((n, p) => n + p.headshotKills, 0)).toBe(headshots);
  });

  it('emits register at match_start and the post-match team info at game_end', () => {
    const effects = match.takeEffects();
    expect(effects.filter((e) => e.kind === 'register')).toEqual([
      { kind: 'register', matchId: 'c0ffee00-1111-2222-3333-444455556666' },
    ]);
    const info = effects.find((e) => e.kind === 'team_info_final');
    expect(info).toMatchObject({ kind: 'team_info_final', info: { higherScore: 1, isSupporter: false } });
    // never registered, so no update or complete
    expect(effects.some((e) => e.kind === 'update' || e.kind === 'complete')).toBe(false);
  });
});
