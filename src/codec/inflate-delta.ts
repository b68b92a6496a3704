// The decoder of the frame deltas (deflate-delta.ts, layout-delta.ts): a frame rebuilt from its
// delta and the frame before it, as a permessage-deflate receiver with context takeover would. Used
// by a node rebuilding the frames another node publishes (main/frames/adapters/redis/frame-watch.ts).
//
// src/codec is a floor of its own: it depends on node built-ins only (Buffer, zlib), and both the
// shard threads (the encoders) and the main thread (the decoder) use it.
//
// zlib.inflateRawSync(delta + 00 00 ff ff, { dictionary: base }) gives the same bytes but costs
// ~90 µs a frame (a zlib stream made and torn down per call); the shard's deltas are fixed-Huffman
// blocks whose back-references point into the previous frame, which this decodes in a few µs with
// native copies of the referenced runs. Other block types (dynamic Huffman: a delta from some other
// encoder) go to zlib.
import zlib from 'node:zlib';
import { fixedLiteralCode, reverseBits } from './fixed-huffman.js';

const INFLATE_TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff]);
const WINDOW = 32_768;
/** Largest frame rebuilt (a bound on what a malformed delta can make us allocate). */
const MAX_OUTPUT = 16 * 1024 * 1024;

/** Fixed literal/length codes by their next 9 input bits (LSB first): symbol << 4 | code length. */
const FIXED_LIT = new Uint16Array(512);
for (let v = 0; v < 288; v++) {
  const { code, len } = fixedLiteralCode(v);
  for (let k = reverseBits(code, len); k < 512; k += 1 << len) FIXED_LIT[k] = (v << 4) | len;
}
const FIXED_DIST = new Uint8Array(32);
for (let c = 0; c < 32; c++) FIXED_DIST[reverseBits(c, 5)] = c;
const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

class Unsupported extends Error {}

/**
 * The message a permessage-deflate receiver whose last inflated message was `base` gets from
 * `delta` (one or more non-final deflate blocks, the 00 00 ff ff tail stripped). Throws when the
 * delta is malformed (then `into` was not written to).
 *
 * `into`: where to write the message when it fits (the result is then its first bytes; it must not
 * share memory with `base`), so that a receiver can reuse a spare buffer rather than allocate one
 * per frame; otherwise, and on zlib's path, a new Buffer.
 */
export function inflateDelta(base: Buffer, delta: Buffer, into?: Buffer): Buffer {
  const dict = base.length > WINDOW ? base.subarray(base.length - WINDOW) : base;
  try {
    return inflateFixed(dict, delta, into);
  } catch (err) {
    if (!(err instanceof Unsupported)) throw err;
    return inflateDeltaZlib(dict, delta);
  }
}

/** The same with zlib (any block type). */
export function inflateDeltaZlib(base: Buffer, delta: Buffer): Buffer {
  const dict = base.length > WINDOW ? base.subarray(base.length - WINDOW) : base;
  return zlib.inflateRawSync(Buffer.concat([delta, INFLATE_TAIL]), { dictionary: dict, finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: MAX_OUTPUT });
}

// The decode pass records what to copy (ops) and the literal bytes; the output, allocated at its
// exact size, is then written with native copies.
const OP_DICT = 0; // a, len: bytes dict[a..a+len)
const OP_LITERALS = 1; // a, len: bytes literals[a..a+len)
const OP_SELF = 2; // a, len: bytes out[a..] (may overlap the destination: byte by byte)
const OP_STORED = 3; // a, len: bytes input[a..a+len)
let ops = new Int32Array(3 * 256);
let literals = new Uint8Array(4096);

