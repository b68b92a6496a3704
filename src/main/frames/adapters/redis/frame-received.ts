// A frame a watching node rebuilt from the Redis frame bus (frame-watch.ts): its bytes are kept and
// its text (Frame.frameText) is made from them the first time someone reads it. Most recipients on a
// watching node never do: a WebSocket overlay whose window ends with the previous frame gets the
// delta's bytes; only a keyframe (an overlay that logs on mid-match, one that skipped frames), a
// plain or polling overlay and REST need the text. Building a ~16.7 kB string per frame that
// nobody reads was most of the receive path's allocation (and the GC it causes).
//
// The text is the frame's bytes decoded as the owner's text was encoded (UTF-8; a plain latin1 copy
// when every byte is ASCII), so it is identical to the owner's. Read-only from outside, as a Frame
// is: nothing but this class writes its fields.
//
// The bytes live in a buffer the watch reuses: once two newer frames of the match arrived, the
// watch takes the buffer back (`release`) to rebuild the next frame into it. By then the frame is
// no recipient's latest; if its text was never made, it stays null from then on, which a Frame
// allows: such a frame is moot (frames/frame-bus.ts: a newer one has come to every subscriber).
import type { Frame } from '../../frame-bus.js';
import { frameTextOf } from './frame-messages.js';

export class ReceivedFrame implements Frame {
  private text: string | null = null;
  /** The frame text's bytes (UTF-8), the first bytes of `backing`; null once released. */
  private textBytes: Buffer | null;

  constructor(
    readonly groupCode: string,
    readonly frameNo: number,
    readonly epoch: number,
    bytes: Buffer,
    /** The whole buffer `bytes` was written into (its spare room lets the watch reuse it for a larger frame). */
    private backing: Buffer | null,
  ) {
    this.textBytes = bytes;
  }

  /** The frame text's bytes (the base of the next delta), while the watch has not taken them back. */
  get bytes(): Buffer | null {
    return this.textBytes;
  }

  get frameText(): string | null {
    if (this.text === null && this.textBytes !== null) this.text = frameTextOf(this.textBytes);
    return this.text;
  }

  /** Whether the text was made (tests: which recipients needed it). */
  get textMade(): boolean {
    return this.text !== null;
  }

  /** The watch takes the frame's buffer back to write a newer frame into: the bytes go (a text made stays). */
  release(): Buffer | null {
    const backing = this.backing;
    this.backing = null;
    this.textBytes = null;
    return backing;
  }
}
