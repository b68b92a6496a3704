// The fixed Huffman codes of deflate (RFC 1951 3.2.6), shared by the frame delta's encoder (the
// shard: deflate-delta.ts) and its decoder (a node rebuilding frames from another node's deltas:
// inflate-delta.ts). The delta format is what crosses from the shards.
//
// src/codec is a floor of its own: it depends on node built-ins only, and both the shard threads
// (the encoders) and the main thread (the decoder) use it.

/** `code`'s low `len` bits in reverse order (deflate packs Huffman codes LSB first). */
export function reverseBits(code: number, len: number): number {
  let r = 0;
  for (let i = 0; i < len; i++) { r = (r << 1) | (code & 1); code >>= 1; }
  return r;
}

/** The fixed literal/length code of symbol `v` (0–287): its code (MSB first) and length in bits. */
export function fixedLiteralCode(v: number): { code: number; len: number } {
  if (v < 144) return { code: 0x30 + v, len: 8 };
  if (v < 256) return { code: 0x190 + (v - 144), len: 9 };
  if (v < 280) return { code: v - 256, len: 7 };
  return { code: 0xc0 + (v - 280), len: 8 };
}
