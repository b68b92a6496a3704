// GET /feeds of a local match renders tables its shard made from the match's state
// (protocol/feed-tables.ts feedTablesOf, sent as JSON: main/feeds/shard-tables.ts); another node's
// match, from the frame's JSON. Both must give the same tables, so the same texts and ETags on every
// node: checked here for every state of the recorded match, with the frame's serverTime.
import { describe, expect, it } from 'vitest';
import { render } from '../../../src/main/feeds/formats.js';
import { feedTablesOf, PLAYER_COLUMNS, type MatchData } from '../../../src/protocol/feed-tables.js';
import { Match } from '../../../src/workers/match/match.js';
import { serializeMatch } from '../../../src/workers/match/serialize.js';
import { loadReplay, SETTINGS, watchAllMatches } from '../../helpers/engine.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

// Pure CPU over every message of the recorded match: a deadline for a loaded machine, not a speed check.
describe('feed tables from the state', { timeout: 180_000 }, () => {
  it('equal the tables of the frame serialized from it, for every state of the recorded match', () => {
    const { header: h, records } = loadReplay();
    const m = Match.create(
      { groupCode: h.groupCode, leftTeam: h.leftTeam, rightTeam: h.rightTeam, organizationId: '', isSupporter: false },
      h.logStartTime,
      SETTINGS,
    );
    let compared = 0;
    let withPlayers = 0;
    let withClock = 0;
    for (const rec of records) {
      expect(m.apply(rec, rec.timestamp).ok).toBe(true);
      const fromFrame = feedTablesOf(JSON.parse(serializeMatch(m, rec.timestamp)) as MatchData);
      // As the shard sends them: JSON texts across the thread boundary; the players' text is the JSON
      // feed's body as it is, so it must equal the text rendered from the frame's rows (the same ETag).
      const state = feedTablesOf(m.liveState() as MatchData, rec.timestamp);
      expect(JSON.parse(JSON.stringify({ scoreboard: state.scoreboard, serverTime: state.serverTime }))).toEqual({ scoreboard: fromFrame.scoreboard, serverTime: fromFrame.serverTime });
      expect(JSON.stringify(state.players)).toBe(render('json', fromFrame.players, PLAYER_COLUMNS, 'players'));
      compared++;
      if (fromFrame.players.length === 10) withPlayers++;
      if (fromFrame.scoreboard.clock.kind !== '') withClock++;
    }
    expect(compared).toBe(records.length);
    // The recording fills both tables: ten players, and a running clock for much of it.
    expect(withPlayers).toBeGreaterThan(records.length / 2);
    expect(withClock).toBeGreaterThan(records.length / 4);
  });
});
