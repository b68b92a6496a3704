// One published match_data frame, in the forms its recipients need, each made at most once:
// the WebSocket message text (from the shard), the delta against the match's previous frame (from
// the shard), and, lazily, a self-contained deflated keyframe and the plain JSON string. What the
// FrameBus carries from a match's owner to the broadcast listeners (a remote adapter sends
// groupCode, frameNo, epoch, wireText and deltaText, and builds one of these on arrival).
import zlib from 'node:zlib';
import { WIRE_PREFIX_LENGTH } from '../protocol/wire.js';

export class FramePacket {
  private keyframeBytes: Buffer | null = null;
  private wireBytes: Buffer | null = null;
  private textValue: string | null = null;
  private deltaBytes: Buffer | null = null;

  constructor(
    readonly groupCode: string,
    /** Frame number within the match's stream; `delta` applies to a receiver that has `frameNo - 1`. */
    readonly frameNo: number,
    /** The WebSocket message text: 42["match_data","<escaped JSON>"]. */
    readonly wireText: string,
    /** The delta's bytes as a latin1 string (how it crossed from the shard), or null. */
    private deltaValue: string | null,
    /** The owner's epoch (MatchDirectory): frames of a lower one than the match's channel are dropped. */
    readonly epoch = 0,
  ) {}

  /** The delta's bytes as a latin1 string (how it crossed from the shard), or null (none, or dropped). */
  get deltaText(): string | null {
    return this.deltaValue;
  }

  /** The permessage-deflate delta against frame frameNo - 1, or null when there is none. */
  get delta(): Buffer | null {
    if (this.deltaValue === null) return null;
    if (!this.deltaBytes) this.deltaBytes = Buffer.from(this.deltaValue, 'latin1');
    return this.deltaBytes;
  }

  /**
   * The delta has served the deliveries of its publish: a frame kept afterwards (the match's latest,
   * a skipped frontend's) is sent as a keyframe. An idle match's latest frame otherwise holds a delta
   * as large as the frame (the lobby's first frames: ~10 KB per match; docs/perf/memory.md).
   */
  dropDelta(): void {
    this.deltaValue = null;
    this.deltaBytes = null;
  }

  /** The WebSocket message bytes (uncompressed). */
  get wire(): Buffer {
    if (!this.wireBytes) this.wireBytes = Buffer.from(this.wireText);
    return this.wireBytes;
  }

  /** The frame deflated on its own (for a receiver whose window does not end with frameNo - 1). */
  keyframe(): Buffer {
    if (!this.keyframeBytes) {
      const out = zlib.deflateRawSync(this.wire, { level: 3, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      this.keyframeBytes = out.subarray(0, out.length - 4); // permessage-deflate drops the 00 00 ff ff tail
    }
    return this.keyframeBytes;
  }

  /** The match_data JSON string, for long-polling clients and REST. */
  text(): string {
    if (this.textValue === null) this.textValue = (JSON.parse(this.wireText.slice(WIRE_PREFIX_LENGTH)) as [string, string])[1];
    return this.textValue;
  }
}
