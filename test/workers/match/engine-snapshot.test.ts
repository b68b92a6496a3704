// Match snapshots (crash recovery and STATE_DIR): a match restored from its snapshot at any point
// of the recorded match continues exactly like the original.
import { describe, expect, it } from 'vitest';
import { Match } from '../../../src/workers/match/match.js';
import { serializeMatch } from '../../../src/workers/match/serialize.js';
import { loadReplay, logon, recordedMatchAtStart, Script, SETTINGS, T0, watchAllMatches } from '../../helpers/engine.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

describe('match snapshots', () => {
  it('restoring every 97 messages of the recorded match gives the same frames as an uninterrupted run', () => {
    const replay = loadReplay();
    const plain = recordedMatchAtStart();
    let restored = recordedMatchAtStart();
    plain.takeEffects();
    restored.takeEffects();
    for (let i = 0; i < replay.records.length; i++) {
      const rec = replay.records[i];
      expect(restored.apply(rec, rec.timestamp)).toEqual(plain.apply(rec, rec.timestamp));
      expect(restored.takeEffects()).toEqual(plain.takeEffects());
      if (i % 97 === 0) {
        const text = restored.toSnapshot();
        restored = Match.fromSnapshot(text);
        expect(restored.toSnapshot()).toBe(text);
      }
      if (i % 331 === 0) expect(serializeMatch(restored, 1)).toBe(serializeMatch(plain, 1));
    }
    expect(serializeMatch(restored, 1)).toBe(serializeMatch(plain, 1));
    expect(restored.ended).toBe(true);
    expect(restored.stateVersion).toBe(plain.stateVersion);
  });

  it('keeps running timers (a team timeout) and per-name counters with hostile names', () => {
    const s = new Script(logon(), T0);
    s.send('roster', { name: 'A', tagline: '1', startTeam: '0', agentInternal: 'Hunter', playerId: 'p-a', position: 0, locked: true, rank: 0 });
    s.send('roster', { name: '__proto__', tagline: '1', startTeam: '1', agentInternal: 'Wushu', playerId: 'p-b', position: 5, locked: true, rank: 0 });
    s.send('left_timeout', true);
    const text = s.match.toSnapshot();
    expect(text).not.toContain('Infinity');
    const copy = Match.fromSnapshot(text);
    for (const m of [s.match, copy]) m.advance(T0 + 5_000);
    expect(serializeMatch(copy, 1)).toBe(serializeMatch(s.match, 1));
    expect(copy.nextTimerAt).toBe(s.match.nextTimerAt);
    const p = copy.liveState().teams[0].players[0];
    expect(Object.getPrototypeOf(p.killsOnEnemyPlayer)).toBe(null);
  });

  it('keeps the economy record and the agent-select flags, restored in every phase of a supporter match with the hotkey', () => {
    const replay = loadReplay();
    const h = replay.header;
    const toolsData = { ...(h.toolsData as object | undefined), agentSelectHotkeyEnabled: true };
    const create = () => Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam, rightTeam: h.rightTeam, toolsData, organizationId: 'org', isSupporter: true }, h.logStartTime, SETTINGS);
    const plain = create();
    let restored = create();
    let restores = 0;
    let inShopping = 0;
    for (let i = 0; i < replay.records.length; i++) {
      const rec = replay.records[i];
      expect(restored.apply(rec, rec.timestamp)).toEqual(plain.apply(rec, rec.timestamp));
      if (i === 20 || i === 2000) { // the operator's hotkey: on at agent select, off mid-match
        const toggle = { ...rec, type: 'toggle_agent_select', data: true };
        expect(restored.apply(toggle, rec.timestamp)).toEqual(plain.apply(toggle, rec.timestamp));
      }
      // every 61st message: in all phases, many of them in the middle of a buy phase
      if (i % 61 === 0) {
        if (restored.liveState().roundPhase === 'shopping') inShopping++;
        restored = Match.fromSnapshot(restored.toSnapshot());
        restores++;
        const [a, b] = [restored.liveState(), plain.liveState()];
        expect(a.teams.map((t) => t.moneyRecord)).toEqual(b.teams.map((t) => t.moneyRecord));
        expect([a.tools.agentSelectAutostart, a.tools.agentSelectActive]).toEqual([b.tools.agentSelectAutostart, b.tools.agentSelectActive]);
      }
    }
    expect(restores).toBeGreaterThan(40);
    expect(inShopping).toBeGreaterThan(5);
    expect(serializeMatch(restored, 1)).toBe(serializeMatch(plain, 1));
    const final = restored.liveState();
    expect(final.teams.map((t) => t.moneyRecord.length)).toEqual([19, 19]);
    expect(final.tools.agentSelectActive).toBe(false);
  });

  it('restores a snapshot written before the economy record and the agent-select flags existed with their initial values', () => {
    const s = new Script(logon({ isSupporter: true }), T0);
    s.phase(1, 'shopping');
    const old = JSON.parse(s.match.toSnapshot()) as { state: { teams: Record<string, unknown>[]; tools: Record<string, unknown> } };
    for (const team of old.state.teams) delete team.moneyRecord;
    delete old.state.tools.agentSelectAutostart;
    delete old.state.tools.agentSelectActive;
    const restored = Match.fromSnapshot(JSON.stringify(old));
    expect(restored.liveState().teams.map((t) => t.moneyRecord)).toEqual([[], []]);
    expect([restored.liveState().tools.agentSelectAutostart, restored.liveState().tools.agentSelectActive]).toEqual([true, false]);
    expect(JSON.parse(serializeMatch(restored, 1)).teams[0].moneyRecord).toEqual([]);
  });

  it('holds no player-camera secret; the caller passes it back', () => {
    const toolsData = { playercamsInfo: { enable: true, identifier: 'cams-1', secret: 'CAM-SECRET-123' } };
    const m = Match.create(logon({ toolsData }), T0, SETTINGS);
    const text = m.toSnapshot();
    expect(text).not.toContain('CAM-SECRET-123');
    expect(Match.fromSnapshot(text).playercamSecret).toBe('');
    expect(Match.fromSnapshot(text, 'CAM-SECRET-123').playercamSecret).toBe('CAM-SECRET-123');
    expect(() => Match.fromSnapshot('{"v":99}')).toThrow();
  });
});
