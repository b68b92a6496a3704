// The frame outside its cached subtrees, kept per state (src/workers/wire-serializer.ts, issue 28):
// when no value there changed since the state's last frame, the frame is that frame's layout with
// each subtree's current text and a new serverTime. Over every message of the recorded match, one
// frame per message as the shard makes them, each frame must equal a from-scratch serialization
// byte for byte, its layout must measure what it holds, and most frames must come from the skeleton;
// and a change in place to what the serializer writes with JSON.stringify (toastInfo) is seen.
import { describe, expect, it } from 'vitest';
import { recordedMatch } from '../../src/tools/recorded-match.js';
import { Match } from '../../src/workers/match/match.js';
import type { FrameLayout } from '../../src/workers/wire-serializer.js';
import * as wire from '../../src/workers/wire-serializer.js';

function newMatch(): { m: Match; records: Record<string, unknown>[] } {
  const { header, records } = recordedMatch();
  const m = Match.create({ groupCode: header.groupCode, leftTeam: header.leftTeam as never, rightTeam: header.rightTeam as never, organizationId: '', isSupporter: true }, Number(records[0].timestamp), { sponsorLogoUrl: 'x' });
  return { m, records: records as Record<string, unknown>[] };
}

/** The layout's text, after checking that its offsets and byte counts are those of its texts. */
function joined(layout: FrameLayout): string {
  let at = 0;
  let measured = true;
  layout.texts.forEach((t, k) => {
    if (layout.bytes[k] !== Buffer.byteLength(t) || layout.offsets[k] !== at) measured = false;
    at += layout.bytes[k];
  });
  if (!measured || layout.total !== at) throw new Error(`a layout that does not measure its texts: ${JSON.stringify({ bytes: layout.bytes, offsets: layout.offsets, total: layout.total })}`);
  return layout.texts.join('');
}

/** Throws with the place where a frame differs from the from-scratch one (expect's diff of two 16 kB strings is slow). */
function same(text: string, fresh: string, what: string): void {
  if (text === fresh) return;
  let i = 0;
  while (text[i] === fresh[i]) i++;
  throw new Error(`${what}: differs at ${i}: …${text.slice(Math.max(0, i - 60), i + 60)}… want …${fresh.slice(Math.max(0, i - 60), i + 60)}…`);
}

describe('frames from the previous frame outside the cached subtrees', () => {
  it('equal a from-scratch serialization after every message of the recorded match, most of them made from the skeleton', () => {
    const { m, records } = newMatch();
    const before = wire.skeletonFrames;
    let frames = 0;
    for (const r of records) {
      const ts = Number(r.timestamp);
      m.apply(r, ts);
      const layout = wire.wireSerializeLayout(m, ts);
      same(joined(layout), wire.wireSerializeFromScratch(m, ts), `after record ${frames / 2}`);
      // A second frame of the same state (a frame forced with nothing changed): the skeleton, a new serverTime.
      const again = wire.wireSerializeLayout(m, ts + 1);
      same(joined(again), wire.wireSerializeFromScratch(m, ts + 1), `again after record ${frames / 2}`);
      if (again.keys.length !== layout.keys.length || again.keys.some((k, i) => k !== layout.keys[i])) throw new Error('another layout for the same state');
      frames += 2;
    }
    const fromSkeleton = wire.skeletonFrames - before;
    expect(fromSkeleton).toBeGreaterThan(records.length); // every second frame, and many of the others
    expect(fromSkeleton).toBeLessThan(frames);
  }, 120_000);

  it('sees a change in place where the serializer writes JSON.stringify of an open object (toastInfo), and a subtree\'s new text', () => {
    const { m, records } = newMatch();
    for (const r of records.slice(0, 600)) m.apply(r, Number(r.timestamp));
    const state = m.liveState() as unknown as { toastInfo: Record<string, unknown>; roundPhase: string };
    wire.wireSerializeLayout(m, 1);
    state.toastInfo.title = 'changed in place';
    expect(joined(wire.wireSerializeLayout(m, 2))).toBe(wire.wireSerializeFromScratch(m, 2));
    state.roundPhase = 'a phase with "quotes"';
    expect(joined(wire.wireSerializeLayout(m, 3))).toBe(wire.wireSerializeFromScratch(m, 3));
    // A scoreboard row touches a player (its text is dropped): the skeleton with that player's new text.
    const row = records.slice(600).find((r) => r.type === 'scoreboard')!;
    m.apply({ ...row, data: { ...(row.data as object), money: 12345 } }, Number(row.timestamp));
    const text = joined(wire.wireSerializeLayout(m, 4));
    expect(text).toBe(wire.wireSerializeFromScratch(m, 4));
    expect(text).toContain('12345');
  });

  it('writes a team\'s spentThisRound (a volatile member) anew in a frame from the skeleton, and sees its team replaced', () => {
    const { m, records } = newMatch();
    for (const r of records.slice(0, 600)) m.apply(r, Number(r.timestamp));
    const state = m.liveState() as unknown as { teams: Record<string, unknown>[] };
    wire.wireSerializeLayout(m, 1);
    // Only the volatile member changed: the frame comes from the skeleton, with the new value.
    state.teams[0].spentThisRound = 987654;
    let before = wire.skeletonFrames;
    let text = joined(wire.wireSerializeLayout(m, 2));
    expect(wire.skeletonFrames).toBe(before + 1);
    expect(text).toBe(wire.wireSerializeFromScratch(m, 2));
    expect(text).toContain('987654');
    // The team replaced by a copy (another holder): not the skeleton, which would read the old team.
    state.teams[1] = { ...state.teams[1], spentThisRound: 424242 };
    before = wire.skeletonFrames;
    text = joined(wire.wireSerializeLayout(m, 3));
    expect(wire.skeletonFrames).toBe(before);
    expect(text).toBe(wire.wireSerializeFromScratch(m, 3));
    expect(text).toContain('424242');
    // The member gone (undefined: omitted) and back: other layouts, each equal to a from-scratch one.
    delete state.teams[0].spentThisRound;
    text = joined(wire.wireSerializeLayout(m, 4));
    expect(text).toBe(wire.wireSerializeFromScratch(m, 4));
    expect(text).not.toContain('987654');
    state.teams[0].spentThisRound = 5;
    expect(joined(wire.wireSerializeLayout(m, 5))).toBe(wire.wireSerializeFromScratch(m, 5));
  });
});
