// permessage-deflate frames encoded against the previous frame of the same stream.
//
// Consecutive match_data frames are ~15 KB and differ in a few values. With context takeover, a
// permessage-deflate receiver keeps the last 32 KB it inflated as its window, so a frame can be
// sent as "the previous frame, except these bytes": runs of the previous frame become LZ77
// back-references and only changed bytes are literals. This costs a byte comparison instead of a
// deflate search (zlib level 1 with context ≈ 90 µs per frame, docs/stack-notes.md 3) and is encoded once per
// frame for every recipient that received the previous frame. Fixed Huffman codes keep the
// encoder small; the output is a few hundred bytes.
//
// Output format: one or more non-final deflate blocks ending in an empty stored-block header, as
// a permessage-deflate sender produces after a sync flush with the trailing 00 00 ff ff removed.
//
// This module holds the encoder's parts (fixed codes, bit writer, runs, the byte comparison and the
// resync search); layout-delta.ts assembles them into deltas: from two frames' layouts (the shard),
// or of two whole frames (deflateDelta: tools, tests, benchmarks). inflate-delta.ts decodes them.
//
// src/codec is a floor of its own: it depends on node built-ins only, and both the shard threads
// (the encoders) and the main thread (the decoder) use it.

import { fixedLiteralCode, reverseBits } from './fixed-huffman.js';

export const WINDOW = 32_768;
export const MIN_MATCH = 4; // a 3-byte match costs about as much as 3 literals with fixed codes
const MAX_MATCH = 258;
export const RESYNC_SCAN = 16; // bytes of the new frame tried as a resync point after a change
export const RESYNC_KEY = 12; // bytes that must agree to resync
export const SHIFT_SCAN = 160; // longest insertion or deletion tried before searching
export const SEARCH_AHEAD = 2048; // how far after the expected position a search looks
export const RESYNC_BACK = 96; // how far before the expected position a resync search starts

// Fixed Huffman codes (RFC 1951 3.2.6), stored bit-reversed for LSB-first packing.
const LIT_CODE = new Uint16Array(288);
const LIT_LEN = new Uint8Array(288);
for (let v = 0; v < 288; v++) {
  const { code, len } = fixedLiteralCode(v);
  LIT_CODE[v] = reverseBits(code, len);
  LIT_LEN[v] = len;
}
const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const LEN_SYM = new Uint8Array(MAX_MATCH + 1); // length → index into LEN_BASE
for (let c = 0; c < LEN_BASE.length; c++) {
  const end = c + 1 < LEN_BASE.length ? LEN_BASE[c + 1] : MAX_MATCH + 1;
  for (let l = LEN_BASE[c]; l < end && l <= MAX_MATCH; l++) LEN_SYM[l] = c;
}
LEN_SYM[MAX_MATCH] = 28;
const DIST_CODE_REV = DIST_BASE.map((_, c) => reverseBits(c, 5));
function distSym(d: number): number {
  let lo = 0, hi = DIST_BASE.length - 1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (DIST_BASE[mid] <= d) lo = mid; else hi = mid - 1; }
  return lo;
}

export class BitWriter {
  buf: Uint8Array;
  pos = 0;
  private bits = 0;
  private count = 0;
  constructor(capacity: number) { this.buf = new Uint8Array(capacity); }
  /** Empty again, keeping the buffer (an encoder reused from frame to frame). */
  reset(): void {
    this.pos = 0;
    this.bits = 0;
    this.count = 0;
  }
  write(value: number, len: number): void {
    this.bits |= value << this.count;
    this.count += len;
    while (this.count >= 8) {
      if (this.pos >= this.buf.length) this.grow();
      this.buf[this.pos++] = this.bits & 0xff;
      this.bits >>>= 8;
      this.count -= 8;
    }
  }
  align(): void {
    if (this.count > 0) this.write(0, 8 - this.count);
  }
  private grow(): void {
    const next = new Uint8Array(this.buf.length * 2);
    next.set(this.buf);
    this.buf = next;
  }
}

export function literal(w: BitWriter, byte: number): void {
  w.write(LIT_CODE[byte], LIT_LEN[byte]);
}

function match(w: BitWriter, length: number, distance: number): void {
  const ls = LEN_SYM[length];
  const sym = 257 + ls;
  w.write(LIT_CODE[sym], LIT_LEN[sym]);
  if (LEN_EXTRA[ls]) w.write(length - LEN_BASE[ls], LEN_EXTRA[ls]);
  const ds = distSym(distance);
  w.write(DIST_CODE_REV[ds], 5);
  if (DIST_EXTRA[ds]) w.write(distance - DIST_BASE[ds], DIST_EXTRA[ds]);
}

