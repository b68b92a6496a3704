// Roster, scoreboard rows, killfeed and its fallbacks, observing, icon suffixes
// (docs/match-rules.md 4.1–4.4, 11, 12).

import { describe, expect, it } from 'vitest';
import { logon, row, rosterAll, Script, watchAllMatches } from '../../helpers/engine.js';
import { touch } from '../../../src/workers/match/dirty.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

function kill(attacker: string, victim: string, over: Record<string, unknown> = {}) {
  return { attacker, victim, weaponKillfeedInternal: 'TX_Hud_Volcano', headshotKill: false, assists: [], isTeamkill: false, ...over };
}

describe('roster', () => {
  it('creates players once per id, up to 5 per team, and stamps the first roster time', () => {
    const s = new Script();
    s.at(s.now + 1234);
    s.ok('roster', { name: 'X', tagline: 'T', startTeam: '7', agentInternal: '', playerId: 'x', position: 0, locked: false });
    expect(s.state.agentSelectStartTime).toBeUndefined(); // no team 7: nothing
    s.ok('roster', { name: 'A0', tagline: '', startTeam: '0', agentInternal: '', playerId: 'a0', position: 5, locked: false });
    expect(s.state.agentSelectStartTime).toBe(s.now);
    expect(s.state.teams[0].players).toHaveLength(0); // empty tagline: nothing more
    const first = s.now;
    s.wait(1000);
    s.ok('roster', { name: 'A0', tagline: 'EUW', startTeam: '0', agentInternal: '', playerId: 'a0', position: 5, locked: false, rank: 12 });
    expect(s.state.agentSelectStartTime).toBe(first);
    const p = s.player('a0');
    expect(p).toMatchObject({
      name: 'A0', tagline: 'EUW', riotId: 'a0', searchName: 'A0 #EUW', fullName: 'A0#EUW', position: 5,
      locked: false, agentInternal: '', agentProper: 'No Agent selected', highestWeapon: 'Unknown', armorName: 'None',
      kdRatio: 0, headshotRatio: 0, currentMMRTier: null,
    });
    s.ok('roster', { name: 'A0new', tagline: 'EUW2', startTeam: 0, agentInternal: 'Clay_PC_C', playerId: 'a0', position: 9, locked: true });
    expect(p).toMatchObject({ name: 'A0new', tagline: 'EUW2', agentInternal: 'Clay_PC_C', agentProper: 'Raze', locked: true, position: 5, searchName: 'A0 #EUW' });
    for (let i = 1; i <= 5; i++) {
      s.ok('roster', { name: `A${i}`, tagline: 'EUW', startTeam: '0', agentInternal: 'Wushu', playerId: `a${i}`, position: 5 + i, locked: true });
    }
    expect(s.state.teams[0].players.map((x) => x.riotId)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    expect(s.state.teams[0].playerCount).toBe(5);
    expect(s.match.takeEffects()).toContainEqual(expect.objectContaining({ kind: 'warn', code: 'team_full' }));
  });

  it('removes the tricode at creation only when removeTricodes is on', () => {
    const s = new Script(logon({ toolsData: { playercamsInfo: { enable: true, removeTricodes: true, identifier: '', secret: '', endTime: 0 } } }));
    expect(s.state.teams[0].removeTricode).toBe(true);
    s.ok('roster', { name: 'ALP Kestrel', tagline: 'senti', startTeam: '0', agentInternal: 'Grenadier', playerId: 'k', position: 5, locked: true });
    expect(s.player('k')).toMatchObject({ name: 'Kestrel', fullName: 'ALP Kestrel#senti', agentProper: 'KAYO' });
    s.ok('roster', { name: 'ALP Kestrel', tagline: 'senti', startTeam: '0', agentInternal: 'Grenadier', playerId: 'k', position: 5, locked: true });
    expect(s.player('k').name).toBe('ALP Kestrel'); // the update restores the raw name, as in the reference
  });

  it('sets the team side from startTeam when a player joins', () => {
    const s = new Script();
    const right = s.state.teams[1];
    right.isAttacking = true; // e.g. after a manual swap
    s.ok('roster', { name: 'B0', tagline: 'NA1', startTeam: '1', agentInternal: 'Gumshoe', playerId: 'b0', position: 0, locked: true });
    expect(right.isAttacking).toBe(false);
  });
});

describe('scoreboard rows', () => {
  it('applies the shared row update and sums spentThisRound', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(1, 'shopping');
    s.ok('scoreboard', row('a0', { money: 800, initialArmor: 0, scoreboardWeaponInternal: 'TX_Hud_Pistol_Classic' }));
    s.ok('scoreboard', row('a0', { money: 400, initialArmor: 1 }));
    s.ok('scoreboard', row('a1')); // 0 → 800: money rose, nothing spent
    s.ok('scoreboard', row('a1', { money: 100, startTeam: 0 }));
    s.ok('scoreboard', row('a0', { money: 600 })); // kill reward during buy: moneySpent decreases
    const a0 = s.player('a0');
    expect(a0).toMatchObject({ money: 600, moneySpent: 200, spentMoneyThisRound: true, armorName: 'Heavy', highestWeapon: 'Vandal', scoreboardAvailable: true });
    expect(s.player('a1')).toMatchObject({ money: 100, moneySpent: 700 });
    expect(s.state.teams[0].spentThisRound).toBe(900);
    s.ok('scoreboard', row('a0', { money: 600, initialArmor: 7, scoreboardWeaponInternal: '' }));
    expect(a0.armorName).toBeUndefined();
    expect(a0.highestWeapon).toBeUndefined();
    s.ok('scoreboard', row('a0', { money: 600, scoreboardWeaponInternal: 'knife', initialArmor: 4 }));
    expect(a0).toMatchObject({ highestWeapon: 'Knife', armorName: 'Regen' });

    s.phase(1, 'combat');
    s.ok('scoreboard', row('a0', { money: 600, kills: 3, deaths: 1, assists: 1, currUltPoints: 7, maxUltPoints: 7 }));
    expect(a0).toMatchObject({ kills: 3, killsThisRound: 1, kdRatio: 3, ultReady: true }); // +1 even for a jump of 3
    s.ok('scoreboard', row('a0', { money: 600, kills: 3, deaths: 2, isAlive: false }));
    expect(a0).toMatchObject({ isAlive: false, health: 0, deathsThisRound: 2, kdRatio: 1.5 });
    s.ok('scoreboard', row('a0', { money: 600, kills: 3, deaths: 2, isAlive: true, hasSpike: true }));
    expect(a0).toMatchObject({ isAlive: true, health: 100, hasSpike: true });
    // name and tagline are never changed by scoreboard rows
    s.ok('scoreboard', row('a0', { money: 600, name: 'Other', tagline: 'X', kills: 3, deaths: 2 }));
    expect(a0.name).toBe('A0');

    s.phase(1, 'end');
    s.phase(2, 'shopping');
    expect(a0).toMatchObject({ killsThisRound: 0, deathsThisRound: 0, moneySpent: 0, spentMoneyThisRound: false, scoreboardAvailable: false, isAlive: true, health: 100 });
    expect(a0.money).toBe(600); // not a switch round
    expect(s.state.teams[0].spentThisRound).toBe(900); // only recomputed on the next observer row
  });

  it('accepts startTeam as a string and ignores rows for unknown players or teams', () => {
    const s = new Script();
    rosterAll(s);
    expect(s.send('scoreboard', row('b2', { startTeam: '1' as unknown as number, kills: 4 })).ok).toBe(true);
    expect(s.player('b2').kills).toBe(4);
    const before = JSON.stringify(s.state);
    expect(s.send('scoreboard', row('b2', { startTeam: 0, kills: 9 })).ok).toBe(true); // b2 is not in team 0
    expect(s.send('scoreboard', row('b2', { startTeam: 5, kills: 9 })).ok).toBe(true);
    expect(JSON.stringify(s.state)).toBe(before);
  });
});

