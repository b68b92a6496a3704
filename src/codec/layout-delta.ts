// The permessage-deflate delta of a frame against the previous frame of its stream, from the two
// frames' layouts (FrameLayout below: what workers/wire-serializer.ts returns with each frame)
// instead of their bytes.
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
//
// src/codec is a floor of its own: it depends on node built-ins only, and both the shard threads
// (the encoders) and the main thread (the decoder) use it.

import { BitWriter, commonRun, finish, literal, MIN_MATCH, RESYNC_BACK, RESYNC_KEY, RESYNC_SCAN, resync, run, SEARCH_AHEAD, SHIFT_SCAN, start, WINDOW } from './deflate-delta.js';

/**
 * A frame as the serializer made it: its text in segments, each with the key of the cached subtree
 * whose text it is, or null for the text between cached subtrees (the top level and team scalars,
 * which are serialized every frame). Offsets and lengths are in UTF-8 bytes of the frame.
 */
export interface FrameLayout {
  keys: (object | null)[];
  texts: string[];
  offsets: number[];
  bytes: number[];
  total: number;
}

/**
 * How a segment's text differs from the text it was patched from (src/workers/subtree-patch.ts):
 * `edits` lists [oldStart, oldEnd, newStart, newEnd] per replaced stretch, in UTF-16 units, in order.
 */
export interface SegmentEdits {
  prev: string | null;
  edits: number[] | null;
}

/**
 * The edits of the segment of `key` whose text is `text`, if the serializer patched it (else
 * undefined). layoutDelta asks once for every changed segment with a key, whether it uses them or not.
 */
