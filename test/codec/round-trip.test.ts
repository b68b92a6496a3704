// The frame codec end to end (src/codec): the recorded match's frames, encoded with both delta
// encoders (from the serializer's layouts, layoutDelta, as the shard does; from the whole frames'
// bytes, deflateDelta), decoded with the decoder a watching node uses (inflateDelta) and with node's
// zlib as a permessage-deflate receiver does (one raw inflate stream, context takeover): every
// frame's exact text comes back, each way.
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflateDelta } from '../../src/codec/inflate-delta.js';
import { deflateDelta, layoutDelta, type FrameLayout } from '../../src/codec/layout-delta.js';
import { eachRecordedFrame } from '../../src/tools/recorded-frames.js';
import { wireSerializeFrame } from '../../src/workers/wire-serializer.js';

const TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff]);

/** The recorded match's frames with their layouts, at 100 ms steps of its clock (as a shard makes them). */
function recordedLayouts(): { wire: string; layout: FrameLayout }[] {
  const frames: { wire: string; layout: FrameLayout }[] = [];
  eachRecordedFrame((m, ts) => frames.push(wireSerializeFrame(m, ts)));
  return frames;
}

/** A permessage-deflate receiver with context takeover: one raw inflate stream for the whole sequence. */
function zlibReceiver(): { inflate(payload: Uint8Array): Promise<Buffer>; close(): void } {
  const stream = zlib.createInflateRaw({ windowBits: 15 });
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return {
    async inflate(payload) {
      stream.write(Buffer.concat([payload, TAIL]));
      await new Promise<void>((resolve) => stream.flush(zlib.constants.Z_SYNC_FLUSH, () => resolve()));
      const out = Buffer.concat(chunks);
      chunks.length = 0;
      return out;
    },
    close: () => stream.close(),
  };
}

/** The first frame as a permessage-deflate sender sends it without a previous frame (a keyframe). */
function keyframe(wire: Buffer): Buffer {
  const out = zlib.deflateRawSync(wire, { level: 3, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return out.subarray(0, out.length - 4);
}

describe('frame codec round trip (src/codec)', () => {
  const frames = recordedLayouts();

  for (const encoder of ['layout', 'whole-frame'] as const) {
    it(`${encoder} deltas of the recorded match decode to the exact frames, with inflateDelta and with zlib (context takeover)`, async () => {
      expect(frames.length).toBeGreaterThan(1000);
      const receiver = zlibReceiver();
      try {
        let base = Buffer.from(frames[0].wire);
        expect((await receiver.inflate(keyframe(base))).toString()).toBe(frames[0].wire);
        let bytes = 0;
        for (let k = 1; k < frames.length; k++) {
          const next = Buffer.from(frames[k].wire);
          const delta = encoder === 'layout' ? layoutDelta(frames[k - 1].layout, frames[k].layout) : deflateDelta(base, next);
          if (delta === null) throw new Error(`frame ${k}: no delta`);
          bytes += delta.length;
          const ours = inflateDelta(base, Buffer.from(delta));
          const theirs = await receiver.inflate(delta);
          if (!ours.equals(next) || !theirs.equals(next)) {
            throw new Error(`frame ${k} (${encoder}): inflateDelta ${ours.equals(next) ? 'exact' : 'differs'}, zlib ${theirs.equals(next) ? 'exact' : 'differs'}`);
          }
          expect(ours.toString()).toBe(frames[k].wire);
          base = next;
        }
        // Deltas, not frames: a few hundred bytes each on average.
        expect(bytes / (frames.length - 1)).toBeLessThan(1024);
      } finally {
        receiver.close();
      }
    });
  }
});
