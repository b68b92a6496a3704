// A frame a watching node rebuilt from the Redis frame bus (frame-watch.ts): its bytes are kept and
// its text (Frame.wireText) is made from them the first time someone reads it. Most recipients on a
// watching node never do: a WebSocket frontend whose window ends with the previous frame gets the
// delta's bytes; only a keyframe (a frontend that logs on mid-match, one that skipped frames), a
// plain or polling frontend and REST need the text. Building a ~16.7 kB string per frame that
// nobody reads was most of the receive path's allocation (and the GC it causes).
//
// The text is the frame's bytes decoded as the owner's text was encoded (UTF-8; a plain latin1 copy
// when every byte is ASCII), so it is identical to the owner's. A Frame whose `wireText` is an
// accessor: never null, so no recipient asks the FrameTextSource for it.
import type { Frame } from '../../ports/frame-bus.js';
import { wireString } from './frame-messages.js';

export class ReceivedFrame implements Frame {
  private text: string | null = null;

  constructor(
    readonly groupCode: string,
    readonly frameNo: number,
    readonly epoch: number,
    /** The frame's wire bytes (UTF-8): the base of the next delta; never written to. */
    readonly wire: Buffer,
    public deltaText: string | null,
  ) {}

  get wireText(): string {
    return (this.text ??= wireString(this.wire));
  }

  /** (Frame's field is writable: a text set from elsewhere is the same text.) */
  set wireText(text: string | null) {
    if (text !== null) this.text = text;
  }

  /** Whether the text was made (tests and the benchmark: how often a recipient needed it). */
  get textMade(): boolean {
    return this.text !== null;
  }
}
