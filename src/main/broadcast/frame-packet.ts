// One published match_data frame (a FrameBus Frame and its delta) in the forms the broadcast
// listener's recipients need, each made at most once: the delta message (the shard's delta), and,
// lazily, a self-contained deflated keyframe, the uncompressed message and the match_data JSON
// string. The listener makes one packet per frame it receives (every overlay of the match gets the
// same one) and keeps the latest for overlays that log on mid-match. The packet is the listener's
// own: the Frame it was made from is a value and stays as published.
//
// The listener writes whole WebSocket messages (ws-frame.ts): each form is kept as the message's
// bytes, header included, so every recipient of a frame gets the same Buffer.
//
// A frame from a local shard may come without its text (only its delta). A recipient that needs it
// (a keyframe, a plain or polling overlay) checks `hasFrameText`, asks (`askFrameText`: the bus may
// have it at once), and otherwise gets it as a FrameText message on the bus (`receiveFrameText`).
import zlib from 'node:zlib';
import { matchDataJson } from '../../protocol/wire.js';
import type { Frame, FrameBus, FrameText } from '../frames/index.js';
import { wsFrame, wsFrameFromString, wsPayload } from './ws-frame.js';

/** What a packet asks of the bus about its frame's text. */
export type FrameTextAccess = Pick<FrameBus, 'askFrameText' | 'frameTextUsed'>;

export class FramePacket {
  private used = false;
  private keyframeMsg: Buffer | null = null;
  private plainMsg: Buffer | null = null;
  private deltaMsg: Buffer | null = null;
  private json: string | null = null;
  /** The frame text: the frame's own, or the one asked for and received. */
  private frameText: string | null;

  /** `delta`: the publication's, for the deliveries of the publish (null for a frame read back as the latest). */
  constructor(readonly frame: Frame, private delta: string | null, private readonly bus: FrameTextAccess) {
    this.frameText = frame.frameText;
  }

  get groupCode(): string {
    return this.frame.groupCode;
  }

  get frameNo(): number {
    return this.frame.frameNo;
  }

  /** Whether the frame text is here (else `askFrameText`, then `receiveFrameText`). */
  get hasFrameText(): boolean {
    return this.frameText !== null;
  }

  /** Asks the bus for the frame text; true when it is here now (else it comes as a FrameText message). */
  askFrameText(): boolean {
    if (this.frameText === null) this.frameText = this.bus.askFrameText(this.frame);
    return this.frameText !== null;
  }

  /** A FrameText message of the packet's match: kept when it is this frame's; true then. */
  receiveFrameText(text: FrameText): boolean {
    if (text.frameNo !== this.frame.frameNo || text.groupCode !== this.frame.groupCode) return false;
    this.frameText ??= text.frameText;
    return true;
  }

  private use(continuous: boolean): string {
    const text = this.frameText;
    if (text === null) throw new Error(`frame ${this.frame.groupCode}#${this.frame.frameNo}: text not received`);
    if (!this.used) {
      this.used = true;
      this.bus.frameTextUsed(this.frame, continuous);
    }
    return text;
  }

  /** The delta as a whole WebSocket message (RSV1: permessage-deflate data), or null when there is none (or no more). */
  deltaMessage(): Buffer | null {
    const delta = this.delta;
    if (delta === null) return null;
    if (!this.deltaMsg) this.deltaMsg = wsFrameFromString(delta, 'latin1', true);
    return this.deltaMsg;
  }

  /**
   * The deliveries of the frame's publish are done: the delta goes (a packet kept as the latest
   * would otherwise hold a delta as large as the frame: the lobby's first frames). A later delivery
   * (a slow overlay that drained) gets the keyframe.
   */
  published(): void {
    this.deltaMsg = null;
    this.delta = null;
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
      const out = zlib.deflateRawSync(this.frameTextBytes, { level: 3, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      this.keyframeMsg = wsFrame(out.subarray(0, out.length - 4), true); // permessage-deflate drops the 00 00 ff ff tail
    }
    return this.keyframeMsg;
  }

  /** The frame text's bytes (the uncompressed WebSocket message). */
  private get frameTextBytes(): Buffer {
    return wsPayload(this.plainMessage());
  }

  /** The match_data JSON string, for long-polling clients. */
  matchDataJson(): string {
    if (this.json === null) this.json = matchDataJson(this.use(true));
    return this.json;
  }
}
