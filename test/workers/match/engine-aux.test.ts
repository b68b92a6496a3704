// Auxiliary data (docs/match-rules.md 5): all six types, the sender's team for aux_scoreboard_team,
// the observer-row precedence, the shopping reset and the disconnect.

import { describe, expect, it } from 'vitest';
import { serializeMatch } from '../../../src/workers/match/serialize.js';
import { row, rosterAll, Script, plainFrame, SERVER_TIME, watchAllMatches } from '../../helpers/engine.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

function teamRow(playerId: string, over: Record<string, unknown> = {}) {
  const { name, tagline, startTeam, ...rest } = row(playerId, over);
  void name; void tagline; void startTeam;
  return rest;
}

describe('auxiliary data', () => {
  it('aux_scoreboard updates a player until an observer row arrives in the same round', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(2, 'shopping');
    expect(s.aux('a3', 'aux_scoreboard', row('a3', { kills: 4, assists: 2, money: 3000 })).ok).toBe(true);
    const a3 = s.player('a3');
    expect(a3).toMatchObject({ kills: 4, assists: 2, money: 3000, auxiliaryAvailable: { health: false, abilities: false, scoreboard: true }, scoreboardAvailable: false });
    expect(s.state.teams[0].spentThisRound).toBe(0); // not recomputed by auxiliary rows
    s.ok('scoreboard', row('a3', { kills: 5, assists: 2, money: 3000 }));
    s.aux('a3', 'aux_scoreboard', row('a3', { kills: 9, money: 100 }));
    expect(a3).toMatchObject({ kills: 5, money: 3000 }); // observer data wins this round
    s.phase(3, 'shopping');
    expect(a3.auxiliaryAvailable.scoreboard).toBe(false);
    s.aux('a3', 'aux_scoreboard', row('a3', { kills: 6, assists: 2, money: 3000 }));
    expect(a3.kills).toBe(6);
  });

  it('aux_scoreboard_team as a JSON string updates the team that contains the sender', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(1, 'shopping');
    // the sender b2 is in the right team (game team 1); the rows carry no startTeam
    const rows = [teamRow('b0', { kills: 3, money: 4000 }), teamRow('b4', { kills: 1, deaths: 2, money: 2500 })];
    expect(s.aux('b2', 'aux_scoreboard_team', JSON.stringify(rows)).ok).toBe(true);
    expect(s.player('b0')).toMatchObject({ kills: 3, money: 4000, auxiliaryAvailable: { scoreboard: true } });
    expect(s.player('b4')).toMatchObject({ kills: 1, deaths: 2, kdRatio: 0.5 });
    expect(s.player('b2').auxiliaryAvailable.scoreboard).toBe(false);
    // the same rows from a left-team sender touch nobody (those ids are not in the left team)
    const before = JSON.stringify(s.state);
    expect(s.aux('a0', 'aux_scoreboard_team', [teamRow('b0', { kills: 9 })]).ok).toBe(true);
    expect(JSON.stringify(s.state)).toBe(before);
    // as an array from the left team
    expect(s.aux('a0', 'aux_scoreboard_team', [teamRow('a1', { kills: 2 })]).ok).toBe(true);
    expect(s.player('a1').kills).toBe(2);
  });

  it('rejects aux_scoreboard_team from an unknown sender or with bad rows, without applying any row', () => {
    const s = new Script();
    rosterAll(s);
    const ev = s.match.stateVersion;
    expect(s.aux('zz', 'aux_scoreboard_team', [teamRow('a1', { kills: 2 })])).toMatchObject({ ok: false, reason: 'unknown_sender' });
    expect(s.aux('a0', 'aux_scoreboard_team', '[{"playerId":')).toMatchObject({ ok: false, reason: 'invalid_data' });
    expect(s.aux('a0', 'aux_scoreboard_team', '{"playerId":"a1"}')).toMatchObject({ ok: false, reason: 'invalid_data' });
    // the first row is fine, the second lacks kills: nothing is applied
    const bad = [teamRow('a1', { kills: 2 }), { ...teamRow('a2'), kills: undefined }];
    expect(s.aux('a0', 'aux_scoreboard_team', JSON.stringify(bad))).toMatchObject({ ok: false, reason: 'invalid_data' });
    expect(s.player('a1').kills).toBe(0);
    expect(s.match.stateVersion).toBe(ev);
  });

  it('aux_health and aux_abilities use the envelope player id; abilities may be booleans', () => {
    const s = new Script();
    rosterAll(s);
    s.aux('b3', 'aux_health', 57);
    expect(s.player('b3')).toMatchObject({ health: 57, auxiliaryAvailable: { health: true, abilities: false, scoreboard: false } });
    expect(s.aux('b3', 'aux_health', '57')).toMatchObject({ ok: false, reason: 'invalid_data' });
    s.aux('b3', 'aux_abilities', { grenade: 1, ability_1: 2, ability_2: 0 });
    expect(s.player('b3').abilities).toEqual({ grenade: 1, ability1: 2, ability2: 0 });
    s.aux('b3', 'aux_abilities', { grenade: true, ability_1: false, ability_2: true, extra: 1 });
    expect(s.player('b3').abilities).toEqual({ grenade: true, ability1: false, ability2: true });
    expect(s.player('b3').auxiliaryAvailable.abilities).toBe(true);
    expect(s.aux('b3', 'aux_abilities', { grenade: 1, ability_1: 'x', ability_2: 0 })).toMatchObject({ ok: false, reason: 'invalid_data' });
    // health and abilities survive rounds; the scoreboard flag does not
    s.phase(2, 'shopping');
    expect(s.player('b3').auxiliaryAvailable).toEqual({ health: true, abilities: true, scoreboard: false });
    expect(s.player('b3').health).toBe(100); // shopping resets health
    expect(JSON.parse(serializeMatch(s.match, SERVER_TIME))).toEqual(plainFrame(s.match));
  });

  it('auxDisconnected clears the flags and raises stateVersion', () => {
    const s = new Script();
    rosterAll(s);
    s.aux('a2', 'aux_health', 80);
    s.aux('a2', 'aux_abilities', { grenade: 1, ability_1: 1, ability_2: 1 });
    s.aux('a2', 'aux_scoreboard', row('a2'));
    const ev = s.match.stateVersion;
    s.match.auxDisconnected('a2', s.now);
    expect(s.player('a2').auxiliaryAvailable).toEqual({ health: false, abilities: false, scoreboard: false });
    expect(s.match.stateVersion).toBe(ev + 1);
    s.match.auxDisconnected('nobody', s.now);
    expect(s.match.stateVersion).toBe(ev + 1);
  });

  it('applyAux (an auxiliary session) applies the six auxiliary types only, and only as the session\'s own player', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(1, 'shopping');
    const before = JSON.stringify(s.state);
    const ev = s.match.stateVersion;
    const observerTypes: [string, unknown][] = [
      ['score', { team_0: 12, team_1: 0 }], ['match_start', 'forged'], ['round_info', { roundNumber: 5, roundPhase: 'combat' }],
      ['roster', { name: 'X', tagline: 'X', startTeam: '0', agentInternal: 'Wushu', playerId: 'x9', position: 1, locked: true, rank: 0 }],
      ['swap_left_right', true], ['killfeed', { attacker: 'A0', victim: 'B0', weaponKillfeedInternal: '', headshotKill: true, assists: [], isTeamkill: false }],
      ['scoreboard', row('b0', { money: 9000 })], ['tech_pause', true], ['toast', { title: 't', message: 'm', duration: 5000, selectedTeam: 'none', eventLogoEnabled: true }],
      ['team_is_attacker', true], ['aux_future_thing', { x: 1 }], ['not_a_type', 1],
    ];
    for (const [type, data] of observerTypes) {
      // whatever the envelope claims: the match's group code, an observer name, the sender's or another player id
      for (const playerId of ['a0', 'b1']) {
        const env = { obsName: 'Observer#EUW', groupCode: 'K7QX2M', matchId: 'm-1', playerId, type, data };
        expect(s.match.applyAux(env, 'a0', s.now)).toEqual({ ok: false, reason: 'not_aux_type', detail: type });
        expect(s.match.applyAux(JSON.stringify(env), 'a0', s.now)).toMatchObject({ ok: false, reason: 'not_aux_type' });
      }
    }
    expect(s.match.applyAux({ matchId: 'm-1', playerId: 'a0', data: 1 }, 'a0', s.now)).toMatchObject({ ok: false, reason: 'not_aux_type' });
    expect(s.match.applyAux(null, 'a0', s.now)).toMatchObject({ ok: false, reason: 'not_aux_type' });
    // every auxiliary type names the session's player in its envelope
    expect(s.match.applyAux({ playerId: 'b1', matchId: 'm-1', type: 'aux_health', data: 3 }, 'a0', s.now)).toEqual({ ok: false, reason: 'player_mismatch', detail: 'aux_health' });
    expect(s.match.applyAux({ playerId: 'b1', matchId: 'm-1', type: 'aux_scoreboard_team', data: [teamRow('b0', { money: 7777 })] }, 'a0', s.now))
      .toMatchObject({ ok: false, reason: 'player_mismatch' });
    expect(JSON.stringify(s.state)).toBe(before);
    expect(s.match.stateVersion).toBe(ev);
    // its own data applies
    expect(s.match.applyAux({ playerId: 'a0', matchId: 'm-1', type: 'aux_health', data: 42 }, 'a0', s.now).ok).toBe(true);
    expect(s.player('a0').health).toBe(42);
  });

  it('apply (the observer) takes aux_ records of replay files for its own match, unknown aux_ types included', () => {
    const s = new Script();
    rosterAll(s);
    expect(s.match.apply({ playerId: 'a0', matchId: 'm', type: 'aux_health', data: 42, timestamp: 1 }, s.now).ok).toBe(true);
    expect(s.player('a0').health).toBe(42);
    // an aux record needs the auxiliary envelope
    expect(s.match.apply({ groupCode: 'K7QX2M', type: 'aux_health', data: 42 }, s.now)).toMatchObject({ ok: false, reason: 'invalid_envelope' });
    // unknown aux types are accepted and change nothing
    const ev = s.match.stateVersion;
    expect(s.match.apply({ playerId: 'a0', matchId: 'm', type: 'aux_future_thing', data: { x: 1 } }, s.now).ok).toBe(true);
    expect(s.match.stateVersion).toBe(ev + 1);
  });
});
