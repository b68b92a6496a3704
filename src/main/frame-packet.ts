// One published match_data frame, in the forms its recipients need, each made at most once:
// the WebSocket message text (from the shard), the delta against the match's previous frame (from
// the shard), and, lazily, a self-contained deflated keyframe and the plain JSON string. What the
// FrameBus carries from a match's owner to the broadcast listeners (a remote adapter sends
// groupCode, frameNo, epoch, wireText and deltaText, and builds one of these on arrival).
//
// The broadcast listener writes whole WebSocket messages (broadcast/ws-frame.ts): each form is kept
// as the message's bytes, header included, so every recipient of a frame gets the same Buffer.
//
// A frame from a local shard may come without its text (only its delta: the shard keeps the latest
// frame as its next delta's base, and the main thread holds no second copy). Whoever needs the
// text (a keyframe, a plain or polling frontend, REST, a keyframe for another node) checks
// `hasText` and otherwise waits with `whenText`: the packet's TextSource asks the shard for it
// (matches/frame-texts.ts).
import zlib from 'node:zlib';
import { WIRE_PREFIX_LENGTH } from '../protocol/wire.js';
import { wsFrame, wsFrameFromString, wsPayload } from './broadcast/ws-frame.js';

/** Where a packet without its text gets it from (the shard that made it), and who learns it is used. */
export interface TextSource {
  /** Asks for the text of `packet`: `packet.setText()` or `packet.superseded()` follows. */
  fetch(packet: FramePacket): void;
  /**
   * The text of `packet` was used (once per packet); `continuous`: by a recipient that needs every
   * frame's text (plain or polling), not only a keyframe now.
   */
  used(packet: FramePacket, continuous: boolean): void;
}

export class FramePacket {
  private waiters: (() => void)[] | null = null;
  private requested = false;
  private used = false;
  private keyframeMsg: Buffer | null = null;
  private plainMsg: Buffer | null = null;
  private deltaMsg: Buffer | null = null;
  private textValue: string | null = null;

  constructor(
    readonly groupCode: string,
    /** Frame number within the match's stream; `delta` applies to a receiver that has `frameNo - 1`. */
    readonly frameNo: number,
    /** The WebSocket message text: 42["match_data","<escaped JSON>"]; null until fetched (`source`). */
    private wireValue: string | null,
    /** The delta's bytes as a latin1 string (how it crossed from the shard), or null. */
    private deltaValue: string | null,
    /** The owner's epoch (MatchDirectory): frames of a lower one than the match's channel are dropped. */
    readonly epoch = 0,
    private readonly source?: TextSource,
  ) {}

  /** Whether the text is here (else `whenText`). */
  get hasText(): boolean {
    return this.wireValue !== null;
  }

  /** The WebSocket message text: 42["match_data","<escaped JSON>"] (only when `hasText`). */
  get wireText(): string {
    if (this.wireValue === null) throw new Error(`frame ${this.groupCode}#${this.frameNo}: text not fetched`);
    return this.wireValue;
  }

  /** Calls `cb` once the text is here, or once a newer frame made this one moot (then `hasText` is still false). */
  whenText(cb: () => void): void {
    if (this.wireValue !== null || !this.source) return cb();
    (this.waiters ??= []).push(cb);
    if (!this.requested) {
      this.requested = true;
      this.source.fetch(this);
    }
  }

  /** The fetched text (the TextSource). */
  setText(text: string): void {
    if (this.wireValue !== null) return;
    this.wireValue = text;
    this.wake();
  }

  /** The text will not come (a newer frame is the match's latest): the waiters look again. */
  superseded(): void {
    this.requested = false;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = null;
    if (waiters) for (const cb of waiters) cb();
  }

  private use(continuous: boolean): string {
    const text = this.wireText;
    if (this.source && !this.used) {
      this.used = true;
      this.source.used(this, continuous);
    }
    return text;
  }

  /** The delta's bytes as a latin1 string (how it crossed from the shard), or null (none, or dropped). */
  get deltaText(): string | null {
    return this.deltaValue;
  }

  /**
   * The delta has served the deliveries of its publish: a frame kept afterwards (the match's latest,
   * a skipped frontend's) is sent as a keyframe. An idle match's latest frame would otherwise hold a
   * delta as large as the frame (the lobby's first frames: ~10 KB per match; docs/benchmarks.md, Memory).
   */
  dropDelta(): void {
    this.deltaValue = null;
    this.deltaMsg = null;
  }

  /** The delta as a whole WebSocket message (RSV1: permessage-deflate data), or null when there is none. */
  deltaMessage(): Buffer | null {
    if (this.deltaValue === null) return null;
    if (!this.deltaMsg) this.deltaMsg = wsFrameFromString(this.deltaValue, 'latin1', true);
    return this.deltaMsg;
  }

  /** The frame uncompressed, as a whole WebSocket message. */
  plainMessage(): Buffer {
    if (!this.plainMsg) this.plainMsg = wsFrameFromString(this.use(true), 'utf8', false);
    return this.plainMsg;
  }

  /** The frame deflated on its own, as a whole WebSocket message (for a receiver whose window does not end with frameNo - 1). */
  keyframeMessage(): Buffer {
    if (!this.keyframeMsg) {
      this.use(false);
      const out = zlib.deflateRawSync(this.wire, { level: 3, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      this.keyframeMsg = wsFrame(out.subarray(0, out.length - 4), true); // permessage-deflate drops the 00 00 ff ff tail
    }
    return this.keyframeMsg;
  }

  /** The permessage-deflate delta against frame frameNo - 1, or null when there is none. */
  get delta(): Buffer | null {
    const message = this.deltaMessage();
    return message && wsPayload(message);
  }

  /** The WebSocket message bytes (uncompressed). */
  get wire(): Buffer {
    return wsPayload(this.plainMessage());
  }

  /** The frame deflated on its own (the keyframe's payload). */
  keyframe(): Buffer {
    return wsPayload(this.keyframeMessage());
  }

  /** The match_data JSON string, for long-polling clients and REST. */
  text(): string {
    if (this.textValue === null) this.textValue = (JSON.parse(this.use(true).slice(WIRE_PREFIX_LENGTH)) as [string, string])[1];
    return this.textValue;
  }
}
