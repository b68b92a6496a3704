// Match creation: tools merge and supporter rules (docs/match-rules.md 2.2), teams (2.3), effects for the
// shell (backend, statistics, player cameras) and the backend record.

import { describe, expect, it } from 'vitest';
import { Match } from '../../../src/workers/match/match.js';
import { serializeMatch } from '../../../src/workers/match/serialize.js';
import { DEFAULT_SPONSOR_LOGO_URL } from '../../../src/workers/match/tools.js';
import { logon, plain, rosterAll, Script, SETTINGS, T0, plainFrame, SERVER_TIME, watchAllMatches } from '../../helpers/engine.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

const realClientTools = {
  seriesInfo: { enable: false, needed: null, wonLeft: null, wonRight: null, seedingLeft: '', seedingRight: '', mapInfo: [] },
  seedingInfo: { left: '', right: '' },
  tournamentInfo: { logoUrl: '', backdropUrl: '', timeoutDuration: 60, showMappool: false },
  timeoutDuration: 60,
  timeoutCounter: { max: 2, left: 2, right: 2 },
  sponsorInfo: { enabled: false, duration: 5000, sponsors: [] },
  watermarkInfo: { spectraWatermark: true, customTextEnabled: false, customText: '' },
  playercamsInfo: { enable: false, removeTricodes: false, identifier: '', secret: '', endTime: 0 },
  roundWinBox: { type: 'disabled', sponsors: [] },
};

const fullTools = {
  seriesInfo: {
    enable: true, needed: 2, wonLeft: 1, wonRight: 0, seedingLeft: 'Seed 1', seedingRight: 'Seed 4',
    mapInfo: [
      { type: 'past', map: 'Ascent', left: { score: 13, logo: 'l.png' }, right: { score: 9, logo: 'r.png' } },
      { type: 'present', logo: 'r.png' },
      { type: 'future', map: 'Lotus', logo: '' },
    ],
  },
  seedingInfo: { left: 'Seed 1', right: 'Seed 4' },
  tournamentInfo: { logoUrl: 'cup.png', backdropUrl: 'cup-bg.png', timeoutDuration: 60, showMappool: true },
  timeoutDuration: 60,
  timeoutCounter: { max: 3, left: 0, right: 1 },
  sponsorInfo: { enabled: true, duration: 8000, sponsors: ['s1.png', 's2.png'] },
  watermarkInfo: { spectraWatermark: false, customTextEnabled: true, customText: 'Grand Final' },
  playercamsInfo: { enable: true, removeTricodes: true, identifier: 'PC7K2Q', secret: 'cam-secret', endTime: 1774036800000 },
  roundWinBox: {
    type: 'sponsors',
    sponsors: [
      { wonTeam: 'all', roundCeremony: ['ace', 'clutch'], iconUrl: 's1-icon.png', backdropUrl: 's1-bg.png' },
      { wonTeam: 'left', roundCeremony: ['all'], iconUrl: 's2-icon.png', backdropUrl: 's2-bg.png' },
    ],
  },
};

function create(toolsData: unknown, isSupporter = false) {
  return Match.create(logon({ toolsData, isSupporter }), T0, SETTINGS);
}

