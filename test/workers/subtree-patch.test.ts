// A player card's text patched where its values changed (src/workers/subtree-patch.ts, issue 38):
// after every message of the recorded match each card's patched text equals the card serialized
// whole, its edits say exactly where it differs from the text before, most changed cards are
// patched rather than made again, and a change of structure is made again; the deltas the shard
// encodes from those edits decode to the exact frames; without COMPRESSION (no encoder asks for the
// edits) no patched card keeps the text it was patched from once its frame is made.
import { describe, expect, it } from 'vitest';
import { inflateDelta } from '../../src/codec/inflate-delta.js';
import { layoutDelta, type EditsOf, type FrameLayout } from '../../src/codec/layout-delta.js';
import { playerSchema } from '../../src/schemas/match-data.js';
import { eachRecordedFrame } from '../../src/tools/recorded-frames.js';
import { recordedMatch } from '../../src/tools/recorded-match.js';
import { Match } from '../../src/workers/match/match.js';
import type { PlayerState } from '../../src/workers/match/types.js';
import { subtreeTexts, type SubtreeText } from '../../src/workers/match/dirty.js';
import { compilePatcher, subtreeEdits } from '../../src/workers/subtree-patch.js';
import { compileEscaped, wireSerializeFrame } from '../../src/workers/wire-serializer.js';
import { FrameEncoder } from '../../src/workers/shard/frames.js';
import { newSlot, type SlotOrigin } from '../../src/workers/shard/slot.js';
import type { ShardSettings } from '../../src/protocol/shard-settings.js';

type Schema = Parameters<typeof compilePatcher>[0];
const whole = compileEscaped(playerSchema as Schema);

/** The edits applied to `prev` give `text`, and each stretch between them is unchanged. */
function checkEdits(p: SubtreeText): void {
  const { prev, edits, text } = p;
  if (prev === null || edits === null) throw new Error('no edits');
  let old = 0;
  let at = 0;
  for (let q = 0; q < edits.length; q += 4) {
    const [os, oe, ns, ne] = edits.slice(q, q + 4);
    expect(os).toBeGreaterThanOrEqual(old);
    expect(text.slice(at, ns)).toBe(prev.slice(old, os));
    expect(ne - ns).toBeGreaterThan(0);
    expect(text.slice(ns, ne)).not.toBe(prev.slice(os, oe));
    old = oe;
    at = ne;
  }
  expect(text.slice(at)).toBe(prev.slice(old));
}

function newMatch(): { m: Match; records: Record<string, unknown>[] } {
  const { header, records } = recordedMatch();
  const m = Match.create({ groupCode: header.groupCode, leftTeam: header.leftTeam as never, rightTeam: header.rightTeam as never, organizationId: '', isSupporter: true }, Number(records[0].timestamp), { sponsorLogoUrl: 'x' });
  return { m, records: records as Record<string, unknown>[] };
}

