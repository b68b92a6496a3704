// A match whose node dies before its first snapshot is taken over all the same (docs/reliability.md,
// "The input log"; issue 35): its logon's creation is in Redis before the logon is answered, and
// everything it was given since is in its input log. Node A runs the match with SNAPSHOT_INTERVAL_MS
// at 10 minutes (so it never has a snapshot) and is killed once it applied the first quarter; the
// observer moves to B through the balancer; B creates the match again from its creation (the same
// matchKey), gives it the logged inputs, and the match ends as an uninterrupted run.
import { Redis } from 'ioredis';
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, connectObserver, lastFrame, logon, joinedOverlay, reconnectingOverlay } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines, startCluster, type Cluster } from '../../helpers/cluster.js';
import { FailoverProxy } from '../../helpers/failover-proxy.js';
import { playReplay, recordedMatch, replayLogon, sendRecords } from '../../helpers/recorded.js';

const replay = recordedMatch();
const CODE = 'NOSNP1';
const REF = 'NOSNPR';
const QUARTER = Math.floor(replay.records.length / 4);

let cluster: Cluster | undefined;
let proxy: FailoverProxy | undefined;
const sockets: Socket[] = [];
afterAll(async () => {
  closeAll();
  for (const s of sockets) s.close();
  await proxy?.close();
  await cluster?.stop();
});

describe('the loss of a node before its match\'s first snapshot (Redis)', () => {
  it('the match is created again from its creation and its input log on another node: it ends as an uninterrupted run', async () => {
    cluster = await startCluster(2, {
      TRUST_REPLAY_TIMESTAMPS: 'true', SNAPSHOT_INTERVAL_MS: '600000', METRICS_ENABLED: 'false', EVENTS_ENABLED: 'false',
      INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000',
    });
    const [a, b] = cluster.nodes;
    proxy = new FailoverProxy([a.ports.ingest, b.ports.ingest]);
    const observer = connectObserver(await proxy.start(), { reconnection: true });
    expect((await logon(observer, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: CODE }))).ack.value).toBe(true);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, to: QUARTER });
    const redis = new Redis(cluster.redis.socketPath, { maxRetriesPerRequest: 1 });
    try {
      // A logged every one of them (the stream's last id is `<epoch>-<QUARTER>`).
      await expect.poll(async () => {
        const info = await redis.xinfo('STREAM', `ods:inlog:${CODE}`).catch(() => []) as unknown[];
        return String(info[info.indexOf('last-generated-id') + 1] ?? '').split('-')[1];
      }, { timeout: 15_000 }).toBe(String(QUARTER));
      expect(await redis.exists(`ods:snap:${CODE}`)).toBe(1); // its creation (kept before the logon's ack)
    } finally {
      redis.disconnect();
    }

    await a.stop('SIGKILL');
    proxy.moveTo(1);
    await expect.poll(() => logLines(b, 'match adopted from its snapshot').some((l) => l.groupCode === CODE), { timeout: 30_000 }).toBe(true);
    expect(logLines(b, 'orphaned match has no snapshot: it cannot be taken over and is removed')).toEqual([]);
    await expect.poll(() => observer.connected, { timeout: 20_000 }).toBe(true);
    const watch = reconnectingOverlay(b.urls.broadcast, CODE);
    // Joined before the rest is sent: the match is removed right after its final frame, and an
    // overlay that joins after that gets nothing (on a loaded machine the join can take seconds).
    await expect.poll(() => watch.length, { timeout: 30_000 }).toBeGreaterThan(0);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, from: QUARTER });
    await expect.poll(() => watch.length > 0 && lastFrame(watch).roundPhase === 'game_end', { timeout: 90_000 }).toBe(true);

    const refFrames = await joinedOverlay(b.urls.broadcast, REF);
    const ref = await playReplay(replay, { url: b.urls.ingest, key: CLUSTER_KEY, pace: 'instant', groupCode: REF });
    sockets.push(ref.socket);
    await expect.poll(() => refFrames.length > 0 && lastFrame(refFrames).roundPhase === 'game_end', { timeout: 30_000 }).toBe(true);
    expect({ ...lastFrame(watch), groupCode: REF }).toEqual(lastFrame(refFrames));
    const removed = () => logLines(b, 'match removed').find((l) => l.groupCode === CODE);
    await expect.poll(() => removed() !== undefined, { timeout: 30_000 }).toBe(true);
    expect(removed()!.inputs).toBe(replay.records.length);
    observer.close();
  }, 300_000);
});