/** A run of `length` bytes at `distance`, split into codes of 3..258 bytes. */
export function run(w: BitWriter, length: number, distance: number): void {
  while (length > 0) {
    let take = length > MAX_MATCH ? MAX_MATCH : length;
    if (length - take > 0 && length - take < 3) take = length - 3; // leave at least 3 for the last code
    match(w, take, distance);
    length -= take;
  }
}

/** The first block's header: BFINAL=0, then BTYPE=01 (fixed Huffman), least significant bit first. */
export function start(w: BitWriter): void {
  w.write(0b010, 3);
}

/** Ends the block and the message as a permessage-deflate sender does after a sync flush. */
export function finish(w: BitWriter): Uint8Array {
  w.write(LIT_CODE[256], LIT_LEN[256]); // end of block
  w.write(0, 3); // empty stored block header (BFINAL=0, BTYPE=00); its LEN/NLEN is the stripped 00 00 ff ff
  w.align();
  return w.buf.subarray(0, w.pos);
}

/**
 * Length of the run of equal bytes at next[i] and prev[j], at most `max`: native compares of
 * 4 KiB chunks, then quartering inside the chunk that differs (JS byte loops cost 3–7 ns a byte).
 */
export function commonRun(next: Buffer, i: number, prev: Buffer, j: number, max: number): number {
  let len = 0;
  // Short runs (right after a change) are cheaper to settle in JS than with a native call.
  const head = Math.min(max, 16);
  while (len < head && next[i + len] === prev[j + len]) len++;
  if (len < head) return len;
  let step = 4096;
  while (len < max) {
    const size = Math.min(step, max - len);
    if (size <= 64) {
      while (len < max && next[i + len] === prev[j + len]) len++;
      return len;
    }
    if (next.compare(prev, j + len, j + len + size, i + len, i + len + size) === 0) len += size;
    else step = size >> 2;
  }
  return len;
}

function equalAt(next: Buffer, i: number, prev: Buffer, j: number): boolean {
  if (next[i] !== prev[j]) return false;
  for (let q = 1; q < RESYNC_KEY; q++) if (next[i + q] !== prev[j + q]) return false;
  return true;
}

/**
 * The next positions (i', j') with i' ≥ i where RESYNC_KEY bytes of next agree with prev near j,
 * using the native Buffer search; null when there is none within reach.
 */
export function resync(prev: Buffer, j: number, next: Buffer, i: number): [number, number] | null {
  const m = prev.length;
  const n = next.length;
  // Most changes are a value replaced by one a few bytes longer or shorter: try those alignments
  // first with a few JS byte compares.
  for (let k = 1; k <= RESYNC_SCAN && i + k + RESYNC_KEY <= n; k++) {
    for (let d = -4; d <= 4; d++) {
      const jj = j + k + d;
      if (jj < 0 || jj + RESYNC_KEY > m) continue;
      let q = 0;
      while (q < RESYNC_KEY && next[i + k + q] === prev[jj + q]) q++;
      if (q === RESYNC_KEY) return [i + k, jj];
    }
  }
  // Inserted or deleted text (a name added to a list, a longer string): the frames agree again
  // at next[i + k] = prev[j] or at next[i] = prev[j + k].
  for (let k = RESYNC_SCAN + 1; k <= SHIFT_SCAN; k++) {
    if (i + k + RESYNC_KEY <= n && equalAt(next, i + k, prev, j)) return [i + k, j];
    if (j + k + RESYNC_KEY <= m && equalAt(next, i, prev, j + k)) return [i, j + k];
  }
  // Farther: native searches in a window around the expected position, then one anywhere (content
  // that moved: a list that shrank, a reordering). Unbounded searches for keys that are new text
  // would scan the whole frame each time.
  const lo = Math.max(0, j - RESYNC_BACK);
  const window = prev.subarray(lo, Math.min(m, j + SEARCH_AHEAD));
  for (let k = 1; k <= RESYNC_SCAN && i + k + RESYNC_KEY <= n; k += 4) {
    const at = window.indexOf(next.subarray(i + k, i + k + RESYNC_KEY));
    if (at >= 0) return [i + k, lo + at];
  }
  if (i + 1 + RESYNC_KEY <= n) {
    const at = prev.indexOf(next.subarray(i + 1, i + 1 + RESYNC_KEY));
    if (at >= 0) return [i + 1, at];
  }
  return null;
}
