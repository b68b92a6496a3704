// Dirty marks and layout deltas over the recorded match: after every applied message the cached
// serialization equals a from-scratch one (a rule that forgets to touch() a subtree fails here),
// and the deltas encoded from frame layouts (src/codec/layout-delta.ts) inflate exactly to the
// frames for a receiver with context takeover.
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { recordedMatch } from '../../../src/tools/recorded-match.js';
import { deflateDelta, layoutDelta } from '../../../src/codec/layout-delta.js';
import { Match } from '../../../src/workers/match/match.js';
import { wireSerializeFrame, type FrameLayout } from '../../../src/workers/wire-serializer.js';
import { checkSerialization } from '../../helpers/serializer-check.js';

const TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff]);

function inflateStream(messages: Uint8Array[]): Buffer {
  return zlib.inflateRawSync(Buffer.concat(messages.flatMap((m) => [Buffer.from(m), TAIL])), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
}

function keyframe(frame: Buffer): Buffer {
  const out = zlib.deflateRawSync(frame, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return out.subarray(0, out.length - 4);
}

function newMatch(toolsData?: unknown): { m: Match; records: Record<string, unknown>[] } {
  const { header, records } = recordedMatch();
  const m = Match.create({ groupCode: header.groupCode, leftTeam: header.leftTeam as never, rightTeam: header.rightTeam as never, toolsData, organizationId: '', isSupporter: true }, Number(records[0].timestamp), { sponsorLogoUrl: 'x' });
  return { m, records: records as Record<string, unknown>[] };
}

/** Frames at 100 ms steps of the recorded clock, with their layout deltas. */
function stream(m: Match, records: Record<string, unknown>[], edit: (r: Record<string, unknown>) => Record<string, unknown> = (r) => r) {
  const frames: Buffer[] = [];
  const deltas: Uint8Array[] = [];
  let prev: FrameLayout | null = null;
  let prevBytes: Buffer | null = null;
  let oldBytes = 0;
  let last = 0;
  for (const r of records) {
    const ts = Number(r.timestamp);
    m.apply(edit(r), ts);
    if (ts - last < 100) continue;
    last = ts;
    const { wire, layout } = wireSerializeFrame(m, ts);
    const bytes = Buffer.from(wire);
    expect(layout.total).toBe(bytes.length);
    if (prev) {
      const d = layoutDelta(prev, layout);
      expect(d).not.toBeNull();
      deltas.push(d!);
      oldBytes += deflateDelta(prevBytes!, bytes)!.length;
    }
    frames.push(bytes);
    prev = layout;
    prevBytes = bytes;
  }
  return { frames, deltas, oldBytes };
}

describe('dirty marks', () => {
  it('the cached serialization equals a from-scratch one after every message of the recorded match', () => {
    const { m, records } = newMatch();
    checkSerialization(m, 'creation');
    for (const r of records) {
      const ts = Number(r.timestamp);
      m.apply(r, ts);
      checkSerialization(m, `${String(r.type)} at ${ts}`, true);
    }
    // The calls from outside the rules: MMR answers, player cameras, aux disconnects, the end.
    const ids = m.liveState().teams.flatMap((t) => t.players.map((p) => p.riotId));
    const at = m.lastChangeAt + 1;
    m.applyMmr({ results: [{ puuid: ids[0], currentMMRTier: 21, peakMMRTier: 24 }] }, at);
    checkSerialization(m, 'applyMmr');
    m.applyPlayercams({ nameOverrides: { [ids[1]]: 'Cam Name' }, enabledPlayers: [ids[1]] }, at);
    checkSerialization(m, 'applyPlayercams');
    m.auxDisconnected(ids[2], at);
    checkSerialization(m, 'auxDisconnected');
    m.setRegistered(true);
    m.stopRunning(at);
    checkSerialization(m, 'stopRunning');
    // A restored match has no cached text: the same bytes.
    const restored = Match.fromSnapshot(m.toSnapshot());
    expect(wireSerializeFrame(restored, at).wire).toBe(wireSerializeFrame(m, at).wire);
  });
});

const SPONSORS = 240; // frames of ~30 KB: the swaps below move text out of the window's reach

describe('layout deltas', () => {
  it('every frame of the recorded match inflates back exactly, about as small as byte-compared deltas', () => {
    const { m, records } = newMatch();
    const { frames, deltas, oldBytes } = stream(m, records);
    expect(frames.length).toBeGreaterThan(1000);
    expect(inflateStream([keyframe(frames[0]), ...deltas]).equals(Buffer.concat(frames))).toBe(true);
    const bytes = deltas.reduce((a, d) => a + d.length, 0);
    expect(bytes).toBeLessThan(oldBytes * 1.15);
  });

  it('non-ASCII names, and frames beyond half the window (references out of reach become literals)', () => {
    // A long sponsor list makes every frame ~30 KB: the start of the previous frame is out of reach
    // from the end of the next one.
    const sponsors = Array.from({ length: SPONSORS }, (_, i) => `https://cdn.example.org/sponsor-${i}-ünïcødé-😀.png`);
    const { m, records } = newMatch({ sponsorInfo: { enabled: true, duration: 5000, sponsors } });
    const rename = (r: Record<string, unknown>) => {
      if (r.type !== 'roster' || typeof r.data !== 'object' || r.data === null) return r;
      const data = r.data as Record<string, unknown>;
      return { ...r, data: { ...data, name: `Ünï "${String(data.name)}" 😀` } };
    };
    // Then the teams swap sides twice: one team's text moves ~7 KB further from where it was.
    const half = records.slice(0, records.length >> 1);
    const last = half.at(-1)!;
    const swaps = [1, 2, 3].map((k) => ({ ...last, type: 'swap_left_right', data: true, timestamp: Number(last.timestamp) + k * 200 }));
    const { frames, deltas } = stream(m, [...half, ...swaps], rename);
    expect(frames.at(-1)!.length).toBeGreaterThan(26_000);
    expect(frames.at(-1)!.length).toBeLessThan(32_768);
    expect(frames.at(-1)!.toString()).toContain('Ünï');
    expect(inflateStream([keyframe(frames[0]), ...deltas]).equals(Buffer.concat(frames))).toBe(true);
  });

  it('no delta from a previous frame larger than the window', () => {
    const sponsors = Array.from({ length: 1200 }, (_, i) => `https://cdn.example.org/sponsor-${i}.png`);
    const { m } = newMatch({ sponsorInfo: { enabled: true, duration: 5000, sponsors } });
    const a = wireSerializeFrame(m, 1).layout;
    expect(a.total).toBeGreaterThan(32_768);
    expect(layoutDelta(a, wireSerializeFrame(m, 2).layout)).toBeNull();
  });
});
