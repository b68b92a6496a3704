// The outbox on Redis (docs/events.md, "Delivery guarantees"; events/event-outbox.ts): two nodes share
// one redis-server and one webhook endpoint. The node that runs the match is killed (SIGKILL)
// mid-match while the receiver is down, so events wait undelivered in the outbox; the observer goes
// on through the "balancer" to the other node, which takes the match over, reads the match's events
// and the endpoint's cursor from Redis, delivers what the lost node had not, and numbers on. The
// receiver gets every event once after de-duplication, in order: the recording's 19 rounds and kills.
// Then a match that ended on a node with its events undelivered: that node is killed, and a third
// node adopts its outputs (their lease per match under MatchOwnership lapsed; no snapshot needed)
// and delivers them.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { closeAll, connectObserver, connected, logon } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines, startCluster, type Cluster } from '../../helpers/cluster.js';
import { FailoverProxy } from '../../helpers/failover-proxy.js';
import { recordedMatch, replayLogon, sendRecords, shortMatch } from '../../helpers/recorded.js';
import { expectWholeMatchDelivered, recordingFacts } from '../../helpers/recorded-events.js';
import { decodeSnapshot } from '../../../src/main/matches/adapters/redis/snapshot-store.js';
import { atPace } from '../../helpers/waits.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const facts = recordingFacts(replay);
const CODE = 'EVKILL';
const SECRET = `whsec_${Buffer.from('cluster-events-secret-24b!!!').toString('base64')}`;
const HALF = Math.floor(replay.records.length / 2);
// The ended match of the second test: the recording's first six rounds (to round 7's shopping) and its end.
const ended6 = shortMatch(902, replay);
const ended6Facts = recordingFacts(ended6);

let cluster: Cluster | undefined;
let receiver: WebhookReceiver | undefined;
let proxy: FailoverProxy | undefined;
afterAll(async () => {
  closeAll();
  await proxy?.close();
  await cluster?.stop();
  await receiver?.close();
});

/** Reads Redis as an outsider: the match's snapshot time, and the ids of its events in the outbox. */
async function inRedis<T>(c: Cluster, read: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(c.redis.socketPath, { maxRetriesPerRequest: 1 });
  try { return await read(redis); } finally { redis.disconnect(); }
}
const snapshotChangeAt = (c: Cluster) => inRedis(c, async (redis) => {
  const [data, base] = await redis.hmgetBuffer(`ods:snap:${CODE}`, 'data', 'base');
  const m = data ? /lastChangeAt\\*":(\d+)/.exec(decodeSnapshot(data, base)) : null;
  return m ? Number(m[1]) : -1;
});
const outboxIds = (c: Cluster) => inRedis(c, async (redis) => {
  const keys = (await redis.keys(`ods:ev:${CODE}-*`));
  const ids: string[] = [];
  for (const key of keys) for (const [, fields] of await redis.xrange(key, '-', '+')) ids.push((JSON.parse(fields[fields.indexOf('e') + 1]) as { id: string }).id);
  return ids;
});

/** On a failure: what each node said above info, and what the receiver got (a loss under load is found there). */
function explainFailure(): void {
  onTestFailed(() => {
    for (const node of cluster?.nodes ?? []) console.log(node.out.filter((l) => /"level":(40|50|60)/.test(l)).join('\n'));
    console.log(JSON.stringify(receiver?.unique().map((e) => [e.seq, e.type, (e.data as { score?: unknown }).score ?? ''])));
  });
}

