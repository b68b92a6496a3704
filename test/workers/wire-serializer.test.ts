// The one-pass wire serializer must produce exactly what the overlay would get from the JSON
// serializer: the same parsed frame for every state of the recorded match, valid Socket.IO text.
import { describe, expect, it } from 'vitest';
import { Match } from '../../src/workers/match/match.js';
import { serializeMatch } from '../../src/workers/match/serialize.js';
import { compileEscaped, wireSerializeMatch } from '../../src/workers/wire-serializer.js';
import { recordedMatch } from '../../src/tools/recorded-match.js';

const replay = recordedMatch();

// Pure CPU over every message of the recorded match: seconds alone, far more beside other test files on a
// loaded 2-core machine; a deadline, not a speed check (bench/ measures speed).
describe('wire serializer', { timeout: 180_000 }, () => {
  it('equals the JSON serializer, escaped, for every state of the recorded match', () => {
    const h = replay.header;
    const m = Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false }, Number(replay.records[0].timestamp), { sponsorLogoUrl: 'x' });
    let checked = 0;
    for (const r of replay.records) {
      const ts = Number(r.timestamp);
      m.advance(ts);
      m.apply(r, ts);
      const wire = wireSerializeMatch(m, ts);
      expect(wire.startsWith('42["match_data","')).toBe(true);
      const [event, payload] = JSON.parse(wire.slice(2)) as [string, string];
      expect(event).toBe('match_data');
      expect(JSON.parse(payload)).toEqual(JSON.parse(serializeMatch(m, ts)));
      checked++;
    }
    expect(checked).toBe(replay.records.length);
  });

  it('escapes quotes, backslashes, control characters and surrogates in strings and keys as JSON.stringify does', () => {
    const serialize = compileEscaped({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' }, c: { type: 'object', additionalProperties: { type: 'number' } }, d: { type: 'object', additionalProperties: true }, e: { type: 'array', items: { type: 'string' } } },
    });
    const value = { a: 'he said "hi" \\ \n \u0001 \ud83d\ude00 \ud800', b: NaN, c: { 'na"me\\': 1, ok: 2 }, d: { x: [1, 'y"'], z: null }, e: ['q"', 'plain'] };
    const escaped = serialize(value);
    expect(JSON.parse('"' + escaped + '"')).toBe(JSON.stringify(value));
  });
});
