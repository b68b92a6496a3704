// The watching side of the Redis FrameBus (frame-bus.ts): the codes this node's overlays watch and
// another node runs. A watched code's frames channel is SSUBSCRIBEd while it has listeners here;
// once subscribed, the owner is asked for a keyframe (KEYFRAME_REQUEST on the code's keyframe
// channel, frame-messages.ts), and every following frame is rebuilt from its delta and the frame
// before it (codec/inflate-delta.ts): this node's overlays get the same delta bytes as the owner's.
// A rebuilt frame keeps its bytes and makes its text only when a recipient reads it (ReceivedFrame,
// frame-received.ts): overlays that take the delta never need it. The bytes are rebuilt into the
// buffer of the frame two back (two buffers per watched code, reused), not a new one per frame.
// A gap, a delta without its base (joined mid-stream, a new owner) or a delta that does not decode
// is dropped and a keyframe asked for (at most once per REQUEST_INTERVAL_MS); frames of a lower
// epoch than the code's are dropped (a stale owner); a higher epoch (a new owner after a takeover)
// is taken from its first 'K'. 'X' drops the latest.
import { inflateDelta } from '../../../../codec/inflate-delta.js';
import type { Logger } from '../../../base/log.js';
import type { Frame } from '../../frame-bus.js';
import type { FrameListeners } from '../../frame-listeners.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { FRAME_HEADER_BYTES, FRAME_KIND, KEYFRAME_REQUEST, type RedisFrameBusStats } from './frame-messages.js';
import { ReceivedFrame } from './frame-received.js';

/** A watching node asks for a keyframe of a match at most this often (gaps, missing bases). */
export const REQUEST_INTERVAL_MS = 200;

interface Watch {
  sub: { unsubscribe: () => void } | null;
  /** Epoch of the stream followed; -1 before the first frame. */
  epoch: number;
  frameNo: number;
  /** The last frame's text as bytes: what the next delta applies to. */
  base: Buffer | null;
  latest: ReceivedFrame | undefined;
  /** The frame before `latest` in the same run of deltas: its buffer is where the next frame is rebuilt. */
  previous: ReceivedFrame | null;
  lastRequestAt: number;
}

export interface FrameWatchDeps {
  conn: RedisConnection;
  log: Logger;
  stats: RedisFrameBusStats;
  /** This node's frame listeners (the bus's). */
  listeners: FrameListeners;
  /** Where a watched code's messages go (the bus's `receive`, which hands them back to `receive` here). */
  onMessage: (groupCode: string, message: Buffer) => void;
  /** Publishes a message (counted, and refused while Redis is unreachable). */
  publish: (channel: string, message: Buffer) => void;
}

