// One published match_data frame (a FrameBus Frame) in the forms the broadcast listener's
// recipients need, each made at most once: the delta message (the shard's delta), and, lazily, a
// self-contained deflated keyframe, the uncompressed message and the plain JSON string. The
// listener makes one packet per frame it receives (every frontend of the match gets the same one)
// and keeps the latest for frontends that log on mid-match.
//
// The listener writes whole WebSocket messages (ws-frame.ts): each form is kept as the message's
// bytes, header included, so every recipient of a frame gets the same Buffer.
//
// A frame from a local shard may come without its text (only its delta). A recipient that needs it
// (a keyframe, a plain or polling frontend) checks `hasText` and otherwise waits with `whenText`:
// the FrameTextSource asks the shard for it (matches/frame-texts.ts).
import zlib from 'node:zlib';
import { matchDataJson } from '../../protocol/wire.js';
import type { Frame, FrameTextSource } from '../ports/frame-bus.js';
import { wsFrame, wsFrameFromString, wsPayload } from './ws-frame.js';

export class FramePacket {
  private used = false;
  private keyframeMsg: Buffer | null = null;
  private plainMsg: Buffer | null = null;
  private deltaMsg: Buffer | null = null;
  private textValue: string | null = null;

  constructor(readonly frame: Frame, private readonly texts: FrameTextSource) {}

  get groupCode(): string {
    return this.frame.groupCode;
  }

  get frameNo(): number {
    return this.frame.frameNo;
  }

  /** Whether the text is here (else `whenText`). */
  get hasText(): boolean {
    return this.frame.wireText !== null;
  }

  /** Calls `cb` once the text is here, or once a newer frame made this one moot (then `hasText` is still false). */
  whenText(cb: () => void): void {
    this.texts.whenText(this.frame, cb);
  }

  private use(continuous: boolean): string {
    const text = this.frame.wireText;
    if (text === null) throw new Error(`frame ${this.frame.groupCode}#${this.frame.frameNo}: text not fetched`);
    if (!this.used) {
      this.used = true;
      this.texts.used(this.frame, continuous);
    }
    return text;
  }

  /**
   * The delta as a whole WebSocket message (RSV1: permessage-deflate data), or null when there is
   * none (or the publisher dropped it: Frame.deltaText).
   */
  deltaMessage(): Buffer | null {
    const delta = this.frame.deltaText;
    if (delta === null) return (this.deltaMsg = null);
    if (!this.deltaMsg) this.deltaMsg = wsFrameFromString(delta, 'latin1', true);
    return this.deltaMsg;
  }

  /**
   * The deliveries of the frame's publish are done: the delta message is let go (a packet kept as
   * the latest would otherwise hold a delta as large as the frame: the lobby's first frames). A
   * later delivery of the delta (a slow frontend that drained) builds it again while the frame has it.
   */
  published(): void {
    this.deltaMsg = null;
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

  /** The WebSocket message bytes (uncompressed). */
  private get wire(): Buffer {
    return wsPayload(this.plainMessage());
  }

  /** The match_data JSON string, for long-polling clients. */
  text(): string {
    if (this.textValue === null) this.textValue = matchDataJson(this.use(true));
    return this.textValue;
  }
}