describe('tools at creation', () => {
  it('merges the real client defaults shallowly over the service defaults', () => {
    const m = create(realClientTools);
    const tools = m.liveState().tools;
    expect(tools.seriesInfo).toEqual(realClientTools.seriesInfo); // client extras kept, no merge
    expect(tools.tournamentInfo).toEqual({ logoUrl: '', backdropUrl: '', timeoutDuration: 60, showMappool: false }); // no name
    expect(tools.playercamsInfo).toEqual({ enable: false, removeTricodes: false, identifier: '' }); // no enabledPlayers, no secrets
    expect(tools.nameOverrides).toEqual({ overrides: '[]' });
    expect(tools.timeoutCancellationGracePeriod).toBe(10);
    expect(tools.sponsorInfo).toEqual({ enabled: false, duration: 5000, sponsors: [] });
    expect(Object.keys(tools)).toEqual([
      'seriesInfo', 'seedingInfo', 'tournamentInfo', 'timeoutDuration', 'timeoutCounter', 'timeoutCancellationGracePeriod',
      'sponsorInfo', 'watermarkInfo', 'playercamsInfo', 'nameOverrides', 'roundWinBox',
      'agentSelectAutostart', 'agentSelectActive',
    ]);
  });

  it('uses the service defaults without toolsData', () => {
    const tools = create(undefined).liveState().tools;
    expect(tools).toEqual({
      seriesInfo: { needed: 1, wonLeft: 0, wonRight: 0, mapInfo: [] },
      seedingInfo: { left: '', right: '' },
      tournamentInfo: { name: '', logoUrl: '', backdropUrl: '' },
      timeoutDuration: 60,
      timeoutCounter: { max: 2, left: 2, right: 2 },
      timeoutCancellationGracePeriod: 10,
      sponsorInfo: { enabled: false, duration: 5000, sponsors: [] },
      watermarkInfo: { spectraWatermark: true, customTextEnabled: false, customText: '' },
      playercamsInfo: { enable: false, removeTricodes: false, identifier: '' },
      nameOverrides: { overrides: '[]' },
      roundWinBox: { type: 'disabled', sponsors: [] },
      agentSelectAutostart: true,
      agentSelectActive: false,
    });
  });

  it('ignores null and wrong-type members, copies unknown ones, and resets the timeout counters to max', () => {
    const m = create({
      seriesInfo: null,
      timeoutDuration: '90',
      seedingInfo: ['x'],
      timeoutCounter: { max: 3, left: 0, right: 1 },
      nameOverrides: 5,
      customThing: { a: [1, 2] },
      anotherOne: null,
      sponsorInfo: { enabled: true, duration: 5000, sponsors: [1, 2] }, // inner shape wrong: default kept
      ['__proto__']: { polluted: true },
    });
    const tools = m.liveState().tools;
    expect(tools.seriesInfo).toEqual({ needed: 1, wonLeft: 0, wonRight: 0, mapInfo: [] });
    expect(tools.timeoutDuration).toBe(60);
    expect(tools.seedingInfo).toEqual({ left: '', right: '' });
    expect(tools.nameOverrides).toEqual({ overrides: '[]' });
    expect(tools.timeoutCounter).toEqual({ max: 3, left: 3, right: 3 });
    expect(tools.customThing).toEqual({ a: [1, 2] });
    expect(tools.anotherOne).toBeNull(); // unknown members are copied as they are
    expect(tools.sponsorInfo).toEqual({ enabled: false, duration: 5000, sponsors: [] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(m.takeEffects()).toContainEqual(expect.objectContaining({ kind: 'warn', code: 'tools_member_ignored' }));
    expect(JSON.parse(serializeMatch(m, SERVER_TIME))).toEqual(plainFrame(m));
  });

  it('applies the watermark alias and drops serviceWatermark', () => {
    const a = create({ watermarkInfo: { serviceWatermark: false, customTextEnabled: true, customText: 'x' } }, true);
    expect(a.liveState().tools.watermarkInfo).toEqual({ customTextEnabled: true, customText: 'x', spectraWatermark: false });
    const b = create({ watermarkInfo: { spectraWatermark: true, serviceWatermark: false, customTextEnabled: false, customText: '' } }, true);
    expect(b.liveState().tools.watermarkInfo).toEqual({ spectraWatermark: true, customTextEnabled: false, customText: '' });
    expect(serializeMatch(a, SERVER_TIME)).not.toContain('serviceWatermark');
  });

  it('applies the supporter rules for a non-supporter', () => {
    const m = create(fullTools, false);
    const tools = m.liveState().tools;
    expect(tools.sponsorInfo.sponsors).toEqual(['s1.png', 's2.png', DEFAULT_SPONSOR_LOGO_URL]);
    expect(tools.watermarkInfo).toEqual({ spectraWatermark: true, customTextEnabled: false, customText: 'Grand Final' });
    expect(tools.roundWinBox.sponsors).toEqual([
      { wonTeam: 'all', roundCeremony: ['all'], iconUrl: 's1-icon.png', backdropUrl: 's1-bg.png', roundCeremonie: ['all'] },
    ]);
    expect(tools.timeoutCounter).toEqual({ max: 3, left: 3, right: 3 });
    expect(tools.seriesInfo).toEqual(fullTools.seriesInfo);
    expect(JSON.parse(serializeMatch(m, SERVER_TIME))).toEqual(plainFrame(m));
  });

  it('keeps everything for a supporter and writes both ceremony spellings', () => {
    const m = create(fullTools, true);
    const tools = m.liveState().tools;
    expect(tools.sponsorInfo.sponsors).toEqual(['s1.png', 's2.png']);
    expect(tools.watermarkInfo).toEqual({ spectraWatermark: false, customTextEnabled: true, customText: 'Grand Final' });
    expect(tools.roundWinBox.sponsors).toEqual([
      { wonTeam: 'all', roundCeremony: ['ace', 'clutch'], iconUrl: 's1-icon.png', backdropUrl: 's1-bg.png', roundCeremonie: ['ace', 'clutch'] },
      { wonTeam: 'left', roundCeremony: ['all'], iconUrl: 's2-icon.png', backdropUrl: 's2-bg.png', roundCeremonie: ['all'] },
    ]);
    expect(m.liveState().orgIsSupporter).toBe(true);
    const wire = JSON.parse(serializeMatch(m, SERVER_TIME));
    expect(wire.tools.roundWinBox.sponsors[0].roundCeremonie).toEqual(['ace', 'clutch']);
    expect(wire).toEqual(plainFrame(m));
  });

  it('leaves a single sponsor of a non-supporter alone and reads roundCeremonie as input', () => {
    const m = create({
      roundWinBox: { type: 'sponsors', sponsors: [{ wonTeam: 'left', roundCeremonie: ['ace'], iconUrl: 'i', backdropUrl: 'b' }] },
    });
    expect(m.liveState().tools.roundWinBox.sponsors).toEqual([
      { wonTeam: 'left', roundCeremonie: ['ace'], iconUrl: 'i', backdropUrl: 'b', roundCeremony: ['ace'] },
    ]);
    const n = create({ roundWinBox: { type: 'tournamentInfo', sponsors: [{ wonTeam: 'all', iconUrl: 'i', backdropUrl: 'b' }] } });
    expect(n.liveState().tools.roundWinBox.sponsors[0]).toMatchObject({ roundCeremony: ['all'], roundCeremonie: ['all'] });
  });

  it('does not append the sponsor logo when sponsors are disabled', () => {
    const m = create({ sponsorInfo: { enabled: false, duration: 5000, sponsors: [] } });
    expect(m.liveState().tools.sponsorInfo.sponsors).toEqual([]);
  });
});

describe('teams at creation', () => {
  it('builds the teams from the logon', () => {
    const m = Match.create(
      logon({
        leftTeam: { name: 'Left', tricode: 'LFT', url: 'l.png', attackStart: false },
        rightTeam: { name: 'Right', tricode: 'RGT', url: 'r.png', attackStart: true },
      }),
      T0,
      SETTINGS,
    );
    const [left, right] = m.liveState().teams;
    expect(left).toMatchObject({ teamName: 'Left', teamTricode: 'LFT', teamUrl: 'l.png', ingameTeamId: 1, isAttacking: false, hasHandledTeam: false, roundsWon: 0, spentThisRound: 0, removeTricode: false, players: [], playerCount: 0, hasDuplicateAgents: false });
    expect(right).toMatchObject({ ingameTeamId: 0, isAttacking: true });
    expect(left.roundRecord).toHaveLength(25);
    expect(left.roundRecord[0]).toEqual({ type: 'upcoming', wasAttack: false, round: 1 });
    expect(right.roundRecord[24]).toEqual({ type: 'upcoming', wasAttack: true, round: 25 });
    expect(m.takeEffects().some((e) => e.kind === 'warn')).toBe(false);
  });

  it('resolves both teams with the same attackStart to left = 0 (attacking), right = 1', () => {
    for (const attackStart of [true, false]) {
      const m = Match.create(
        logon({
          leftTeam: { name: 'L', tricode: 'L', url: '', attackStart },
          rightTeam: { name: 'R', tricode: 'R', url: '', attackStart },
        }),
        T0,
        SETTINGS,
      );
      const [left, right] = m.liveState().teams;
      expect([left.ingameTeamId, left.isAttacking, right.ingameTeamId, right.isAttacking]).toEqual([0, true, 1, false]);
      expect(right.roundRecord[0].wasAttack).toBe(false);
      expect(m.takeEffects()).toContainEqual(expect.objectContaining({ kind: 'warn', code: 'same_attack_start' }));
    }
  });

  it('starts with the initial values of 2.4', () => {
    const s = new Script(logon({ organizationId: 'org-7' }));
    expect(plain(s.match)).toMatchObject({
      matchId: '', matchType: 'bomb', switchRound: 13, firstOtRound: 25, groupCode: 'K7QX2M', isRunning: false,
      roundNumber: 0, roundPhase: 'LOBBY', wasTimeout: false, map: 'Loading', attackersWon: false, showAliveKDA: false,
      spikeState: { planted: false, detonated: false, defused: false },
      timeoutState: { techPause: false, leftTeam: false, rightTeam: false, timeRemaining: 0 },
      timeoutGracePeriodPassed: false,
      toastInfo: { active: false, title: '', message: '', duration: null, eventLogoEnabled: true },
      hasEnteredOvertime: false, organizationId: 'org-7', isRegistered: false, orgIsSupporter: false,
    });
    expect(s.match.stateVersion).toBe(1);
  });
});

describe('effects and backend record', () => {
  it('requests registration and, for supporters, the statistics calls at match_start', () => {
    const s = new Script(logon({ isSupporter: true }));
    rosterAll(s);
    s.match.takeEffects();
    s.ok('match_start', '0e7812f4');
    expect(s.state).toMatchObject({ matchId: '0e7812f4', isRunning: true });
    expect(s.match.takeEffects()).toEqual([
      { kind: 'register', matchId: '0e7812f4' },
      { kind: 'stats_add', groupCode: 'K7QX2M', matchId: '0e7812f4' },
      { kind: 'stats_region', matchId: '0e7812f4', playerId: 'a0' },
      { kind: 'mmr_fetch', matchId: '0e7812f4', playerIds: ['a0', 'a1', 'a2', 'a3', 'a4', 'b0', 'b1', 'b2', 'b3', 'b4'] },
    ]);
    expect(s.match.takeEffects()).toEqual([]);
    s.match.applyMmr({ results: [{ puuid: 'b1', currentMMRTier: 21, peakMMRTier: 24 }, { puuid: 'zz', currentMMRTier: 3 }] }, s.now);
    expect(s.player('b1')).toMatchObject({ currentMMRTier: 21, peakMMRTier: 24 });
  });

  it('sends no statistics calls for non-supporters', () => {
    const s = new Script();
    rosterAll(s);
    s.ok('match_start', 'm');
    expect(s.match.takeEffects()).toEqual([{ kind: 'register', matchId: 'm' }]);
  });

  it('asks for updates from round 2 once registered, and completion plus stats at the end', () => {
    const s = new Script(logon({ isSupporter: true }));
    rosterAll(s);
    s.ok('match_start', 'm');
    s.phase(1, 'shopping');
    s.phase(2, 'shopping');
    expect(s.match.takeEffects().some((e) => e.kind === 'update')).toBe(false);
    const ev = s.match.stateVersion;
    s.match.setRegistered(true);
    expect(s.match.stateVersion).toBe(ev + 1);
    expect(s.state.isRegistered).toBe(true);
    s.phase(3, 'shopping');
    expect(s.match.takeEffects()).toEqual([{ kind: 'update', matchId: 'm' }]);
    s.phase(3, 'game_end');
    const effects = s.match.takeEffects();
    expect(effects.map((e) => e.kind)).toEqual(['team_info_final', 'complete', 'stats_fetch']);
    expect(effects[2]).toEqual({ kind: 'stats_fetch', matchId: 'm', delayMs: 15_000 });
  });

  it('fetches player cameras at creation and each shopping phase, and accepts both answer forms', () => {
    const s = new Script(logon({ toolsData: { playercamsInfo: fullTools.playercamsInfo } }));
    expect(s.match.takeEffects()).toEqual([{ kind: 'playercam_fetch', identifier: 'PC7K2Q' }]);
    expect(s.match.playercamSecret).toBe('cam-secret');

    // the specified form, before the roster is known: ids stay as they are
    expect(s.match.applyPlayercams({ nameOverrides: { a0: 'Alpha Zero' }, enabledPlayers: ['a0', 'b1'] }, s.now)).toBe(true);
    expect(s.state.tools.nameOverrides.overrides).toBe('[["a0","Alpha Zero"]]');
    rosterAll(s);
    // mapped to full names once the players exist
    expect(JSON.parse(s.state.tools.nameOverrides.overrides)).toEqual([['A0#EUW', 'Alpha Zero']]);
    expect(s.state.tools.playercamsInfo.enabledPlayers).toEqual(['A0#EUW', 'B1#NA1']);

    s.phase(1, 'shopping');
    expect(s.match.takeEffects()).toContainEqual({ kind: 'playercam_fetch', identifier: 'PC7K2Q' });
    // the overlay's form: JSON text of pairs and full names, passed through
    const ev = s.match.stateVersion;
    expect(s.match.applyPlayercams({ nameOverrides: '[["B2#NA1","Bee Two"]]', enabledPlayers: ['B2#NA1'] }, s.now)).toBe(true);
    expect(s.match.stateVersion).toBe(ev + 1);
    expect(s.state.tools.nameOverrides.overrides).toBe('[["B2#NA1","Bee Two"]]');
    expect(s.state.tools.playercamsInfo.enabledPlayers).toEqual(['B2#NA1']);
    // invalid answers change nothing
    expect(s.match.applyPlayercams({ nameOverrides: {} }, s.now)).toBe(false);
    expect(s.match.applyPlayercams({ enabledPlayers: [] }, s.now)).toBe(false);
    expect(s.match.applyPlayercams({ nameOverrides: 'not json', enabledPlayers: [] }, s.now)).toBe(false);
    expect(s.match.stateVersion).toBe(ev + 1);
    const wire = serializeMatch(s.match, SERVER_TIME);
    expect(wire).not.toContain('cam-secret');
    expect(JSON.parse(wire)).toEqual(plainFrame(s.match));
  });

  it('does not fetch player cameras without identifier and secret', () => {
    const s = new Script(logon({ toolsData: { playercamsInfo: { enable: true, identifier: 'X', secret: '' } } }));
    s.phase(1, 'shopping');
    expect(s.match.takeEffects().some((e) => e.kind === 'playercam_fetch')).toBe(false);
  });

  it('builds the backend record without secrets or internals', () => {
    const s = new Script(logon({ toolsData: { playercamsInfo: fullTools.playercamsInfo } }));
    rosterAll(s);
    const body = s.match.registerBody();
    const text = JSON.stringify(body);
    expect(text).not.toContain('cam-secret');
    expect(body.match).toMatchObject({ groupCode: 'K7QX2M', leftTeam: logon().leftTeam, rightTeam: logon().rightTeam });
    expect((body.match.tools as { playercamsInfo: unknown }).playercamsInfo).toEqual({
      enable: true, removeTricodes: true, identifier: 'PC7K2Q', endTime: 1774036800000,
    });
    expect('stateVersion' in body.match).toBe(false);
    expect('groupSecret' in body.match).toBe(false);
    // the broadcast tree is not changed by building the body
    expect(s.state.tools.playercamsInfo).toEqual({ enable: true, removeTricodes: true, identifier: 'PC7K2Q' });
  });
});
