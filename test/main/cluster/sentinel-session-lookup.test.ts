// Issue 35, as it was found: two nodes on a Redis primary, one replica and three Sentinels (all
// real processes). The primary and the node that runs a match die together (SIGKILL, as when one
// machine ran both); the observer's automatic reconnection reaches the other node about a second
// later, before the Sentinels have promoted the replica, so its session lookup fails there. The
// lookup is retried (src/main/ingest/resume.ts) until the promoted replica answers: the observer
// resumes its session, the other node adopts the match, nothing sent after the reconnection is
// dropped as `unauthenticated`, the overlay goes on to the game's end and ends on a clean run's
// final frame. The Redis outage without Sentinel: redis-lookup-retry.test.ts.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, connectObserver, connected, overlay, logon } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines } from '../../helpers/cluster.js';
import { FailoverProxy } from '../../helpers/failover-proxy.js';
import { scrapeMetrics } from '../../helpers/metrics.js';
import { playReplay, replayLogon, sendRecords, shortMatch } from '../../helpers/recorded.js';
import { MASTER_NAME, startSentinelSetup, type SentinelSetup } from '../../helpers/redis-sentinel.js';
import { spawnService, type ServiceProcess } from '../../helpers/service-process.js';
import { startTestService } from '../../helpers/service.js';
import { atPace } from '../../helpers/waits.js';
import { decodeSnapshot } from '../../../src/main/matches/adapters/redis/snapshot-store.js';

// 1,200 records of the recorded game (into round 8) and its end, for the clean run and the match: ~500
// records go after the kill, sent while the lookup fails (held, then applied), as the whole game's 1,860 were.
const replay = shortMatch(1200);
const CODE = 'SNTLKP';

let setup: SentinelSetup;
let a: ServiceProcess;
let b: ServiceProcess;
let expectedFinal = '';

beforeAll(async () => {
  setup = await startSentinelSetup();
  const env = {
    REDIS_URL: `redis://${MASTER_NAME}`, REDIS_SENTINELS: setup.sentinelList, REDIS_SENTINEL_NAME: MASTER_NAME,
    AUTH_KEY: CLUSTER_KEY, REDIS_LEASE_TTL_MS: '3000', REDIS_PROBE_INTERVAL_MS: '500', LOG_LEVEL: 'info',
    TRUST_REPLAY_TIMESTAMPS: 'true', SNAPSHOT_INTERVAL_MS: '200',
  };
  [a, b] = await Promise.all([spawnService({ ...env, NODE_ID: 'node-a' }), spawnService({ ...env, NODE_ID: 'node-b' })]);
  const reference = await startTestService({ AUTH_KEY: 'k', TRUST_REPLAY_TIMESTAMPS: 'true' });
  try {
    const fe = await overlay(reference.broadcast, CODE);
    const run = await playReplay(replay, { url: reference.ingest, key: 'k', groupCode: CODE, pace: 'instant' });
    await fe.waitFor((f) => f.roundPhase === 'game_end', 60_000);
    run.socket.close();
    expectedFinal = fe.raw[fe.raw.length - 1];
  } finally {
    await reference.close();
  }
}, 90_000);
afterAll(async () => {
  closeAll();
  await Promise.all([a, b].map((n) => n?.stop('SIGKILL')));
  await setup?.stop();
});

/** The lastChangeAt in the match's snapshot on the primary (-1 when there is none). */
async function snapshotChangeAt(port: number): Promise<number> {
  const r = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  try {
    const [data, base] = await r.hmgetBuffer(`ods:snap:${CODE}`, 'data', 'base');
    const m = data ? /lastChangeAt\\*":(\d+)/.exec(decodeSnapshot(data, base)) : null;
    return m ? Number(m[1]) : -1;
  } finally {
    r.disconnect();
  }
}

describe('Redis failover while the observer moves to another node', () => {
  it('the primary and the match\'s node die together: the other node retries the session lookup until the promoted replica answers; nothing is dropped, the match ends as an uninterrupted run', async () => {
    const proxy = new FailoverProxy([a.ports.ingest, b.ports.ingest]);
    const url = await proxy.start();
    const onB = await overlay(b.urls.broadcast, CODE);
    const s = connectObserver(url); // the observer client's options (docs/client-contract.md 1.3)
    const outgoing: string[] = [];
    s.onAnyOutgoing((event: string) => outgoing.push(event));
    try {
      await connected(s);
      expect((await logon(s, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: CODE }))).ack.value).toBe(true);
      await expect.poll(() => s.io.engine.transport.name).toBe('websocket');
      let half = 700;
      while (replay.records[half - 1].type !== 'killfeed') half++;
      await sendRecords(s, replay, { pace: 'instant', groupCode: CODE, to: half });
      // Everything sent so far is in A's snapshot, replicated (the documented loss of a node's death is what it applied after its last snapshot).
      const lastTs = Number(replay.records[half - 1].timestamp);
      await expect.poll(() => snapshotChangeAt(setup.servers[1]), { timeout: 20_000 }).toBe(lastTs);

      const down = new Promise<string>((resolve) => s.once('disconnect', (reason: string) => resolve(reason)));
      const killedAt = Date.now();
      await Promise.all([setup.kill(0), (async () => { a.proc.kill('SIGKILL'); await a.exited; })()]);
      expect(await down).toBe('transport close');
      // The game goes on at its pace (20 messages a second) from the moment the client saw the drop.
      let sent = half;
      await atPace(20, () => sent < replay.records.length, async () => {
        const to = Math.min(sent + 20, replay.records.length);
        await sendRecords(s, replay, { pace: 'instant', groupCode: CODE, from: sent, to });
        sent = to;
      });
      await onB.waitFor((f) => f.roundPhase === 'game_end', 90_000);
      expect(await setup.primaryPort()).toBe(setup.servers[1]);

      const resumed = logLines(b, 'session resumed').filter((l) => l.groupCode === CODE);
      const failed = logLines(b, 'session lookup failed (the store did not answer); retried, events held');
      console.log(`sentinel lookup: resumed on B ${Number(resumed[0]?.time ?? 0) - killedAt} ms after the kill, after ${String(resumed[0]?.lookupFailures)} failed lookups (${failed.map((l) => l.error).join('; ')})`);
      // The reconnection reached B before the promotion: its lookup failed at least once, and was retried.
      expect(resumed.length).toBeGreaterThan(0);
      expect(Number(resumed[0].lookupFailures)).toBeGreaterThan(0);
      expect(logLines(b, 'match adopted from its snapshot').map((l) => l.groupCode)).toEqual([CODE]);
      const metrics = await scrapeMetrics(b.urls.metrics!);
      expect(metrics.value('ods_messages_dropped_total', { reason: 'unauthenticated' })).toBe(0);
      expect(metrics.value('ods_messages_dropped_total', { reason: 'rate_limited' })).toBe(0);
      expect(outgoing.filter((e) => e === 'obs_logon')).toHaveLength(1); // resumed, never logged on again
      expect(onB.raw[onB.raw.length - 1]).toBe(expectedFinal);
    } finally {
      s.close();
      await proxy.close();
    }
  }, 180_000);
});
