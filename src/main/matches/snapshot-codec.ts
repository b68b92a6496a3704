// A snapshot's text deflated, one format for the adapters that keep snapshots compressed: Redis
// stores each snapshot's JSON this way (a snapshot is most of what a node writes to Redis, and JSON
// deflates to a fifth), and the memory store (the local map of every adapter) keeps the text of a
// match that stopped changing this way (docs/perf/memory.md). Level 1: ~25 µs for 14 kB. The
// marker byte tells it from plain JSON (which starts with `{`), so data written before it existed
// reads as before.
//
// Few temporaries per call, for the memory store packs a thousand snapshots in one go: the text
// goes through one reused buffer (not a new 14 kB Buffer each), and zlib writes 1 kB chunks (from
// the Buffer pool) instead of a fresh 16 kB one. Each of those is malloc'd memory freed only by
// the next GC, and a thousand at once grew the main thread's malloc heap by ~18 MB that it kept
// (measured: 1,000 packs of 14 kB, 18 → 4 MB).
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** The first byte of packed data. */
const DEFLATED = Buffer.from([0x01]);
/** Texts up to this many bytes go through `scratch`; longer ones (none in practice) are converted per call. */
const SCRATCH_BYTES = 256 * 1024;
let scratch: Buffer | undefined;

function deflated(text: string): Buffer {
  const options = { level: 1, chunkSize: 1024 };
  if (text.length * 3 > SCRATCH_BYTES) return deflateRawSync(text, options);
  scratch ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  const n = scratch.write(text, 'utf8');
  return deflateRawSync(scratch.subarray(0, n), options);
}

/** The text deflated behind the marker byte (a buffer to send or copy now: it may be a slice of the pool). */
export function packText(text: string): Buffer {
  return Buffer.concat([DEFLATED, deflated(text)]);
}

/** The text of packed data, or of plain UTF-8 text (no marker). */
export function unpackText(data: Buffer): string {
  return data[0] === DEFLATED[0] ? inflateRawSync(data.subarray(1)).toString('utf8') : data.toString('utf8');
}