describe('killfeed', () => {
  it('counts per weapon, victim, headshot and teamkill without a cap', () => {
    const s = new Script();
    rosterAll(s);
    s.phase(1, 'shopping');
    s.ok('scoreboard', row('a0', { kills: 2 }));
    s.ok('killfeed', kill('A0', 'B1', { headshotKill: true }));
    s.ok('killfeed', kill('A0', 'B1', { isTeamkill: true }));
    s.ok('killfeed', kill('A0', 'B2', { weaponKillfeedInternal: '' }));
    s.ok('killfeed', kill('A0', 'B3', { isTeamkill: 'yes' }));
    const a0 = s.player('a0');
    expect({ ...a0.killsByWeaponsAndAbilities }).toEqual({ TX_Hud_Volcano: 3, '': 1 });
    expect({ ...a0.killsOnEnemyPlayer }).toEqual({ B1: 1, B2: 1 });
    expect({ ...a0.killsOnTeammatePlayer }).toEqual({ B1: 1 });
    expect(a0.teamKills).toBe(1);
    expect(a0.headshotKills).toBe(1);
    expect(a0.headshotRatio).toBe(0.5); // 1 / scoreboard kills 2
    expect(a0.killedPlayerNames).toEqual(['B1', 'B1', 'B2', 'B3']);
    expect(a0.kills).toBe(2); // observer row seen this round: no fallback
    expect({ ...a0.assistsFromTeammate }).toEqual({});
    // names like "__proto__" or "constructor" are ordinary keys
    s.ok('killfeed', kill('A0', '__proto__'));
    s.ok('killfeed', kill('A0', 'constructor', { weaponKillfeedInternal: 'constructor' }));
    expect(a0.killsOnEnemyPlayer['__proto__']).toBe(1);
    expect(a0.killsOnEnemyPlayer['constructor']).toBe(1);
    expect(JSON.parse(JSON.stringify(a0.killsByWeaponsAndAbilities))).toEqual({ TX_Hud_Volcano: 4, '': 1, constructor: 1 });
  });

  it('falls back to kill, death and assist credit for players without a row this round', () => {
    const s = new Script();
    rosterAll(s); // a: Wushu Smonk Rift Hunter Pine; b: Gumshoe Breach Thorne Killjoy Wraith
    s.phase(1, 'shopping');
    s.phase(1, 'combat');
    s.ok('killfeed', kill('A0', 'B4', { assists: ['TX_Killfeed_Sova1', 'TX_Killfeed_Clove', 'TX_Killfeed_Nobody'] }));
    expect(s.player('a0')).toMatchObject({ kills: 1, killsThisRound: 1 });
    expect(s.player('a3').assists).toBe(1); // digits stripped: Sova = Hunter
    expect(s.player('a1').assists).toBe(1);
    expect(s.player('b4')).toMatchObject({ isAlive: false, health: 0, deaths: 1, deathsThisRound: 1 });

    // an auxiliary row blocks the fallback as well as an observer row
    s.aux('a3', 'aux_scoreboard', row('a3', { assists: 5 }));
    s.ok('scoreboard', row('b4', { deaths: 1, isAlive: false }));
    s.ok('killfeed', kill('A0', 'B4', { assists: ['TX_Killfeed_Sova'] }));
    expect(s.player('a3').assists).toBe(5);
    expect(s.player('a0').kills).toBe(2);
    expect(s.player('b4').deaths).toBe(1);
  });

  it('maps TX_Killfeed_Iris (and _Miks) to the codename Iris', () => {
    const s = new Script();
    rosterAll(s, ['Wushu', 'Iris', 'Rift', 'Hunter', 'Pine']);
    s.phase(1, 'combat');
    s.ok('killfeed', kill('A0', 'B0', { assists: ['TX_Killfeed_Iris'] }));
    s.ok('killfeed', kill('A0', 'B1', { assists: ['TX_Killfeed_Miks2'] }));
    expect(s.player('a1')).toMatchObject({ agentProper: 'Miks', assists: 2 });
  });

  it('credits no fallback assists in a team with duplicate agents', () => {
    const s = new Script();
    rosterAll(s, ['Wushu', 'Hunter', 'Rift', 'Hunter', 'Pine']);
    s.phase(1, 'combat');
    expect(s.state.teams[0].hasDuplicateAgents).toBe(true);
    expect(s.state.teams[1].hasDuplicateAgents).toBe(false);
    s.ok('killfeed', kill('A0', 'B0', { assists: ['TX_Killfeed_Sova'] }));
    expect(s.player('a1').assists).toBe(0);
    expect(s.player('a0').kills).toBe(1);
  });

  it('looks attackers and victims up per team by display name', () => {
    const s = new Script();
    s.ok('roster', { name: 'Twin', tagline: 'A', startTeam: '0', agentInternal: 'Wushu', playerId: 't0', position: 5, locked: true });
    s.ok('roster', { name: 'Twin', tagline: 'B', startTeam: '1', agentInternal: 'Wushu', playerId: 't1', position: 0, locked: true });
    s.ok('killfeed', kill('Twin', 'Twin'));
    for (const id of ['t0', 't1']) expect(s.player(id)).toMatchObject({ kills: 1, deaths: 1, killedPlayerNames: ['Twin'] });
  });
});

