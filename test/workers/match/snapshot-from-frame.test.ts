// Snapshots whose state text comes from the match's frame (issue 20: no JSON.stringify of every
// changed match every second): the frame's text is the state plus serverTime, so the state cut out
// of it must be the same values as JSON.stringify(state) after every message of the recorded match,
// and a match restored from such a snapshot must go on exactly like the original; the same for a
// snapshot that holds the frame's string literal as it is (version 2, what the shard writes).
import { describe, expect, it } from 'vitest';
import { Match } from '../../../src/workers/match/match.js';
import { serializeMatch } from '../../../src/workers/match/serialize.js';
import { wireSerializeMatch } from '../../../src/workers/wire-serializer.js';
import { frameLiteralOfWire, stateJsonOfWire } from '../../../src/workers/wire-text.js';
import { loadReplay, logon, recordedMatchAtStart, SETTINGS, T0, watchAllMatches } from '../../helpers/engine.js';
import { expectEqual } from '../../helpers/equal.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

// Pure CPU over every message of the recorded match: seconds alone, far more beside other test files on a
// loaded 2-core machine; a deadline, not a speed check (bench/ measures speed).
describe('snapshots from the frame text', { timeout: 180_000 }, () => {
  it('the state cut out of the frame equals JSON.stringify(state) after every message, and restores to the same frames', () => {
    const replay = loadReplay();
    const plain = recordedMatchAtStart();
    let restored = recordedMatchAtStart();
    let restores = 0;
    for (let i = 0; i < replay.records.length; i++) {
      const rec = replay.records[i];
      expectEqual(restored.apply(rec, rec.timestamp), plain.apply(rec, rec.timestamp));
      restored.takeEffects();
      plain.takeEffects();
      const stateJson = stateJsonOfWire(wireSerializeMatch(plain, 1_700_000_000_000 + i));
      expectEqual(JSON.parse(stateJson), JSON.parse(JSON.stringify(plain.liveState())));
      // The whole snapshot: the same values as the one that stringifies the state itself.
      expectEqual(JSON.parse(plain.toSnapshot(stateJson)), JSON.parse(plain.toSnapshot()));
      if (i % 89 === 0) {
        restored = Match.fromSnapshot(restored.toSnapshot(stateJsonOfWire(wireSerializeMatch(restored, i))));
        restores++;
      }
      if (i % 331 === 0) expect(serializeMatch(restored, 1)).toBe(serializeMatch(plain, 1));
    }
    expect(restores).toBeGreaterThan(25);
    expect(serializeMatch(restored, 1)).toBe(serializeMatch(plain, 1));
    expect(restored.stateVersion).toBe(plain.stateVersion);
  });

  it('a snapshot holding the frame\'s string literal (version 2) restores to the same match after every message', () => {
    const replay = loadReplay();
    const plain = recordedMatchAtStart();
    let restored = recordedMatchAtStart();
    for (let i = 0; i < replay.records.length; i++) {
      const rec = replay.records[i];
      expectEqual(restored.apply(rec, rec.timestamp), plain.apply(rec, rec.timestamp));
      restored.takeEffects();
      plain.takeEffects();
      const text = plain.toSnapshot({ frameLiteral: frameLiteralOfWire(wireSerializeMatch(plain, 1_700_000_000_000 + i)) });
      expect(text.startsWith('{"v":2,"frame":"{\\"matchId')).toBe(true);
      // Restored, it is the match a version 1 snapshot gives: the same state (no serverTime), timers, counters.
      expectEqual(JSON.parse(Match.fromSnapshot(text).toSnapshot()), JSON.parse(plain.toSnapshot()));
      if (i % 97 === 0) restored = Match.fromSnapshot(restored.toSnapshot({ frameLiteral: frameLiteralOfWire(wireSerializeMatch(restored, i)) }));
    }
    expect(serializeMatch(restored, 1)).toBe(serializeMatch(plain, 1));
    expect(restored.stateVersion).toBe(plain.stateVersion);
    expect(() => Match.fromSnapshot('{"v":2,"frame":{}}')).toThrow();
    expect(() => Match.fromSnapshot('{"v":3,"state":{}}')).toThrow();
    expect(() => frameLiteralOfWire('42["other","{}"]')).toThrow();
  });

  it('holds no player-camera secret, and refuses a text that is not a match_data frame', () => {
    const toolsData = { playercamsInfo: { enable: true, identifier: 'cams-1', secret: 'CAM-SECRET-123' } };
    const m = Match.create(logon({ toolsData }), T0, SETTINGS);
    for (const text of [m.toSnapshot(stateJsonOfWire(wireSerializeMatch(m, T0))), m.toSnapshot({ frameLiteral: frameLiteralOfWire(wireSerializeMatch(m, T0)) })]) {
      expect(text).not.toContain('CAM-SECRET-123');
      expect(Match.fromSnapshot(text, 'CAM-SECRET-123').playercamSecret).toBe('CAM-SECRET-123');
    }
    expect(() => stateJsonOfWire('42["other","{}"]')).toThrow();
    expect(() => stateJsonOfWire('42["match_data","{\\"a\\":1}"]')).toThrow();
  });
});
