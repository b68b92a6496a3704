// SHARD_WARMUP (the service's default; the tests' helper turns it off): each shard thread plays the
// recorded match through a shard of its own before its first command (workers/shard/warm-up.ts).
// Nothing of it may leave the thread: no live match, no frame, no event, no webhook; a real match
// afterwards has its events as the recording has them; a thread restarted after a crash does not
// warm up again (its matches are waiting). The frames with it are checked byte for byte in
// sharding.test.ts.
import { describe, expect, it } from 'vitest';
import { shardIndexOf } from '../../../src/main/shards/hash.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { recordingFacts } from '../../helpers/recorded-events.js';
import { serviceWithReceiver, webhookSecret } from '../../helpers/webhook-service.js';

const replay = recordedMatch();
const facts = recordingFacts(replay);
const KEY = 'warm-up-key-0123456789';
const CODE = 'WRMUP1';
const SECRET = webhookSecret('warm-up-test-secret-24-bytes!');

const start = serviceWithReceiver(SECRET);

describe('the shard threads\' warm-up', () => {
  it('leaves nothing behind, a real match after it is whole, and a restarted thread skips it', async () => {
    const { svc, rx } = await start({ AUTH_KEY: KEY, SHARD_WORKERS: '2', SHARD_WARMUP: 'true', TRUST_REPLAY_TIMESTAMPS: 'true', FAULT_INJECTION: 'true' });
    // Each thread says it warmed up, with how long it took (it posts the line with its first cycle's output).
    await expect.poll(() => svc.logged({ msg: 'shard warmed up' }).length, { timeout: 60_000 }).toBe(2);
    for (const line of svc.logged({ msg: 'shard warmed up' })) expect(line.ms).toBeGreaterThan(0);
    expect(svc.logged({ msg: 'shard warmed up' }).map((l) => l.shard).sort()).toEqual([0, 1]);
    // None of the warm-up's matches, frames or events reached the main thread.
    expect(await svc.metric('ods_live_matches')).toBe(0);
    expect(await svc.metric('ods_frames_published_total')).toBe(0);
    expect(await svc.metric('ods_messages_applied_total')).toBe(0);
    expect(await svc.admin.codes()).toEqual([]);

    const { socket, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE });
    expect(ack.value).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE });
    await rx.waitFor((ev) => ev.some((e) => e.type === 'match_ended'), 60_000);
    const events = rx.unique();
    expect(new Set(events.map((e) => e.matchKey)).size).toBe(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'match_created')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'round_ended').map((e) => (e.data as { score: unknown }).score)).toEqual(facts.rounds.map((r) => r.score));
    expect(events.filter((e) => e.type === 'kill')).toHaveLength(facts.kills.length);
    expect(JSON.stringify(events)).not.toContain('WARMUP');

    // A thread that dies is restarted without the warm-up: a match on the restarted thread gets its
    // frames (the line would have come out before its first output) and no third line came.
    svc.crashShard(0);
    await expect.poll(() => svc.metric('ods_shard_restarts_total'), { timeout: 30_000 }).toBe(1);
    const onZero = ['WRMUP2', 'WRMUP3', 'WRMUP4', 'WRMUP5', 'WRMUP6', 'WRMUP7'].find((c) => shardIndexOf(c, 2) === 0)!;
    const restarted = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: onZero });
    expect(restarted.ack.value).toBe(true);
    await sendRecords(restarted.socket, replay, { pace: 'instant', groupCode: onZero, to: 200 });
    await expect.poll(() => svc.frameNo(onZero), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(svc.logged({ msg: 'shard warmed up' })).toHaveLength(2);
  }, 180_000);
});
