// A snapshot's text deflated, one format for the adapters that keep snapshots compressed: Redis
// stores each snapshot's JSON this way (a snapshot is most of what a node writes to Redis, and JSON
// deflates to a fifth), and the memory store (the local map of every adapter) keeps the text of a
// match that stopped changing this way (docs/perf/memory.md). Level 1: ~35 µs for 14 kB, a few
// µs less than the next levels save in bytes would be worth. The marker byte tells it from plain
// JSON (which starts with `{`), so data written before it existed reads as before.
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** The first byte of packed data. */
const DEFLATED = 0x01;

/**
 * The text deflated behind the marker byte, in a buffer of its own exact size (zlib's result is a
 * view of a 16 kB chunk, and a small `Buffer.allocUnsafe` a slice of a shared 8 kB pool: either
 * would keep far more than the data alive for as long as the snapshot is kept).
 */
export function packText(text: string): Buffer {
  const deflated = deflateRawSync(text, { level: 1 });
  const out = Buffer.allocUnsafeSlow(deflated.length + 1);
  out[0] = DEFLATED;
  deflated.copy(out, 1);
  return out;
}

/** The text of packed data, or of plain UTF-8 text (no marker). */
export function unpackText(data: Buffer): string {
  return data[0] === DEFLATED ? inflateRawSync(data.subarray(1)).toString('utf8') : data.toString('utf8');
}
