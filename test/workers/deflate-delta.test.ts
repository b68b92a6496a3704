// The delta encoder must produce a valid permessage-deflate stream: a receiver with context
// takeover (here zlib's raw inflater, as ws and browsers use) gets back exactly the frames.
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deflateDelta } from '../../src/codec/layout-delta.js';
import { Match } from '../../src/workers/match/match.js';
import { serializeMatch } from '../../src/workers/match/serialize.js';
import { recordedMatch } from '../../src/tools/recorded-match.js';

const TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff]);
const wire = (frame: string) => Buffer.from('42' + JSON.stringify(['match_data', frame]));

function recordedFrames(): Buffer[] {
  const { header, records } = recordedMatch();
  const m = Match.create({ groupCode: header.groupCode, leftTeam: header.leftTeam as never, rightTeam: header.rightTeam as never, organizationId: '', isSupporter: false }, Number(records[0].timestamp), { sponsorLogoUrl: 'x' });
  const frames: Buffer[] = [];
  let last = 0;
  for (const r of records) {
    const ts = Number(r.timestamp);
    m.advance(ts);
    m.apply(r, ts);
    if (ts - last >= 100) { frames.push(wire(serializeMatch(m, ts))); last = ts; }
  }
  return frames;
}

/** A receiver: the first message is a zlib keyframe, the rest are deltas; inflate the whole stream. */
function inflateStream(messages: Uint8Array[]): Buffer {
  return zlib.inflateRawSync(Buffer.concat(messages.flatMap((m) => [Buffer.from(m), TAIL])), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
}

function keyframe(frame: Buffer): Buffer {
  const out = zlib.deflateRawSync(frame, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return out.subarray(0, out.length - 4);
}

describe('deflateDelta', () => {
  it('every frame of the recorded match inflates back exactly, and deltas are small', () => {
    const frames = recordedFrames();
    expect(frames.length).toBeGreaterThan(1000);
    const messages: Uint8Array[] = [keyframe(frames[0])];
    let deltaBytes = 0;
    for (let k = 1; k < frames.length; k++) {
      const d = deflateDelta(frames[k - 1], frames[k]);
      expect(d).not.toBeNull();
      messages.push(d!);
      deltaBytes += d!.length;
    }
    expect(inflateStream(messages).equals(Buffer.concat(frames))).toBe(true);
    // ~15 KB frames: a delta is a small fraction of a frame deflated alone (~3 KB).
    expect(deltaBytes / (frames.length - 1)).toBeLessThan(1024);
  });

  it('a receiver that joins with a keyframe decodes the following deltas like everyone else', () => {
    const frames = recordedFrames().slice(500, 520);
    const late: Uint8Array[] = [keyframe(frames[5])];
    for (let k = 6; k < frames.length; k++) late.push(deflateDelta(frames[k - 1], frames[k])!);
    expect(inflateStream(late).equals(Buffer.concat(frames.slice(5)))).toBe(true);
  });

  it('handles unrelated, empty, shifted and window-sized inputs', () => {
    const rnd = (n: number, seed: number) => { const b = Buffer.alloc(n); let x = seed; for (let i = 0; i < n; i++) { x = (x * 1103515245 + 12345) & 0x7fffffff; b[i] = 32 + (x % 90); } return b; };
    const a = rnd(9000, 1);
    const cases: [Buffer, Buffer][] = [
      [a, rnd(9000, 2)],                                        // nothing in common
      [a, Buffer.concat([Buffer.from('xyz'), a])],              // shifted by an insertion at the start
      [a, Buffer.concat([a.subarray(0, 4000), a.subarray(4100)])], // a deletion in the middle
      [a, Buffer.alloc(0)],                                     // empty next
      [Buffer.alloc(0), a],                                     // empty prev
      [rnd(20000, 3), rnd(20000, 3)],                           // identical, beyond half the window
    ];
    for (const [prev, next] of cases) {
      const d = deflateDelta(prev, next)!;
      const out = inflateStream([keyframe(prev), d]);
      expect(out.equals(Buffer.concat([prev, next]))).toBe(true);
    }
    expect(deflateDelta(rnd(40000, 4), a)).toBeNull();
  });
});
