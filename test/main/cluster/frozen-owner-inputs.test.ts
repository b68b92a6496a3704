// Forwarded to a frozen owner (docs/reliability.md, "The input log"; issue 35): node A runs a match
// and is frozen (SIGSTOP); the balancer moves the observer to node B, which forwards what the observer
// sends to A, still the owner until its lease lapses: Redis hands it to A's subscriber, where it sits
// unread. B adopts the match once A's lease lapsed and applies first what it forwarded that the
// match (its snapshot and the input log after it) does not hold, then what it held. A, resumed, is
// deposed: nothing of the match is lost. The overlay on B ends on an uninterrupted run's final frame.
import { Redis } from 'ioredis';
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, connectObserver, lastFrame, logon, joinedOverlay, reconnectingOverlay } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines, startCluster, type Cluster } from '../../helpers/cluster.js';
import { FailoverProxy } from '../../helpers/failover-proxy.js';
import { playReplay, recordedMatch, replayLogon, sendRecords } from '../../helpers/recorded.js';

const replay = recordedMatch();
const CODE = 'FRZIN1';
const REF = 'FRZREF';
const QUARTER = Math.floor(replay.records.length / 4);
/** What the observer sends while A is frozen: forwarded to A by B, applied by nobody until B adopts. */
const DURING = 150;

let cluster: Cluster | undefined;
let proxy: FailoverProxy | undefined;
const sockets: Socket[] = [];
afterAll(async () => {
  closeAll();
  for (const s of sockets) s.close();
  for (const node of cluster?.nodes ?? []) node.proc.kill('SIGCONT');
  await proxy?.close();
  await cluster?.stop();
});

describe('data forwarded to an owner that froze', () => {
  it('is applied by the node that forwarded it once it adopts the match: the match ends as an uninterrupted run', async () => {
    cluster = await startCluster(2, {
      TRUST_REPLAY_TIMESTAMPS: 'true', SNAPSHOT_INTERVAL_MS: '200', METRICS_ENABLED: 'false', EVENTS_ENABLED: 'false',
      INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000',
    });
    const [a, b] = cluster.nodes;
    proxy = new FailoverProxy([a.ports.ingest, b.ports.ingest]);
    const observer = connectObserver(await proxy.start(), { reconnection: true });
    expect((await logon(observer, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: CODE }))).ack.value).toBe(true);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, to: QUARTER });
    // A has every one of them in the input log (so none is left in its socket when it freezes): the
    // stream's last id is `<epoch>-<QUARTER>`, whatever a snapshot trimmed since.
    const redis = new Redis(cluster.redis.socketPath, { maxRetriesPerRequest: 1 });
    try {
      await expect.poll(async () => {
        const info = await redis.xinfo('STREAM', `ods:inlog:${CODE}`).catch(() => []) as unknown[];
        return String(info[info.indexOf('last-generated-id') + 1] ?? '').split('-')[1];
      }, { timeout: 15_000 }).toBe(String(QUARTER));
    } finally {
      redis.disconnect();
    }

    // A freezes; the observer's connection moves to B, which resumes its session and forwards to A.
    a.proc.kill('SIGSTOP');
    proxy.moveTo(1);
    await expect.poll(() => logLines(b, 'session resumed').some((l) => l.groupCode === CODE), { timeout: 15_000 }).toBe(true);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, from: QUARTER, to: QUARTER + DURING });
    // B adopts once A's lease lapsed, and applies first what A never applied.
    await expect.poll(() => logLines(b, 'match adopted from its snapshot').some((l) => l.groupCode === CODE), { timeout: 20_000 }).toBe(true);
    const delivered = () => logLines(b, 'held ingestion data delivered').find((l) => l.groupCode === CODE);
    await expect.poll(() => delivered() !== undefined, { timeout: 10_000 }).toBe(true);
    expect(delivered()!.unapplied).toBeGreaterThan(0);
    a.proc.kill('SIGCONT');
    await expect.poll(() => logLines(a, 'match evicted: another node owns it now').some((l) => l.groupCode === CODE), { timeout: 20_000 }).toBe(true);

    const watch = reconnectingOverlay(b.urls.broadcast, CODE);
    // Joined before the rest is sent: the match is removed right after its final frame, and an
    // overlay that joins after that gets nothing (on a loaded machine the join can take seconds).
    await expect.poll(() => watch.length, { timeout: 30_000 }).toBeGreaterThan(0);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, from: QUARTER + DURING });
    await expect.poll(() => watch.length > 0 && lastFrame(watch).roundPhase === 'game_end', { timeout: 90_000 }).toBe(true);

    // An uninterrupted run of the recording on B: the same final frame.
    const refFrames = await joinedOverlay(b.urls.broadcast, REF);
    const ref = await playReplay(replay, { url: b.urls.ingest, key: CLUSTER_KEY, pace: 'instant', groupCode: REF });
    sockets.push(ref.socket);
    await expect.poll(() => refFrames.length > 0 && lastFrame(refFrames).roundPhase === 'game_end', { timeout: 30_000 }).toBe(true);
    expect({ ...lastFrame(watch), groupCode: REF }).toEqual(lastFrame(refFrames));
    // Every record the observer sent was given to the match once: its input count when B removes it.
    const removed = () => logLines(b, 'match removed').find((l) => l.groupCode === CODE);
    await expect.poll(() => removed() !== undefined, { timeout: 30_000 }).toBe(true);
    expect(removed()!.inputs).toBe(replay.records.length);
    observer.close();
  }, 300_000);
});