describe('player cards patched in place (subtree-patch)', () => {
  it('equal the card serialized whole after every message of the recorded match, most of them patched', () => {
    const patcher = compilePatcher(playerSchema as Schema);
    const { m, records } = newMatch();
    const last = new Map<object, string>();
    let patched = 0;
    let made = 0;
    let same = 0;
    for (const r of records) {
      m.apply(r, Number(r.timestamp));
      for (const team of m.liveState().teams) {
        for (const p of team.players) {
          const want = whole(p);
          const got = patcher.text(p);
          if (got.text !== want) throw new Error(`card of ${p.name} after ${String(r.type)}: ${got.text} != ${want}`);
          if (got.edits !== null) {
            expect(got.prev).toBe(last.get(p));
            checkEdits(got);
            patched++;
          } else if (last.get(p) === got.text) {
            same++;
          } else {
            made++;
          }
          last.set(p, got.text);
        }
      }
    }
    // Cards change by values far more often than by structure (a member, a map key, a list entry).
    expect(patched).toBeGreaterThan(2000);
    expect(patched).toBeGreaterThan(5 * made);
    expect(same).toBeGreaterThan(0);
  });

  it('a change of structure or of a value the serializer writes with JSON.stringify is made again, whole', () => {
    const patcher = compilePatcher(playerSchema as Schema);
    const { m, records } = newMatch();
    for (const r of records.slice(0, 400)) m.apply(r, Number(r.timestamp));
    const p = m.liveState().teams[0].players[0] as PlayerState & Record<string, unknown>;
    patcher.text(p);
    const changes: [string, () => void][] = [
      ['an optional member set', () => { p.armorName = p.armorName === undefined ? 'Heavy' : undefined; }],
      ['a map key added', () => { p.killsByWeaponsAndAbilities = { ...p.killsByWeaponsAndAbilities, TX_New: 1 }; }],
      ['a map key removed', () => { p.killsByWeaponsAndAbilities = {}; }],
      ['a list entry added', () => { p.killedPlayerNames = [...p.killedPlayerNames, 'Someone']; }],
      ['an object where a number belongs', () => { (p as Record<string, unknown>).kills = { n: 1 }; }],
      ['the object changed in place', () => { ((p as Record<string, unknown>).kills as { n: number }).n = 2; }],
      ['a number where the object was, changed in place since its text', () => {
        ((p as Record<string, unknown>).kills as { n: number }).n = 300;
        p.kills = 3;
      }],
    ];
    for (const [what, change] of changes) {
      change();
      const got = patcher.text(p);
      expect(got.text, what).toBe(whole(p));
      expect(got.edits, what).toBeNull();
    }
    // Values again: patched.
    p.kills = 4;
    const got = patcher.text(p);
    expect(got.text).toBe(whole(p));
    checkEdits(got);
  });

  it('a card whose text outgrows 65,535 characters is made whole, and patched again once it is back', () => {
    const patcher = compilePatcher(playerSchema as Schema);
    const { m, records } = newMatch();
    for (const r of records.slice(0, 400)) m.apply(r, Number(r.timestamp));
    const p = m.liveState().teams[0].players[0];
    const base = whole(p).length - p.name.length;
    p.name = 'x'.repeat(65_000 - base); // just below: kept with its offsets
    expect(patcher.text(p).text).toBe(whole(p));
    p.name = 'y'.repeat(66_000 - base); // a value patched past the limit
    expect(patcher.text(p).text).toBe(whole(p));
    p.kills += 1;
    const past = patcher.text(p);
    expect(past.text).toBe(whole(p));
    expect(past.edits).toBeNull();
    p.name = 'Short';
    expect(patcher.text(p).text).toBe(whole(p));
    p.kills += 1;
    const back = patcher.text(p);
    expect(back.text).toBe(whole(p));
    checkEdits(back);
  });

  it("the shard's deltas from those edits decode to the exact frames of the recorded match", () => {
    let prev: { wire: Buffer; layout: FrameLayout } | null = null;
    let withEdits = 0;
    let frames = 0;
    const counting: EditsOf = (key, text) => {
      const e = subtreeEdits(key, text);
      if (e?.edits) withEdits++;
      return e;
    };
    eachRecordedFrame((m, ts) => {
      const { wire, layout } = wireSerializeFrame(m, ts);
      const bytes = Buffer.from(wire);
      if (prev !== null) {
        const delta = layoutDelta(prev.layout, layout, counting);
        if (delta === null) throw new Error('no delta');
        const out = inflateDelta(prev.wire, Buffer.from(delta));
        if (!out.equals(bytes)) throw new Error(`frame ${frames}: the delta decodes to another frame`);
      }
      frames++;
      prev = { wire: bytes, layout };
    });
    expect(frames).toBeGreaterThan(1000);
    expect(withEdits).toBeGreaterThan(500);
  });
});

describe('patched cards without COMPRESSION (src/workers/shard/frames.ts)', () => {
  const settings: ShardSettings = {
    shard: 0, intervalMs: 100, inactivityMs: 60_000, trustReplayTimestamps: true, sponsorLogoUrl: 'x', recordReplays: false,
    replayDir: '', serviceVersion: 'test', compression: false, frameSerializer: 'wire', snapshotIntervalMs: 1000,
  };
  const origin: SlotOrigin = { recorder: undefined, recordStart: 0, lastActivityAt: 0, lastEventAt: 0, frameNo: 0, inputs: 0, matchId: '', snapshot: { event: -1, inputs: -1, replayMark: -1 } };

  it('let each patched card go of the text it was patched from once its frame is made (no encoder asks for the edits)', () => {
    const encoder = new FrameEncoder(settings);
    const { m, records } = newMatch();
    const slot = newSlot(m.groupCode, m, origin);
    const cards = () => m.liveState().teams.flatMap((team) => team.players);
    const holding = () => cards().filter((p) => (subtreeTexts.get(p)?.prev ?? null) !== null).length;
    let frames = 0;
    let patched = 0;
    for (const r of records) {
      const before = m.stateVersion;
      m.apply(r, Number(r.timestamp));
      if (m.stateVersion === before) continue;
      const frame = encoder.make(slot, 0);
      patched += holding(); // patched for this frame, their previous texts still held
      expect(encoder.delta(slot, frame)).toBeNull();
      expect(holding()).toBe(0);
      frames++;
    }
    expect(frames).toBeGreaterThan(1000);
    expect(patched).toBeGreaterThan(1000);
  });
});