describe('observing', () => {
  it('marks exactly the player whose search name matches', () => {
    const s = new Script();
    rosterAll(s);
    s.ok('observing', 'B3 #NA1');
    const observed = s.state.teams.flatMap((t) => t.players.filter((p) => p.isObserved).map((p) => p.riotId));
    expect(observed).toEqual(['b3']);
    s.ok('observing', 'Nobody #X');
    expect(s.state.teams.flatMap((t) => t.players).some((p) => p.isObserved)).toBe(false);
  });
});

describe('icon suffixes', () => {
  it('Clove: NotDeadYet when the ult is used, cleared by a kill, an assist, a fallback credit or death', () => {
    const s = new Script();
    rosterAll(s); // a1 is Clove (Smonk)
    s.phase(1, 'combat');
    const clove = s.player('a1');
    s.ok('scoreboard', row('a1', { currUltPoints: 7, maxUltPoints: 7, kills: 1 }));
    expect(clove.ultReady).toBe(true);
    s.ok('scoreboard', row('a1', { currUltPoints: 0, kills: 1 }));
    expect(clove.iconNameSuffix).toBe('NotDeadYet');
    s.ok('scoreboard', row('a1', { currUltPoints: 0, kills: 2 }));
    expect(clove.iconNameSuffix).toBe('');
    // an ult used in the same row as a kill leaves it cleared
    s.ok('scoreboard', row('a1', { currUltPoints: 7, kills: 2 }));
    s.ok('scoreboard', row('a1', { currUltPoints: 0, kills: 3 }));
    expect(clove.iconNameSuffix).toBe('');
    // assist clears
    s.ok('scoreboard', row('a1', { currUltPoints: 7, kills: 3 }));
    s.ok('scoreboard', row('a1', { currUltPoints: 0, kills: 3 }));
    expect(clove.iconNameSuffix).toBe('NotDeadYet');
    s.ok('scoreboard', row('a1', { currUltPoints: 0, kills: 3, assists: 1 }));
    expect(clove.iconNameSuffix).toBe('');
    // death clears
    s.ok('scoreboard', row('a1', { currUltPoints: 7, kills: 3, assists: 1 }));
    s.ok('scoreboard', row('a1', { currUltPoints: 0, kills: 3, assists: 1 }));
    expect(clove.iconNameSuffix).toBe('NotDeadYet');
    s.ok('scoreboard', row('a1', { currUltPoints: 0, kills: 3, assists: 1, isAlive: false, deaths: 1 }));
    expect(clove.iconNameSuffix).toBe('');
    // a fallback kill clears it (next round, no row yet)
    s.phase(2, 'shopping');
    clove.iconNameSuffix = 'NotDeadYet'; // set by hand: marked like the engine's rules do (dirty.ts)
    touch(clove);
    s.phase(2, 'combat');
    s.ok('killfeed', kill('A1', 'B0'));
    expect(clove.iconNameSuffix).toBe('');
  });

  it('rows whose kills, deaths and assists are all 0 never change the suffix', () => {
    const s = new Script();
    rosterAll(s);
    s.ok('scoreboard', row('a1', { currUltPoints: 7, maxUltPoints: 7 }));
    s.ok('scoreboard', row('a1', { currUltPoints: 0 }));
    expect(s.player('a1').iconNameSuffix).toBe('');
  });

  it('Veto: Evolution on the same condition, cleared only by death', () => {
    const s = new Script();
    rosterAll(s); // a4 is Veto (Pine)
    const veto = s.player('a4');
    s.ok('scoreboard', row('a4', { currUltPoints: 8, maxUltPoints: 8, deaths: 1 }));
    s.ok('scoreboard', row('a4', { currUltPoints: 0, maxUltPoints: 8, deaths: 1 }));
    expect(veto.iconNameSuffix).toBe('Evolution');
    s.ok('scoreboard', row('a4', { currUltPoints: 0, maxUltPoints: 8, deaths: 1, kills: 2, assists: 1 }));
    expect(veto.iconNameSuffix).toBe('Evolution');
    s.ok('scoreboard', row('a4', { currUltPoints: 0, maxUltPoints: 8, deaths: 2, kills: 2, isAlive: false }));
    expect(veto.iconNameSuffix).toBe('');
  });

  it('Astra: Targeting from the auxiliary, cleared by false or death; Cypher: Cam, kept on death', () => {
    const s = new Script();
    rosterAll(s); // a2 Astra (Rift), b0 Cypher (Gumshoe)
    s.aux('a2', 'aux_astra_targeting', true);
    s.aux('b0', 'aux_cypher_cam', true);
    s.aux('a0', 'aux_astra_targeting', true); // not Astra
    s.aux('a2', 'aux_cypher_cam', true); // not Cypher
    expect(s.player('a2').iconNameSuffix).toBe('Targeting');
    expect(s.player('b0').iconNameSuffix).toBe('Cam');
    expect(s.player('a0').iconNameSuffix).toBe('');
    s.aux('a2', 'aux_astra_targeting', false);
    expect(s.player('a2').iconNameSuffix).toBe('');
    s.aux('a2', 'aux_astra_targeting', true);
    s.ok('scoreboard', row('a2', { isAlive: false, deaths: 1 }));
    s.ok('scoreboard', row('b0', { isAlive: false, deaths: 1 }));
    expect(s.player('a2').iconNameSuffix).toBe('');
    expect(s.player('b0').iconNameSuffix).toBe('Cam');
    s.aux('b0', 'aux_cypher_cam', false);
    expect(s.player('b0').iconNameSuffix).toBe('');
    expect(s.aux('b0', 'aux_cypher_cam', 'yes')).toMatchObject({ ok: false, reason: 'invalid_data' });
  });
});
