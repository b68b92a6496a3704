// How a frame is made: the WebSocket message text of the match's state (FRAME_SERIALIZER picks the
// serializer; both give the same bytes, test/main/shards/sharding.test.ts), with serverTime, and the
// permessage-deflate delta against the match's previous frame (COMPRESSION), encoded from the two
// frames' layouts (src/codec/layout-delta.ts): the shard keeps the previous frame's layout (its
// segments' texts, shared with the serializer's cache), not its bytes.
import { wireMessage } from '../../protocol/wire.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import { layoutDelta } from '../../codec/layout-delta.js';
import { serializeMatch } from '../match/serialize.js';
import { stateJsonOfWire, wholeLayout, wireSerializeFrame, wireSerializeMatch, type FrameLayout } from '../wire-serializer.js';
import type { Slot } from './slot.js';

export class FrameEncoder {
  private readonly onePass: boolean;
  /** The layout of the frame wire() returned last, until delta() takes it. */
  private last: { wire: string; layout: FrameLayout } | null = null;

  constructor(private readonly settings: ShardSettings) {
    this.onePass = settings.frameSerializer === 'wire';
  }

  /** The frame's message text, 42["match_data","<JSON>"]. Throws when serialization fails. */
  wire(slot: Slot, now: number): string {
    // serverTime: the wall clock; with the recorded clock, the match clock (the time of the last
    // change), so that frames stay byte-identical whatever the shard count and replay speed.
    const serverTime = this.settings.trustReplayTimestamps ? slot.match.lastChangeAt : now;
    if (!this.onePass) {
      this.last = null;
      return wireMessage(serializeMatch(slot.match, serverTime));
    }
    this.last = wireSerializeFrame(slot.match, serverTime);
    return this.last.wire;
  }

  /**
   * The delta from the slot's previous frame to this one (`wire`, which wire() just returned), as a
   * latin1 string (strings cross threads cheaper than bytes); null without COMPRESSION or a
   * previous frame. Keeps this frame's layout as the next base.
   */
  delta(slot: Slot, wire: string): string | null {
    const last = this.last;
    this.last = null;
    if (!this.settings.compression) return null;
    // One delta per frame, for every frontend whose deflate window ends with the previous frame.
    const layout = last !== null && last.wire === wire ? last.layout : wholeLayout(wire);
    const delta = slot.prevLayout ? layoutDelta(slot.prevLayout, layout) : null;
    slot.prevLayout = layout;
    slot.layoutEvent = slot.match.eventNumber;
    return delta === null ? null : Buffer.from(delta.buffer, delta.byteOffset, delta.byteLength).toString('latin1');
  }

  /**
   * The match's state as JSON text for its snapshot, taken from a frame (the state plus serverTime):
   * its latest frame's when that shows the current state, else one serialized now (cached subtrees,
   * a fraction of JSON.stringify's cost); undefined with FRAME_SERIALIZER=json (the snapshot stringifies it).
   */
  stateJson(slot: Slot): string | undefined {
    if (slot.prevLayout !== null && slot.layoutEvent === slot.match.eventNumber) return stateJsonOfWire(slot.prevLayout.texts.join(''));
    return this.onePass ? stateJsonOfWire(wireSerializeMatch(slot.match, 0)) : undefined;
  }

  /** The text of the slot's last frame, from its layout kept here as the next delta's base (null without one). */
  lastWire(slot: Slot): string | null {
    return slot.prevLayout ? slot.prevLayout.texts.join('') : null;
  }
}
