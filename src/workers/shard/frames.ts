// How a frame is made: the WebSocket message text of the match's state (FRAME_SERIALIZER picks the
// serializer; both give the same bytes, test/sharding.test.ts), with serverTime, and the
// permessage-deflate delta against the match's previous frame (COMPRESSION).
import { isAscii } from 'node:buffer';
import { wireMessage } from '../../protocol/wire.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import { deflateDelta } from '../deflate-delta.js';
import { serializeMatch } from '../match/serialize.js';
import { wireSerializeMatch } from '../wire-serializer.js';
import type { Slot } from './slot.js';

export class FrameEncoder {
  private readonly onePass: boolean;

  constructor(private readonly settings: ShardSettings) {
    this.onePass = settings.frameSerializer === 'wire';
  }

  /** The frame's message text, 42["match_data","<JSON>"]. Throws when serialization fails. */
  wire(slot: Slot, now: number): string {
    // serverTime: the wall clock; with the recorded clock, the match clock (the time of the last
    // change), so that frames stay byte-identical whatever the shard count and replay speed.
    const serverTime = this.settings.trustReplayTimestamps ? slot.match.lastChangeAt : now;
    return this.onePass ? wireSerializeMatch(slot.match, serverTime) : wireMessage(serializeMatch(slot.match, serverTime));
  }

  /**
   * The delta from the slot's previous frame to this one, as a latin1 string (strings cross threads
   * cheaper than bytes); null without COMPRESSION or a previous frame. Keeps this frame as the next base.
   */
  delta(slot: Slot, wire: string): string | null {
    if (!this.settings.compression) return null;
    // One delta per frame, for every frontend whose deflate window ends with the previous frame.
    const bytes = Buffer.from(wire);
    const delta = slot.prevWire ? deflateDelta(slot.prevWire, bytes) : null;
    slot.prevWire = bytes;
    return delta === null ? null : Buffer.from(delta.buffer, delta.byteOffset, delta.byteLength).toString('latin1');
  }

  /** The text of the slot's last frame, from the delta base kept here (null without one). */
  lastWire(slot: Slot): string | null {
    return slot.prevWire ? slot.prevWire.toString(isAscii(slot.prevWire) ? 'latin1' : 'utf8') : null;
  }
}
