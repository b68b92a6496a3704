// A frame a watching node rebuilt from the Redis frame bus (frame-watch.ts): its bytes are kept and
// its text (Frame.wireText) is made from them the first time someone reads it. Most recipients on a
// watching node never do: a WebSocket frontend whose window ends with the previous frame gets the
// delta's bytes; only a keyframe (a frontend that logs on mid-match, one that skipped frames), a
// plain or polling frontend and REST need the text. Building a ~16.7 kB string per frame that
// nobody reads was most of the receive path's allocation (and the GC it causes).
//
// The text is the frame's bytes decoded as the owner's text was encoded (UTF-8; a plain latin1 copy
// when every byte is ASCII), so it is identical to the owner's.
//
// The bytes live in a buffer the watch reuses: once two newer frames of the match arrived, the
// watch takes the buffer back (`release`) to rebuild the next frame into it. By then the frame is
// no recipient's latest; if its text was never made, it stays null from then on, which a Frame
// allows: a recipient that still asks is told the frame is moot (ports/frame-bus.ts,
// FrameTextSource.whenText) and gets a newer one.
import type { Frame } from '../../ports/frame-bus.js';
import { wireString } from './frame-messages.js';

export class ReceivedFrame implements Frame {
  private text: string | null = null;
  /** The frame's wire bytes (UTF-8), the first bytes of `backing`; null once released. */
  private bytes: Buffer | null;

  constructor(
    readonly groupCode: string,
    readonly frameNo: number,
    readonly epoch: number,
    wire: Buffer,
    /** The whole buffer `wire` was written into (its spare room lets the watch reuse it for a larger frame). */
    private backing: Buffer | null,
    public deltaText: string | null,
  ) {
    this.bytes = wire;
  }

  /** The frame's bytes (the base of the next delta), while the watch has not taken them back. */
  get wire(): Buffer | null {
    return this.bytes;
  }

  get wireText(): string | null {
    if (this.text === null && this.bytes !== null) this.text = wireString(this.bytes);
    return this.text;
  }

  /** (Frame's field is writable: a text set from elsewhere is the same text.) */
  set wireText(text: string | null) {
    if (text !== null) this.text = text;
  }

  /** Whether the text was made (tests: which recipients needed it). */
  get textMade(): boolean {
    return this.text !== null;
  }

  /** The watch takes the frame's buffer back to write a newer frame into: the bytes go (a text made stays). */
  release(): Buffer | null {
    const backing = this.backing;
    this.backing = null;
    this.bytes = null;
    return backing;
  }
}