export type EditsOf = (key: object, text: string) => SegmentEdits | undefined;

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
   * The next `len` bytes of the new frame equal the previous frame's at `src`. False when that is
   * out of the receiver's window: the caller sends them as literals. While the reference being
   * extended is shorter than 3 bytes (short()), the caller hands its bytes over (shortByte()).
   */
  copy(src: number, len: number): boolean {
    if (len === 0) return true;
    if (this.m - src + this.pos > WINDOW) return false;
    if (this.pendLen > 0 && src !== this.pendSrc + this.pendLen) this.flush();
    if (this.pendLen === 0) this.pendSrc = src;
    this.pendLen += len;
    this.pos += len;
    return true;
  }

  short(): boolean {
    return this.pendLen < 3;
  }

  shortByte(b: number): void {
    this.pendBytes.push(b);
  }

  literals(buf: Buffer, from: number, to: number): void {
    if (from >= to) return;
    this.flush();
    for (let k = from; k < to; k++) literal(this.w, buf[k]);
    this.pos += to - from;
  }

  /** Literals of ASCII text (one byte per character). */
  asciiLiterals(text: string, from: number, to: number): void {
    if (from >= to) return;
    this.flush();
    for (let k = from; k < to; k++) literal(this.w, text.charCodeAt(k));
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
export function layoutDelta(prev: FrameLayout, next: FrameLayout, editsOf?: EditsOf): Uint8Array | null {
  const m = prev.total;
  if (m > WINDOW) return null;
  const e = emitter;
  e.begin(m);
  const prevKeys = prev.keys;
  const n = next.keys.length;
  for (let k = 0; k < n; k++) {
    const key = next.keys[k];
    const text = next.texts[k];
    const bytes = next.bytes[k];
    // The previous segment of the same subtree; text between subtrees pairs by position.
    let pk = -1;
    if (k < prevKeys.length && prevKeys[k] === key) pk = k;
    else if (key !== null) pk = prevKeys.indexOf(key);
    if (pk < 0) {
      const b = utf8(text, 1);
      e.literals(b, 0, b.length);
      continue;
    }
    const oldText = prev.texts[pk];
    if (oldText === text) {
      if (!e.copy(prev.offsets[pk], bytes)) {
        const b = utf8(text, 1);
        e.literals(b, 0, b.length);
      } else if (e.short()) {
        const b = utf8(text, 1);
        for (let q = 0; q < b.length; q++) e.shortByte(b[q]);
      }
    } else if (bytes === text.length && prev.bytes[pk] === oldText.length) {
      // ASCII both (as many bytes as UTF-16 units): the edits the serializer made from the previous
      // text, when it patched it from this one; else compared as strings, no encoding.
      const ed = key !== null && editsOf !== undefined ? editsOf(key, text) : undefined;
      if (ed !== undefined && ed.prev === oldText && ed.edits !== null) patchAscii(e, ed.edits, prev.offsets[pk], text);
      else diffAscii(e, oldText, prev.offsets[pk], text);
    } else {
      if (key !== null && editsOf !== undefined) editsOf(key, text); // asked for all the same: edits are handed over once
      diff(e, utf8(oldText, 0), prev.offsets[pk], utf8(text, 1));
    }
  }
  e.flush();
  return finish(e.w).slice(); // the writer's buffer is reused by the next delta
}

/**
 * Encodes `next` as a permessage-deflate message for a receiver whose last inflated message was
 * exactly `prev` (and whose window is the full 32 KB), comparing the whole frames byte by byte:
 * the frame as one changed segment. Bytes of `prev` farther back than the window allows are sent as
 * literals. Null when `prev` alone exceeds the window. (Tools, tests and benchmarks; the shard
 * encodes from layouts.)
 */
export function deflateDelta(prev: Buffer, next: Buffer): Uint8Array | null {
  if (prev.length > WINDOW) return null;
  const e = emitter;
  e.begin(prev.length);
  diff(e, prev, 0, next);
  e.flush();
  return finish(e.w).slice();
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
      if (!e.copy(base + j, len)) e.literals(next, i, i + len);
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

/**
 * diff() for ASCII text: the same algorithm on the strings' characters (= bytes), and the same
 * output. A twin kept on purpose: folding it into diff() (the strings written to bytes first, then
 * the byte loop) gives the same deltas but cost 0.3–0.9 µs more per frame (3–9 % of this encoder)
 * in an interleaved A/B over the recorded match (docs/perf/layout-delta-twins.md).
 */
function diffAscii(e: Emitter, prev: string, base: number, next: string): void {
  const m = prev.length;
  const n = next.length;
  let i = 0;
  let j = 0;
  let litStart = 0;
  while (i < n) {
    const max = Math.min(n - i, m - j);
    let len = 0;
    while (len < max && len < 16 && next.charCodeAt(i + len) === prev.charCodeAt(j + len)) len++;
    if (len === 16) {
      // A long run: slices of 256, then 32 characters compare natively, the rest character by character.
      while (len + 256 <= max && next.slice(i + len, i + len + 256) === prev.slice(j + len, j + len + 256)) len += 256;
      while (len + 32 <= max && next.slice(i + len, i + len + 32) === prev.slice(j + len, j + len + 32)) len += 32;
      while (len < max && next.charCodeAt(i + len) === prev.charCodeAt(j + len)) len++;
    }
    if (len >= MIN_MATCH) {
      e.asciiLiterals(next, litStart, i);
      if (!e.copy(base + j, len)) e.asciiLiterals(next, i, i + len);
      i += len;
      j += len;
      litStart = i;
      continue;
    }
    if (resyncAscii(prev, j, next, i)) {
      i = found[0];
      j = found[1];
    } else {
      i = Math.min(n, i + RESYNC_SCAN);
    }
  }
  e.asciiLiterals(next, litStart, n);
}

/**
 * A changed segment from its edits: each stretch between them is a back-reference to where it was
 * in the previous text (at `base` of the previous frame), each replaced stretch literals. No byte is
 * compared. ASCII texts (UTF-16 units are bytes).
 */
function patchAscii(e: Emitter, edits: number[], base: number, next: string): void {
  let old = 0;
  let at = 0;
  for (let q = 0; q < edits.length; q += 4) {
    copyAscii(e, base + old, next, at, edits[q + 2]);
    e.asciiLiterals(next, edits[q + 2], edits[q + 3]);
    old = edits[q + 1];
    at = edits[q + 3];
  }
  copyAscii(e, base + old, next, at, next.length);
}

/** next[from, to) equals the previous frame's bytes at `src`: a back-reference (literals out of the window). */
function copyAscii(e: Emitter, src: number, next: string, from: number, to: number): void {
  if (from >= to) return;
  if (!e.copy(src, to - from)) e.asciiLiterals(next, from, to);
  else if (e.short()) for (let q = from; q < to; q++) e.shortByte(next.charCodeAt(q));
}

const found = [0, 0];

function agreeAt(next: string, i: number, prev: string, j: number): boolean {
  for (let q = 0; q < RESYNC_KEY; q++) if (next.charCodeAt(i + q) !== prev.charCodeAt(j + q)) return false;
  return true;
}

/** resync() (deflate-delta.ts) on strings: the position pair goes to `found`. */
function resyncAscii(prev: string, j: number, next: string, i: number): boolean {
  const m = prev.length;
  const n = next.length;
  for (let k = 1; k <= RESYNC_SCAN && i + k + RESYNC_KEY <= n; k++) {
    for (let d = -4; d <= 4; d++) {
      const jj = j + k + d;
      if (jj < 0 || jj + RESYNC_KEY > m) continue;
      if (agreeAt(next, i + k, prev, jj)) return set(i + k, jj);
    }
  }
  for (let k = RESYNC_SCAN + 1; k <= SHIFT_SCAN; k++) {
    if (i + k + RESYNC_KEY <= n && agreeAt(next, i + k, prev, j)) return set(i + k, j);
    if (j + k + RESYNC_KEY <= m && agreeAt(next, i, prev, j + k)) return set(i, j + k);
  }
  const lo = Math.max(0, j - RESYNC_BACK);
  const hi = Math.min(m, j + SEARCH_AHEAD);
  for (let k = 1; k <= RESYNC_SCAN && i + k + RESYNC_KEY <= n; k += 4) {
    const at = prev.indexOf(next.slice(i + k, i + k + RESYNC_KEY), lo);
    if (at >= 0 && at + RESYNC_KEY <= hi) return set(i + k, at);
  }
  if (i + 1 + RESYNC_KEY <= n) {
    const at = prev.indexOf(next.slice(i + 1, i + 1 + RESYNC_KEY));
    if (at >= 0) return set(i + 1, at);
  }
  return false;
}

function set(i: number, j: number): boolean {
  found[0] = i;
  found[1] = j;
  return true;
}
