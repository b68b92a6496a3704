// One owner of a match's outputs (docs/reliability.md, "One owner of a match's outputs"): node A runs
// a match and is frozen (SIGSTOP) with events undelivered (the receiver was down meanwhile); node B
// adopts the match once A's lease lapses and delivers them. A, resumed (SIGCONT) past its lease,
// sends nothing more of that match: as far as it knows its lease ran out while it was frozen (it
// starts no request then), it learns it lost the match, and its hold is refused by Redis (fenced by
// B's epoch). Every request names its node (`x-ods-node`), so the receiver can tell who sent what.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, connectObserver, connected, logon } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines, startCluster, type Cluster } from '../../helpers/cluster.js';
import { recordedMatch, replayLogon, sendRecords } from '../../helpers/recorded.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const CODE = 'EVSTOP';
const SECRET = `whsec_${Buffer.from('paused-owner-secret-24b!!!!!').toString('base64')}`;
const HALF = Math.floor(replay.records.length / 2);

let cluster: Cluster | undefined;
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  closeAll();
  for (const node of cluster?.nodes ?? []) node.proc.kill('SIGCONT');
  await cluster?.stop();
  await receiver?.close();
});

/** The ids of the match's events in the outbox (read as an outsider). */
async function outboxIds(c: Cluster): Promise<string[]> {
  const redis = new Redis(c.redis.socketPath, { maxRetriesPerRequest: 1 });
  try {
    const ids: string[] = [];
    for (const key of await redis.keys(`ods:ev:${CODE}-*`)) {
      for (const [, fields] of await redis.xrange(key, '-', '+')) ids.push((JSON.parse(fields[fields.indexOf('e') + 1]) as { id: string }).id);
    }
    return ids;
  } finally {
    redis.disconnect();
  }
}

describe('a node paused past its lease', () => {
  it('does not deliver a match\'s events after another node took the match over', async () => {
    receiver = await startReceiver();
    cluster = await startCluster(2, {
      TRUST_REPLAY_TIMESTAMPS: 'true', SNAPSHOT_INTERVAL_MS: '200', METRICS_ENABLED: 'false',
      INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000',
      WEBHOOKS: JSON.stringify([{ id: 'rx', url: receiver.url, secret: SECRET }]),
    });
    const [a, b] = cluster.nodes;
    const observer = connectObserver(a.urls.ingest, { reconnection: false });
    await connected(observer);
    expect((await logon(observer, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: CODE }))).ack.value).toBe(true);
    const quarter = Math.floor(HALF / 2);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, to: quarter });
    await receiver.waitFor((ev) => ev.some((e) => e.type === 'round_ended'), 30_000);
    expect(receiver.deliveries.every((d) => d.headers['x-ods-node'] === 'node-a')).toBe(true);

    // The receiver goes down: the next events wait on node A (and in the outbox).
    await receiver.down();
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, from: quarter, to: HALF });
    await expect.poll(async () => (await outboxIds(cluster!)).length, { timeout: 30_000 }).toBeGreaterThan(receiver.unique().length + 5);
    const atFreeze = await outboxIds(cluster);

    a.proc.kill('SIGSTOP');
    observer.close();
    await receiver.up();
    // B adopts the match once A's lease lapses (no observer needed: the orphan sweep) and delivers what A had not.
    await receiver.waitFor((ev) => atFreeze.every((id) => ev.some((e) => e.id === id)), 60_000);
    expect(receiver.deliveries.some((d) => d.headers['x-ods-node'] === 'node-b')).toBe(true);
    expect(logLines(b, 'match adopted from its snapshot').length).toBe(1);

    const before = receiver.deliveries.length;
    a.proc.kill('SIGCONT');
    // A learns it lost the match (its renewal), and its hold of the match's outputs is refused (fenced).
    await expect.poll(() => logLines(a, 'match lease lost to another node').length, { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => logLines(a, 'event journal: another node holds this match\'s outputs now (a write was fenced): no more delivery from here').length, { timeout: 30_000 }).toBeGreaterThan(0);
    const fromA = receiver.deliveries.slice(before).filter((d) => d.headers['x-ods-node'] !== 'node-b');
    expect(fromA.map((d) => d.id)).toEqual([]);
    // Every event came once at least, in seq order per match as each node sent it.
    expect(receiver.unique().map((e) => e.seq)).toEqual(receiver.unique().map((_, i) => i + 1));
  }, 120_000);
});
