// Message intake (docs/match-rules.md 3): envelope and data validation before any change, unknown types,
// the clients' quirks (docs/client-contract.md 3.5) and stateVersion (section 13).

import { describe, expect, it } from 'vitest';
import { dataValidators, validateObserverEnvelope } from '../../../src/schemas/checks.js';
import { row, rosterAll, Script, watchAllMatches } from '../../helpers/engine.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

describe('envelope', () => {
  it('needs a string type, data, and groupCode (observer) or matchId + playerId (aux_*)', () => {
    const s = new Script();
    const m = s.match;
    expect(m.apply(null, s.now)).toMatchObject({ ok: false, reason: 'invalid_envelope' });
    expect(m.apply([1, 2], s.now)).toMatchObject({ ok: false, reason: 'invalid_envelope' });
    expect(m.apply({ groupCode: 'K7QX2M', data: 'Port' }, s.now)).toMatchObject({ ok: false, reason: 'invalid_envelope' });
    expect(m.apply({ groupCode: 'K7QX2M', type: 'map' }, s.now)).toMatchObject({ ok: false, reason: 'invalid_envelope' });
    expect(m.apply({ type: 'map', data: 'Port' }, s.now)).toMatchObject({ ok: false, reason: 'invalid_envelope' });
    expect(m.apply({ groupCode: 'K7QX2M', type: 7, data: 'Port' }, s.now)).toMatchObject({ ok: false, reason: 'invalid_envelope' });
    expect(m.apply({ matchId: 'x', type: 'aux_health', data: 5 }, s.now)).toMatchObject({ ok: false, reason: 'invalid_envelope' });
    expect(m.apply('{"groupCode":', s.now)).toEqual({ ok: false, reason: 'invalid_json' });
    expect(m.stateVersion).toBe(1);
    expect(s.state.map).toBe('Loading');
    // a JSON string is accepted like an object; extra members are allowed; data may be null
    expect(m.apply('{"obsName":"O","groupCode":"K7QX2M","type":"map","data":"Port","timestamp":5}', s.now)).toEqual({ ok: true });
    expect(s.state.map).toBe('Icebox');
    expect(m.apply({ groupCode: 'K7QX2M', type: 'tech_pause', data: null }, s.now)).toEqual({ ok: true });
    expect(validateObserverEnvelope({ groupCode: 'X', type: 't', data: 0, extra: {} })).toBe(true);
  });

  it('accepts unknown and legacy types without change, raising stateVersion', () => {
    const s = new Script();
    const before = JSON.stringify(s.state);
    expect(s.send('team_is_attacker', true).ok).toBe(true);
    expect(s.send('some_future_type', { anything: [1] }).ok).toBe(true);
    expect(s.send('__proto__', {}).ok).toBe(true);
    expect(JSON.stringify(s.state)).toBe(before);
    expect(s.match.stateVersion).toBe(4);
  });
});

describe('data validation', () => {
  it('rejects a malformed message before changing anything', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(1, 'combat');
    const before = JSON.stringify(s.state);
    const ev = s.match.stateVersion;
    const bad: Array<[string, unknown]> = [
      ['scoreboard', { ...row('a0'), kills: '3' }],
      ['scoreboard', { ...row('a0'), money: undefined }],
      ['scoreboard', { ...row('a0'), isAlive: 'true' }],
      ['scoreboard', { ...row('a0'), money: 1e300 }],
      ['roster', { name: 'X', tagline: 'Y', startTeam: '0', playerId: 'x', position: 1, locked: true }],
      ['killfeed', { attacker: 'A0', victim: 'B0', weaponKillfeedInternal: 5 }],
      ['killfeed', { attacker: 'A0', victim: 'B0', weaponKillfeedInternal: '', assists: 'TX_Killfeed_Sova' }],
      ['round_info', { roundNumber: 2 }],
      ['score', { team_0: 1 }],
      ['score', { team_0: 1, team_1: null }],
      ['match_start', 42],
      ['map', { name: 'Port' }],
      ['game_mode', null],
      ['observing', ['A0 #EUW']],
      ['toast', 'hello'],
    ];
    for (const [type, data] of bad) {
      expect(s.send(type, data), type).toMatchObject({ ok: false, reason: 'invalid_data' });
    }
    expect(JSON.stringify(s.state)).toBe(before);
    expect(s.match.stateVersion).toBe(ev);
  });

  it('rejects non-finite numbers (JSON 1e400 parses to Infinity)', () => {
    const s = new Script();
    rosterAll(s);
    const text = JSON.stringify({ groupCode: 'K7QX2M', type: 'scoreboard', data: row('a0') }).replace('"money":800', '"money":1e400');
    expect(s.match.apply(text, s.now)).toMatchObject({ ok: false, reason: 'invalid_data' });
    expect(dataValidators.get('aux_health')!(Infinity)).toBe(false);
  });

  it('tolerates the real clients quirks', () => {
    const s = new Script();
    // roster startTeam as a string, scoreboard startTeam as a number
    s.ok('roster', { name: 'Quillon', tagline: '00000', startTeam: '1', agentInternal: 'Breach', playerId: 'q', position: 1, locked: true, rank: 0 });
    s.ok('scoreboard', { ...row('b1'), playerId: 'q', startTeam: 1, scoreboardWeaponInternal: '', kills: 1 });
    expect(s.player('q')).toMatchObject({ kills: 1, agentProper: 'Breach' });
    expect(s.player('q').highestWeapon).toBeUndefined();
    // a scoreboard row without tagline (name without " #")
    const { tagline, ...noTag } = { ...row('b1'), playerId: 'q', kills: 2 };
    void tagline;
    s.ok('scoreboard', noTag);
    expect(s.player('q').kills).toBe(2);
    // killfeed without assists and with non-boolean flags
    s.ok('killfeed', { attacker: 'Quillon', victim: 'Nobody', weaponKillfeedInternal: 'TX_Hud_LMG' });
    expect(s.player('q').killsByWeaponsAndAbilities['TX_Hud_LMG']).toBe(1);
    // unmapped agents keep their internal name as agentProper
    s.ok('roster', { name: 'Quillon', tagline: '00000', startTeam: 1, agentInternal: 'NewAgent', playerId: 'q', position: 1, locked: true });
    expect(s.player('q').agentProper).toBe('NewAgent');
  });

  it('raises stateVersion once per accepted message', () => {
    const s = new Script();
    expect(s.match.stateVersion).toBe(1);
    rosterAll(s);
    expect(s.match.stateVersion).toBe(11);
    s.ok('scoreboard', row('a9', { agentInternal: 'Wushu' })); // nobody: still accepted
    expect(s.match.stateVersion).toBe(12);
    expect(s.match.lastChangeAt).toBe(s.now);
  });
});
