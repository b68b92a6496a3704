// Snapshots are spread over the interval (workers/shard/snapshots.ts): when a shard dies, its
// matches' snapshots hold different batch marks. The pool re-posts the batches after the oldest
// one; each restored match skips those its own snapshot already holds. Two matches streaming side
// by side, started apart and crashed mid-stream, end in the same state as an uninterrupted run
// (recorded clock), which they would not if a batch were applied to a match twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, frontend } from './helpers/clients.js';
import { playReplay, recordedMatch, sendRecords } from './helpers/recorded.js';
import { startTestService, type TestService } from './helpers/service.js';

const replay = recordedMatch();

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ AUTH_KEY: 'k', TRUST_REPLAY_TIMESTAMPS: 'true', FAULT_INJECTION: 'true', SNAPSHOT_INTERVAL_MS: '300' });
});
afterAll(async () => {
  closeAll();
  await svc?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a shard crash with snapshots taken at different marks', () => {
  it('restores each match from its own snapshot and applies only the batches it does not hold', async () => {
    const ref = await frontend(svc.broadcast, 'SPREF1');
    const refRun = await playReplay(replay, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: 'SPREF1' });
    const expected = await ref.waitFor((f) => f.roundPhase === 'game_end', 20_000);
    refRun.socket.close();

    // Each stream takes about 3 s; the second starts 400 ms after the first, so their snapshots
    // (300 ms after each one's first change) fall at different marks.
    const ts = replay.records.map((r) => Number(r.timestamp)).filter((t) => Number.isFinite(t) && t > 0);
    const pace = (Math.max(...ts) - Math.min(...ts)) / 3000;
    const feA = await frontend(svc.broadcast, 'SPRDA1');
    const feB = await frontend(svc.broadcast, 'SPRDB1');
    const a = await playReplay(replay, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: 'SPRDA1', to: 50 });
    const b = await playReplay(replay, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: 'SPRDB1', to: 50 });
    const streamA = sendRecords(a.socket, replay, { pace, groupCode: 'SPRDA1', from: 50 });
    await sleep(400);
    const streamB = sendRecords(b.socket, replay, { pace, groupCode: 'SPRDB1', from: 50 });
    await sleep(1200);
    svc.crashShard(0);
    await Promise.all([streamA, streamB]);

    const finalA = await feA.waitFor((f) => f.roundPhase === 'game_end', 20_000);
    const finalB = await feB.waitFor((f) => f.roundPhase === 'game_end', 20_000);
    expect({ ...finalA, groupCode: 'SPREF1' }).toEqual(expected);
    expect({ ...finalB, groupCode: 'SPREF1' }).toEqual(expected);
    const m = await svc.metrics();
    expect(m.value('ods_shard_restarts_total')).toBe(1);
    expect(m.value('ods_matches_lost_total')).toBe(0);
    a.socket.close();
    b.socket.close();
  }, 60_000);
});
