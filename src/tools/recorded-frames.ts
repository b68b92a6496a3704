// The recorded match's frames as a shard makes them: 100 ms steps of the recorded clock, each frame's
// frame text (the WebSocket message) and its delta against the one before (deflateDelta, codec/layout-delta.ts). For the tests
// and benchmarks of the frame path between nodes (test/main/frames/frames-redis.test.ts, bench/cluster-frames.ts).
import { wireMessage } from '../protocol/wire.js';
import { deflateDelta } from '../codec/layout-delta.js';
import { Match } from '../workers/match/match.js';
import { serializeMatch } from '../workers/match/serialize.js';
import { recordedMatch } from './recorded-match.js';

export interface RecordedFrame { frameText: string; delta: string | null }

/** Calls `frame` with the match at each 100 ms step of the recorded clock, as a shard makes frames. */
export function eachRecordedFrame(frame: (match: Match, now: number) => void): void {
  const { header, records } = recordedMatch();
  const m = Match.create({ groupCode: header.groupCode, leftTeam: header.leftTeam as never, rightTeam: header.rightTeam as never, organizationId: '', isSupporter: false }, Number(records[0].timestamp), { sponsorLogoUrl: 'x' });
  let last = 0;
  for (const r of records) {
    const ts = Number(r.timestamp);
    m.advance(ts);
    m.apply(r, ts);
    if (ts - last < 100) continue;
    last = ts;
    frame(m, ts);
  }
}

export function recordedFrames(): RecordedFrame[] {
  const frames: RecordedFrame[] = [];
  let prev: Buffer | null = null;
  eachRecordedFrame((m, ts) => {
    const frameText = wireMessage(serializeMatch(m, ts));
    const bytes = Buffer.from(frameText);
    const delta = prev ? deflateDelta(prev, bytes) : null;
    frames.push({ frameText, delta: delta ? Buffer.from(delta).toString('latin1') : null });
    prev = bytes;
  });
  return frames;
}
