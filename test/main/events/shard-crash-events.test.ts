// A shard that crashes mid-match is rebuilt from its snapshot plus the batches kept since, applied
// again (README, "Restarts, crashes and shutdown"): the events of those batches are derived again
// with the same order and dropped by the journal (docs/events.md), so a webhook receiver sees each
// event once, in order, and the match's events still agree with the recording (19 rounds, every kill).
import { describe, expect, it } from 'vitest';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { recordingFacts } from '../../helpers/recorded-events.js';
import { serviceWithReceiver, webhookSecret } from '../../helpers/webhook-service.js';

const replay = recordedMatch();
const facts = recordingFacts(replay);
const KEY = 'crash-events-key-0123456789';
const CODE = 'CRSHEV';
const SECRET = webhookSecret('crash-test-secret-of-24-bytes!');
const HALF = Math.floor(replay.records.length / 2);

const start = serviceWithReceiver(SECRET);

describe('events across a shard crash', () => {
  it('are neither repeated nor lost', async () => {
    const { svc, rx } = await start({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', FAULT_INJECTION: 'true', SNAPSHOT_INTERVAL_MS: '60000' });
    const { socket, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE });
    expect(ack.value).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, to: HALF });
    await rx.waitFor((ev) => ev.filter((e) => e.type === 'round_ended').length >= 3, 30_000);
    // No snapshot since the start (SNAPSHOT_INTERVAL_MS 60 s): the whole first half is applied again.
    svc.crashShard(0);
    await expect.poll(() => svc.metric('ods_shard_restarts_total'), { timeout: 20_000 }).toBe(1);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, from: HALF });
    await rx.waitFor((ev) => ev.some((e) => e.type === 'match_ended'), 60_000);
    const events = rx.unique();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'match_created')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'round_ended').map((e) => (e.data as { score: unknown }).score)).toEqual(facts.rounds.map((r) => r.score));
    expect(events.filter((e) => e.type === 'kill')).toHaveLength(facts.kills.length);
  }, 120_000);
});