export class FrameWatches {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly deps: FrameWatchDeps) {}

  has(groupCode: string): boolean {
    return this.watches.has(groupCode);
  }

  latest(groupCode: string): Frame | undefined {
    return this.watches.get(groupCode)?.latest;
  }

  /** The match ended (its owner here closed it): the latest frame and the base go. */
  end(groupCode: string): void {
    const watch = this.watches.get(groupCode);
    if (watch) {
      watch.latest = undefined;
      watch.base = null;
      watch.previous = null;
    }
  }

  start(groupCode: string): void {
    const watch: Watch = { sub: null, epoch: -1, frameNo: 0, base: null, latest: undefined, previous: null, lastRequestAt: -Infinity };
    this.watches.set(groupCode, watch);
    const { conn, onMessage } = this.deps;
    const sub = conn.subscribe(conn.keys.framesChannel(groupCode), (message) => onMessage(groupCode, message), true);
    watch.sub = sub;
    // Subscribed (Redis confirmed): from now on every frame arrives; the owner's latest is the base.
    // Not forced: frames that arrived before the confirmation (published just before) may have
    // asked already, and one answer serves both.
    void sub.then(() => {
      if (this.watches.get(groupCode) === watch && watch.base === null) this.request(groupCode, watch, false);
    });
  }

  stop(groupCode: string): void {
    const watch = this.watches.get(groupCode);
    if (!watch) return;
    this.watches.delete(groupCode);
    watch.sub?.unsubscribe();
  }

  stopAll(): void {
    for (const code of [...this.watches.keys()]) this.stop(code);
  }

  /** Redis is back: frames published meanwhile were lost; every watched code asks for a keyframe. */
  requestAll(): void {
    for (const [code, watch] of this.watches) this.request(code, watch, true);
  }

  /** One message of a watched code's frames channel. */
  receive(groupCode: string, message: Buffer): void {
    const watch = this.watches.get(groupCode);
    if (!watch || message.length < FRAME_HEADER_BYTES) return;
    const { stats } = this.deps;
    const kind = message[0];
    const epoch = message.readUIntBE(1, 6);
    const frameNo = message.readUInt32BE(7);
    if (epoch < watch.epoch) {
      stats.droppedStale++;
      if (!watch.base) this.request(groupCode, watch, false);
      return;
    }
    let bytes: Buffer;
    let backing: Buffer;
    let delta: string | null = null;
    let previous: ReceivedFrame | null = null;
    if (kind === FRAME_KIND.delta) {
      if (epoch !== watch.epoch || watch.base === null) {
        stats.noBase++;
        this.request(groupCode, watch, false);
        return;
      }
      if (frameNo !== watch.frameNo + 1) {
        if (frameNo <= watch.frameNo) {
          stats.droppedStale++;
        } else {
          stats.gaps++;
          this.request(groupCode, watch, false);
        }
        return;
      }
      const deltaBytes = message.subarray(FRAME_HEADER_BYTES);
      // The frame two back is no recipient's latest any more: its buffer takes the new frame.
      let into = watch.previous?.release() ?? null;
      watch.previous = null;
      if (into === null || into.length < watch.base.length) into = Buffer.allocUnsafe(roomFor(watch.base.length));
      try {
        bytes = inflateDelta(watch.base, deltaBytes, into);
      } catch (err) {
        stats.badDeltas++;
        this.deps.log.warn({ groupCode, frameNo, error: (err as Error).message }, 'frame delta does not decode; asking for a keyframe');
        watch.base = null;
        this.request(groupCode, watch, false);
        return;
      }
      backing = bytes.buffer === into.buffer && bytes.byteOffset === into.byteOffset ? into : bytes;
      delta = deltaBytes.toString('latin1');
      previous = watch.latest ?? null;
    } else if (kind === FRAME_KIND.keyframe) {
      if (epoch === watch.epoch && watch.base !== null && frameNo <= watch.frameNo) {
        if (frameNo < watch.frameNo) stats.droppedStale++;
        return; // an answer to another node's request: this node has it already
      }
      bytes = Buffer.from(message.subarray(FRAME_HEADER_BYTES)); // a copy: the message's buffer may be a larger read
      backing = bytes;
      stats.keyframesReceived++;
      watch.lastRequestAt = -Infinity; // answered: the next gap asks at once
    } else if (kind === FRAME_KIND.closed) {
      watch.epoch = epoch;
      watch.base = null;
      watch.latest = undefined;
      watch.previous = null;
      return;
    } else {
      return;
    }
    const frame = new ReceivedFrame(groupCode, frameNo, epoch, bytes, backing);
    watch.epoch = epoch;
    watch.frameNo = frameNo;
    watch.base = bytes;
    watch.previous = previous; // after a keyframe, none: the frames before it keep their bytes
    watch.latest = frame;
    stats.framesReceived++;
    this.deps.listeners.deliver(frame, delta, (err) => this.deps.log.error({ groupCode, error: (err as Error).message }, 'frame listener failed'));
  }

  private request(groupCode: string, watch: Watch, force: boolean): void {
    const now = performance.now();
    if (!force && now - watch.lastRequestAt < REQUEST_INTERVAL_MS) return;
    watch.lastRequestAt = now;
    this.deps.stats.keyframesRequested++;
    this.deps.publish(this.deps.conn.keys.keyframeChannel(groupCode), KEYFRAME_REQUEST);
  }
}

/** A rebuild buffer for frames about `size` bytes long: room to grow before a larger one is needed. */
function roomFor(size: number): number {
  return (size + (size >> 3) + 4095) & ~4095;
}
