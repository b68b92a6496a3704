// The fast-json-stringify serializer against JSON.stringify: schema drift drops or coerces members
// silently, so every state of the recorded match is round-tripped. A frame is the state plus
// `serverTime` (the serializer's second argument), so the expected tree is the snapshot with the
// same serverTime appended (plainFrame).

import { describe, expect, it } from 'vitest';
import { Match } from '../../../src/workers/match/match.js';
import { serializeMatch } from '../../../src/workers/match/serialize.js';
import { loadReplay, plainFrame, row, rosterAll, Script, SERVER_TIME, SETTINGS, watchAllMatches } from '../../helpers/engine.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

// Pure CPU over every message of the recorded match: seconds alone, far more beside other test files on a
// loaded 2-core machine; a deadline, not a speed check (bench/ measures speed).
describe('serializeMatch', { timeout: 180_000 }, () => {
  it('equals JSON.stringify for every state of the recorded match', () => {
    const { header: h, records } = loadReplay();
    const m = Match.create(
      { groupCode: h.groupCode, leftTeam: h.leftTeam, rightTeam: h.rightTeam, organizationId: '', isSupporter: false },
      h.logStartTime,
      SETTINGS,
    );
    expect(JSON.parse(serializeMatch(m, SERVER_TIME))).toEqual(plainFrame(m));
    let compared = 1;
    let sawNullKd = false;
    let sawOmittedWeapon = false;
    for (const rec of records) {
      expect(m.apply(rec, rec.timestamp).ok).toBe(true);
      // serverTime as the shard passes it under TRUST_REPLAY_TIMESTAMPS: the match clock
      const text = serializeMatch(m, rec.timestamp);
      const expected = plainFrame(m, rec.timestamp) as { teams: Array<{ players: Array<Record<string, unknown>> }> };
      expect(JSON.parse(text)).toEqual(expected);
      compared++;
      for (const t of expected.teams) {
        for (const p of t.players) {
          if (p.kdRatio === null) sawNullKd = true;
          if (!('highestWeapon' in p)) sawOmittedWeapon = true;
        }
      }
    }
    expect(compared).toBe(records.length + 1);
    // the recording exercises both nullable/omitted paths
    expect(sawNullKd).toBe(true);
    expect(sawOmittedWeapon).toBe(true);
  });

  it('serializes a player with zero deaths (kdRatio null) without throwing', () => {
    const s = new Script();
    rosterAll(s);
    s.ok('scoreboard', row('a0', { kills: 3, deaths: 0 }));
    s.ok('scoreboard', row('a1', { kills: 0, deaths: 0 }));
    s.ok('killfeed', { attacker: 'A1', victim: 'B0', weaponKillfeedInternal: '', headshotKill: true, assists: [], isTeamkill: false });
    const a0 = s.player('a0');
    expect(a0.kdRatio).toBeNull();
    expect(s.player('a1').headshotRatio).toBeNull(); // 1 headshot / 0 kills
    const parsed = JSON.parse(serializeMatch(s.match, SERVER_TIME));
    expect(parsed.teams[0].players[0].kdRatio).toBeNull();
    expect(parsed.teams[0].players[1].headshotRatio).toBeNull();
    expect(parsed.teams[0].players[1].killsByWeaponsAndAbilities).toEqual({ '': 1 });
    expect(parsed).toEqual(plainFrame(s.match));
  });

  it('omits unset optional members and never broadcasts the player-camera secret', () => {
    const s = new Script({
      groupCode: 'ABC123',
      leftTeam: { name: 'L', tricode: 'L', url: '', attackStart: true },
      rightTeam: { name: 'R', tricode: 'R', url: '', attackStart: false },
      toolsData: { playercamsInfo: { enable: true, removeTricodes: false, identifier: 'PC7K2Q', secret: 'S3CR3T', endTime: 1774036800000 } },
      organizationId: '',
      isSupporter: false,
    });
    const text = serializeMatch(s.match, SERVER_TIME);
    expect(text).not.toContain('S3CR3T');
    expect(text).not.toContain('endTime');
    const parsed = JSON.parse(text);
    expect('agentSelectStartTime' in parsed).toBe(false);
    expect('roundTimeoutTime' in parsed).toBe(false);
    expect('spikeDetonationTime' in parsed).toBe(false);
    expect(parsed.tools.playercamsInfo).toEqual({ enable: true, removeTricodes: false, identifier: 'PC7K2Q' });
    expect(s.match.playercamSecret).toBe('S3CR3T');
    expect(Object.keys(parsed)).toEqual([
      'matchId', 'matchType', 'switchRound', 'firstOtRound', 'groupCode', 'isRunning', 'roundNumber', 'roundPhase',
      'wasTimeout', 'teams', 'map', 'spikeState', 'attackersWon', 'showAliveKDA', 'timeoutState',
      'timeoutGracePeriodPassed', 'toastInfo', 'hasEnteredOvertime', 'tools', 'organizationId', 'isRegistered',
      'orgIsSupporter', 'serverTime',
    ]);
    expect(parsed.serverTime).toBe(SERVER_TIME);
  });

  it('writes serverTime as a number, by default the wall clock at serialization', () => {
    const s = new Script();
    const before = Date.now();
    const parsed = JSON.parse(serializeMatch(s.match)) as { serverTime: unknown };
    expect(typeof parsed.serverTime).toBe('number');
    expect(parsed.serverTime as number).toBeGreaterThanOrEqual(before);
    expect(parsed.serverTime as number).toBeLessThanOrEqual(Date.now());
    // the engine state itself never holds it (the backend record is built from the state)
    expect('serverTime' in s.match.liveState()).toBe(false);
  });
});
