// How a frame is made: the frame text (the WebSocket message) of the match's state (FRAME_SERIALIZER picks the
// serializer; both give the same bytes, test/main/shards/sharding.test.ts), with serverTime, and the
// permessage-deflate delta against the match's previous frame (COMPRESSION), encoded from the two
// frames' layouts (src/codec/layout-delta.ts): the shard keeps the previous frame's layout (its
// segments' texts, shared with the serializer's cache), not its bytes; this file owns each slot's
// `layout` (slot.ts).
import { wireMessage } from '../../protocol/wire.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import { layoutDelta } from '../../codec/layout-delta.js';
import { serializeMatch } from '../match/serialize.js';
import type { SnapshotState } from '../match/snapshot.js';
import { dropEdits, subtreeEdits } from '../subtree-patch.js';
import { wholeLayout, wireSerializeLayout, wireSerializeMatch, type FrameLayout } from '../wire-serializer.js';
import { frameLiteralOfWire } from '../wire-text.js';
import type { Slot } from './slot.js';

/**
 * A frame made by FrameEncoder.make(): with the one-pass serializer its layout, whose texts joined
 * are the frame text (joined by FrameEncoder.frameText() only when the text must go out); with
 * FRAME_SERIALIZER=json its frame text. `length`: the frame text's length in UTF-16 units.
 */
export interface MadeFrame {
  layout: FrameLayout | null;
  frameText: string | null;
  length: number;
}

export class FrameEncoder {
  private readonly onePass: boolean;

  constructor(private readonly settings: ShardSettings) {
    this.onePass = settings.frameSerializer === 'wire';
  }

  /** The frame of the match's state, 42["match_data","<JSON>"]. Throws when serialization fails. */
  make(slot: Slot, now: number): MadeFrame {
    // serverTime: the wall clock; with the recorded clock, the match clock (the time of the last
    // change), so that frames stay byte-identical whatever the shard count and replay speed.
    const serverTime = this.settings.trustReplayTimestamps ? slot.match.lastChangeAt : now;
    if (!this.onePass) {
      const frameText = wireMessage(serializeMatch(slot.match, serverTime));
      return { layout: null, frameText, length: frameText.length };
    }
    const layout = wireSerializeLayout(slot.match, serverTime);
    let length = 0;
    for (const t of layout.texts) length += t.length;
    return { layout, frameText: null, length };
  }

  /** The frame text (joined from its layout on first use). */
  frameText(frame: MadeFrame): string {
    return (frame.frameText ??= frame.layout!.texts.join(''));
  }

  /**
   * The delta from the slot's previous frame to `frame`, as a latin1 string (strings cross threads
   * cheaper than bytes); null without COMPRESSION or a previous frame. Keeps this frame's layout as
   * the next base.
   */
  delta(slot: Slot, frame: MadeFrame): string | null {
    if (!this.settings.compression) {
      if (frame.layout !== null) dropEdits(frame.layout);
      return null;
    }
    // One delta per frame, for every overlay whose deflate window ends with the previous frame.
    const layout = frame.layout ?? wholeLayout(frame.frameText!);
    const base = slot.layout;
    const delta = base.prev ? layoutDelta(base.prev, layout, subtreeEdits) : null;
    base.prev = layout;
    base.event = slot.match.stateVersion;
    return delta === null ? null : Buffer.from(delta.buffer, delta.byteOffset, delta.byteLength).toString('latin1');
  }

  /**
   * The match's state for its snapshot, as the string literal of a frame (a version 2 snapshot,
   * src/workers/match/snapshot.ts: copied, not unescaped): its latest frame's when that shows the
   * current state, else one serialized now (cached subtrees, a fraction of JSON.stringify's cost);
   * undefined with FRAME_SERIALIZER=json (the snapshot stringifies the state).
   */
  snapshotState(slot: Slot): SnapshotState | undefined {
    if (slot.layout.prev !== null && slot.layout.event === slot.match.stateVersion) return { frameLiteral: frameLiteralOfWire(slot.layout.prev.texts.join('')) };
    return this.onePass ? { frameLiteral: frameLiteralOfWire(wireSerializeMatch(slot.match, 0)) } : undefined;
  }

  /** The frame text of the slot's last frame, from its layout kept here as the next delta's base (null without one). */
  lastFrameText(slot: Slot): string | null {
    return slot.layout.prev ? slot.layout.prev.texts.join('') : null;
  }
}
