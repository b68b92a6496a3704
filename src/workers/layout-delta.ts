// The permessage-deflate delta of a frame against the previous frame of its stream, from the two
// frames' layouts (wire-serializer.ts FrameLayout) instead of their bytes.
//
// deflate-delta.ts compares the two frames byte by byte and searches where they agree again after
// each change. The serializer already knows most of that: a segment of the new frame whose text is
// the same string as the previous frame's segment of the same key (a cached subtree left unchanged,
// text between subtrees that came out the same) is a back-reference to where that segment was,
// without looking at a byte. Only a segment whose text differs (a player card that changed in a few
// digits, the top level with serverTime) is compared byte by byte, with its own previous text, by the
// same algorithm as deflate-delta.ts. So the shard keeps no copy of the previous frame's bytes, and
// never encodes the whole frame to UTF-8.
//
// Positions are UTF-8 bytes of the frames: the previous frame occupies [0, m) of the receiver's
// window and the new frame follows it, so a byte at `src` of the previous frame seen again at `pos`
// of the new one is `m - src + pos` back. References beyond the 32 KB window become literals.

import { BitWriter, commonRun, finish, literal, MIN_MATCH, RESYNC_SCAN, resync, run, start, WINDOW } from './deflate-delta.js';
import type { FrameLayout } from './wire-serializer.js';

let scratchOld = Buffer.allocUnsafe(1 << 16);
let scratchNew = Buffer.allocUnsafe(1 << 16);

/** The text's UTF-8 bytes in a reused buffer (valid until the next call for the same side). */
function utf8(text: string, side: 0 | 1): Buffer {
  const need = text.length * 3;
  if (side === 0 && scratchOld.length < need) scratchOld = Buffer.allocUnsafe(need);
  if (side === 1 && scratchNew.length < need) scratchNew = Buffer.allocUnsafe(need);
  const buf = side === 0 ? scratchOld : scratchNew;
  return buf.subarray(0, buf.write(text, 0, 'utf8'));
}

/** The encoder's running state: output, where the new frame is, and a back-reference being extended. */
class Emitter {
  readonly w = new BitWriter(4096);
  pos = 0; // bytes of the new frame encoded (or pending)
  private m = 0;
  private pendSrc = 0;
  private pendLen = 0;
  /** The bytes of a pending reference shorter than deflate's shortest (3): they may become literals. */
  private readonly pendBytes: number[] = [];

  /** A new message after a previous frame of `m` bytes. */
  begin(m: number): void {
    this.m = m;
    this.pos = 0;
    this.pendLen = 0;
    this.pendBytes.length = 0;
    this.w.reset();
    start(this.w);
  }

  /**
   * `len` bytes of the new frame equal the previous frame's at `src`. Their bytes are `buf[off..]`,
   * or the whole of `text` when `buf` is null (needed only if they must go as literals).
   */
  copy(src: number, len: number, buf: Buffer | null, off: number, text: string): void {
    if (len === 0) return;
    if (this.m - src + this.pos > WINDOW) {
      // Too far back for the receiver's window.
      const bytes = buf ?? Buffer.from(text);
      this.literals(bytes, buf ? off : 0, (buf ? off : 0) + len);
      return;
    }
    if (this.pendLen > 0 && src !== this.pendSrc + this.pendLen) this.flush();
    if (this.pendLen === 0) this.pendSrc = src;
    if (this.pendLen + len < 3) {
      const bytes = buf ?? Buffer.from(text);
      const o = buf ? off : 0;
      for (let k = 0; k < len; k++) this.pendBytes.push(bytes[o + k]);
    }
    this.pendLen += len;
    this.pos += len;
  }

  literals(buf: Buffer, from: number, to: number): void {
    if (from >= to) return;
    this.flush();
    for (let k = from; k < to; k++) literal(this.w, buf[k]);
    this.pos += to - from;
  }

  flush(): void {
    const len = this.pendLen;
    if (len === 0) return;
    this.pendLen = 0;
    if (len < 3) {
      for (const b of this.pendBytes) literal(this.w, b);
    } else {
      // pos already counts the pending bytes: the reference starts at pos - len.
      run(this.w, len, this.m - this.pendSrc + this.pos - len);
    }
    this.pendBytes.length = 0;
  }
}

/** One encoder for every delta of the thread (one at a time). */
const emitter = new Emitter();

/**
 * Encodes the frame of `next` as a permessage-deflate message for a receiver whose last inflated
 * message was exactly the frame of `prev` (whose window is the full 32 KB). Null when the previous
 * frame alone exceeds the window (as deflateDelta).
 */
export function layoutDelta(prev: FrameLayout, next: FrameLayout): Uint8Array | null {
  const m = prev.total;
  if (m > WINDOW) return null;
  const e = emitter;
  e.begin(m);
  const prevKeys = prev.keys;
  const n = next.keys.length;
  for (let k = 0; k < n; k++) {
    const key = next.keys[k];
    const text = next.texts[k];
    // The previous segment of the same subtree; text between subtrees pairs by position.
    let pk = -1;
    if (k < prevKeys.length && prevKeys[k] === key) pk = k;
    else if (key !== null) pk = prevKeys.indexOf(key);
    if (pk < 0) {
      const bytes = utf8(text, 1);
      e.literals(bytes, 0, bytes.length);
      continue;
    }
    const oldText = prev.texts[pk];
    if (oldText === text) e.copy(prev.offsets[pk], next.bytes[k], null, 0, text);
    else diff(e, utf8(oldText, 0), prev.offsets[pk], utf8(text, 1));
  }
  e.flush();
  return finish(e.w).slice(); // the writer's buffer is reused by the next delta
}

/** A changed segment: its bytes against its previous bytes (at `base` of the previous frame). */
function diff(e: Emitter, prev: Buffer, base: number, next: Buffer): void {
  const m = prev.length;
  const n = next.length;
  let i = 0;
  let j = 0;
  let litStart = 0;
  while (i < n) {
    const len = commonRun(next, i, prev, j, Math.min(n - i, m - j));
    if (len >= MIN_MATCH) {
      e.literals(next, litStart, i);
      e.copy(base + j, len, next, i, '');
      i += len;
      j += len;
      litStart = i;
      continue;
    }
    const at = resync(prev, j, next, i);
    if (at === null) {
      i = Math.min(n, i + RESYNC_SCAN);
    } else {
      i = at[0];
      j = at[1];
    }
  }
  e.literals(next, litStart, n);
}