describe('the outbox on Redis', () => {
  it('loses nothing when the node that runs the match is killed: another node delivers the rest', async () => {
    explainFailure();
    receiver = await startReceiver();
    cluster = await startCluster(2, {
      TRUST_REPLAY_TIMESTAMPS: 'true', SNAPSHOT_INTERVAL_MS: '200', METRICS_ENABLED: 'false',
      INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000',
      WEBHOOKS: JSON.stringify([{ id: 'rx', url: receiver.url, secret: SECRET }]),
    });
    const [a, b] = cluster.nodes;
    proxy = new FailoverProxy([a.ports.ingest, b.ports.ingest]);
    const observer = connectObserver(await proxy.start());
    await connected(observer);
    expect((await logon(observer, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: CODE }))).ack.value).toBe(true);

    // A first part is delivered by node A; then the receiver goes down and the rest of the first half waits in the outbox.
    const quarter = Math.floor(HALF / 2);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, to: quarter });
    await receiver.waitFor((ev) => ev.some((e) => e.type === 'round_ended'), 30_000);
    await receiver.down();
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, from: quarter, to: HALF });
    await expect.poll(() => snapshotChangeAt(cluster!), { timeout: 30_000 }).toBeGreaterThanOrEqual(replay.records[HALF - 1].timestamp as number);
    await expect.poll(async () => (await outboxIds(cluster!)).length, { timeout: 20_000 }).toBeGreaterThan(receiver.unique().length);
    const beforeKill = await outboxIds(cluster);

    const down = new Promise<string>((resolve) => observer.once('disconnect', (reason: string) => resolve(reason)));
    a.proc.kill('SIGKILL');
    await a.exited;
    await receiver.up();
    // What the client writes into the dying connection is lost (no acknowledgements on obs_data): the
    // game goes on once the client saw the drop, buffered while it reconnects through the proxy to
    // node B, which takes the match over.
    expect(await down).toBe('transport close');
    let sent = HALF;
    await atPace(20, () => sent < replay.records.length, async () => {
      await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, from: sent, to: Math.min(sent + 40, replay.records.length) });
      sent = Math.min(sent + 40, replay.records.length);
    });
    await receiver.waitFor((ev) => ev.some((e) => e.type === 'match_ended'), 60_000);

    expect(logLines(b, 'event journal: match read from the shared outbox').length).toBeGreaterThan(0);
    expectWholeMatchDelivered(receiver.unique(), beforeKill, facts);
    observer.close();
  }, 120_000);

  it('a match that ended on a lost node with events undelivered: its outputs are adopted by another node, which delivers them', async () => {
    const c = cluster!;
    const b = c.nodes[1];
    const successor = await c.addNode();
    const code = 'EVENDS';
    explainFailure();
    const before = receiver!.unique().length;
    await receiver!.down();
    const observer = connectObserver(b.urls.ingest);
    await connected(observer);
    expect((await logon(observer, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code }))).ack.value).toBe(true);
    await sendRecords(observer, ended6, { pace: 'instant', groupCode: code });
    const ended = () => inRedis(c, async (redis) => {
      const keys = await redis.keys(`ods:ev:${code}-*`);
      const entries = keys.length ? await redis.xrange(keys[0], '-', '+') : [];
      return entries.map(([, f]) => JSON.parse(f[f.indexOf('e') + 1]) as { id: string; type: string });
    });
    await expect.poll(async () => (await ended()).some((e) => e.type === 'match_ended'), { timeout: 60_000 }).toBe(true);
    const stored = await ended();
    b.proc.kill('SIGKILL');
    await b.exited;
    observer.close();
    await receiver!.up();
    await receiver!.waitFor((ev) => ev.some((e) => e.groupCode === code && e.type === 'match_ended'), 60_000);
    // The successor took the outputs over: adopted alone (MatchOwnership's outputs lease, the code's
    // record gone) or, when the lost node's lease lapsed before its ended match left the directory,
    // adopted with the match, which reads the outbox too. Either log line shows it.
    const tookOver = logLines(successor, 'outputs of a lost node\'s match adopted').length + logLines(successor, 'event journal: match read from the shared outbox').length;
    expect(tookOver).toBeGreaterThan(0);
    const events = receiver!.unique().slice(before).filter((e) => e.groupCode === code);
    expect(events.map((e) => e.id)).toEqual(stored.map((e) => e.id));
    expect(events.filter((e) => e.type === 'round_ended')).toHaveLength(ended6Facts.rounds.length);
    expect(ended6Facts.rounds.length).toBe(6);
  }, 120_000);
});