function inflateFixed(dict: Buffer, input: Buffer, into: Buffer | undefined): Buffer {
  const dictLen = dict.length;
  const inLen = input.length;
  let nOps = 0; // ints used in ops
  let nLit = 0;
  let op = 0; // output length so far
  let ip = 0; // next input byte
  let bits = 0; // bit buffer, LSB first
  let count = 0; // bits in the buffer
  let padded = 0; // zero bits added past the end of the input

  const need = (n: number) => {
    while (count < n) {
      if (ip < inLen) bits |= input[ip++] << count;
      else padded += 8;
      count += 8;
    }
  };
  const add = (kind: number, a: number, len: number) => {
    if (len === 0) return;
    if (nOps > 0 && ops[nOps - 3] === kind && kind !== OP_SELF && ops[nOps - 2] + ops[nOps - 1] === a) {
      ops[nOps - 1] += len; // continues the previous copy (a run split into ≤ 258-byte codes)
    } else {
      if (nOps + 3 > ops.length) { const bigger = new Int32Array(ops.length * 2); bigger.set(ops); ops = bigger; }
      ops[nOps++] = kind;
      ops[nOps++] = a;
      ops[nOps++] = len;
    }
    op += len;
    if (op > MAX_OUTPUT) throw new Error('frame delta: output too large');
  };

  for (;;) {
    // Only padding left: the end of the message.
    if (ip >= inLen && count - padded < 3) break;
    need(3);
    const btype = (bits >>> 1) & 3;
    const final = bits & 1;
    bits >>>= 3;
    count -= 3;
    if (btype === 1) {
      for (;;) {
        need(9);
        const entry = FIXED_LIT[bits & 511];
        const len = entry & 15;
        bits >>>= len;
        count -= len;
        const sym = entry >> 4;
        if (sym < 256) {
          if (nLit === literals.length) { const bigger = new Uint8Array(literals.length * 2); bigger.set(literals); literals = bigger; }
          literals[nLit] = sym;
          add(OP_LITERALS, nLit++, 1);
          continue;
        }
        if (sym === 256) break;
        const li = sym - 257;
        if (li > 28) throw new Error('frame delta: bad length code');
        let length = LEN_BASE[li];
        if (LEN_EXTRA[li]) { need(LEN_EXTRA[li]); length += bits & ((1 << LEN_EXTRA[li]) - 1); bits >>>= LEN_EXTRA[li]; count -= LEN_EXTRA[li]; }
        need(5);
        const di = FIXED_DIST[bits & 31];
        bits >>>= 5;
        count -= 5;
        if (di > 29) throw new Error('frame delta: bad distance code');
        let distance = DIST_BASE[di];
        if (DIST_EXTRA[di]) { need(DIST_EXTRA[di]); distance += bits & ((1 << DIST_EXTRA[di]) - 1); bits >>>= DIST_EXTRA[di]; count -= DIST_EXTRA[di]; }
        if (distance > op + dictLen) throw new Error('frame delta: distance too far back');
        if (distance > op) {
          // Starts in the previous frame.
          const inDict = Math.min(length, distance - op);
          add(OP_DICT, dictLen - (distance - op), inDict);
          if (length > inDict) add(OP_SELF, 0, length - inDict); // then continues from the output's start
        } else {
          add(OP_SELF, op - distance, length);
        }
      }
    } else if (btype === 0) {
      const drop = count & 7; // to the byte boundary
      bits >>>= drop;
      count -= drop;
      if (padded > count) throw new Error('frame delta: truncated');
      // What is left of the input, from the byte boundary.
      const at = ip - ((count - padded) >> 3);
      if (inLen - at < 4) break; // the stripped 00 00 ff ff of the sync flush: the end
      const len = input[at] | (input[at + 1] << 8);
      const nlen = input[at + 2] | (input[at + 3] << 8);
      if ((len ^ 0xffff) !== nlen) throw new Error('frame delta: bad stored block');
      if (at + 4 + len > inLen) throw new Error('frame delta: truncated stored block');
      add(OP_STORED, at + 4, len);
      ip = at + 4 + len;
      bits = 0;
      count = 0;
      padded = 0;
    } else {
      throw new Unsupported(btype === 2 ? 'dynamic Huffman block' : 'reserved block type');
    }
    if (padded > count) throw new Error('frame delta: truncated');
    if (final) break;
  }
  if (padded > count) throw new Error('frame delta: truncated');

  const out = into !== undefined && into.length >= op ? into.subarray(0, op) : Buffer.allocUnsafe(op);
  let at = 0;
  for (let k = 0; k < nOps; k += 3) {
    const kind = ops[k];
    const a = ops[k + 1];
    const len = ops[k + 2];
    if (kind === OP_DICT) {
      dict.copy(out, at, a, a + len);
    } else if (kind === OP_LITERALS) {
      if (len === 1) out[at] = literals[a];
      else out.set(literals.subarray(a, a + len), at);
    } else if (kind === OP_STORED) {
      input.copy(out, at, a, a + len);
    } else if (at - a >= len) {
      out.copy(out, at, a, a + len);
    } else {
      for (let q = 0; q < len; q++) out[at + q] = out[a + q];
    }
    at += len;
  }
  return out;
}
