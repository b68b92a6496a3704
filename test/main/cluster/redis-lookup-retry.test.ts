// Issue 35: an observer whose reconnection reaches another node while Redis does not answer (the
// machine that ran its node and the Redis primary died together). The session lookup fails there;
// it must be retried while the observer's messages are held, never taken for "unknown session"
// (which dropped every later message as `unauthenticated` and froze the overlays). Redis is made
// unreachable through an OutageProxy between both nodes and a real redis-server: the nodes'
// connections are reset and every new one refused, as ioredis sees a dead primary ("Stream isn't
// writeable"). The Sentinel version of the same scenario: sentinel-failover.test.ts.
// docs/reliability.md, "Redis failover"; src/main/ingest/resume.ts.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanFinalFrame } from '../../helpers/clean-run.js';
import { closeAll, connectObserver, connected, overlay, logon } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines } from '../../helpers/cluster.js';
import { FailoverProxy } from '../../helpers/failover-proxy.js';
import { BO3, exampleCsv, fixture, upload, withMatchId } from '../../helpers/fixtures.js';
import { tcpOf } from '../../helpers/internals/ws.js';
import { webSocketOf } from '../../helpers/internals/socketio-client.js';
import { scrapeMetrics } from '../../helpers/metrics.js';
import { OutageProxy } from '../../helpers/outage-proxy.js';
import { playReplay, recordedMatch, replayLogon, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { spawnService, type ServiceProcess } from '../../helpers/service-process.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { atPace } from '../../helpers/waits.js';
import { decodeSnapshot } from '../../../src/main/matches/adapters/redis/snapshot-store.js';

const replay = recordedMatch();
const TOKEN = 'lookup-retry-admin-token-2b9e41';

let reference: TestService;
let redis: RedisServer;
let redisProxy: OutageProxy;
let a: ServiceProcess;
let b: ServiceProcess;
let proxy: FailoverProxy;
let ingestUrl = '';
let nodeEnv: Record<string, string> = {};
/** Nodes a test started. */
const extra: ServiceProcess[] = [];

/** The final frame of the file's one uninterrupted run of the recording, for a group code. */
const cleanFinal = cleanFinalFrame(() => reference, replay);

/** The record index after which a state-changing record (a kill) was the last one sent. */
function killAfter(from: number): number {
  for (let i = from; i < replay.records.length; i++) if (replay.records[i].type === 'killfeed') return i + 1;
  throw new Error('no killfeed record');
}

/** The lastChangeAt in the match's snapshot in Redis (read past the proxy; -1 when there is none). */
async function snapshotChangeAt(groupCode: string): Promise<number> {
  const r = new Redis(redis.socketPath, { maxRetriesPerRequest: 1 });
  try {
    const [data, base] = await r.hmgetBuffer(`ods:snap:${groupCode}`, 'data', 'base');
    const m = data ? /lastChangeAt\\*":(\d+)/.exec(decodeSnapshot(data, base)) : null;
    return m ? Number(m[1]) : -1;
  } finally {
    r.disconnect();
  }
}

const received = async (node: ServiceProcess) => (await scrapeMetrics(node.urls.metrics!)).value('ods_messages_received_total', { event: 'obs_data' });
const dropped = async (node: ServiceProcess, reason: string) => (await scrapeMetrics(node.urls.metrics!)).value('ods_messages_dropped_total', { reason });

beforeAll(async () => {
  reference = await startTestService({ AUTH_KEY: 'k', TRUST_REPLAY_TIMESTAMPS: 'true' });
  redis = await startRedisServer();
  redisProxy = new OutageProxy(redis.socketPath);
  const redisUrl = (await redisProxy.start()).replace('http:', 'redis:');
  nodeEnv = {
    REDIS_URL: redisUrl, AUTH_KEY: CLUSTER_KEY, REDIS_LEASE_TTL_MS: '3000', REDIS_PROBE_INTERVAL_MS: '500', LOG_LEVEL: 'info',
    TRUST_REPLAY_TIMESTAMPS: 'true', SNAPSHOT_INTERVAL_MS: '200',
    // 10× the default sustained rate (at 200/s one socket takes ~14 s to send the match); the burst
    // stays the default, so what a reconnection sends while its lookup is held meets the same budget.
    INGEST_RATE_PER_SOCKET: '2000', ADMIN_TOKEN: `ops:${TOKEN}`, SESSION_LOOKUP_RETRY_MS: '100', SESSION_LOOKUP_DEADLINE_MS: '4000',
  };
  a = await spawnService({ ...nodeEnv, NODE_ID: 'node-a' });
  b = await spawnService({ ...nodeEnv, NODE_ID: 'node-b' });
  // The balancer: every connection to A while it lives, then to B.
  proxy = new FailoverProxy([a.ports.ingest, b.ports.ingest]);
  ingestUrl = await proxy.start();
}, 60_000);
afterAll(async () => {
  closeAll();
  await proxy?.close();
  await Promise.all([a, b, ...extra].map((n) => n?.stop('SIGKILL')));
  await redisProxy?.close();
  await redis?.stop();
  await reference?.close();
});

describe('a reconnection to another node while Redis does not answer', () => {
  it('node A and Redis die together: the observer resumes its session on node B once Redis answers, nothing it sent after the reconnection is dropped, the match ends as an uninterrupted run', async () => {
    const code = 'LKUP01';
    const expected = cleanFinal(code);
    const onB = await overlay(b.urls.broadcast, code);
    const s = connectObserver(ingestUrl); // the observer client's options (docs/client-contract.md 1.3)
    const outgoing: string[] = [];
    s.onAnyOutgoing((event: string) => outgoing.push(event));
    try {
      await connected(s);
      expect((await logon(s, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code }))).ack.value).toBe(true);
      await expect.poll(() => s.io.engine.transport.name).toBe('websocket');
      const half = killAfter(900);
      await sendRecords(s, replay, { pace: 'instant', groupCode: code, to: half });
      // Everything sent so far is in A's snapshot in Redis (the documented loss of a node's death is what it applied after its last one).
      const lastTs = Number(replay.records[half - 1].timestamp);
      await expect.poll(() => snapshotChangeAt(code), { timeout: 20_000 }).toBe(lastTs);

      // Redis and node A die at once; the observer's automatic reconnection reaches B (through the proxy) while Redis is still gone.
      const down = new Promise<string>((resolve) => s.once('disconnect', (reason: string) => resolve(reason)));
      redisProxy.cut();
      a.proc.kill('SIGKILL');
      await a.exited;
      expect(await down).toBe('transport close');
      const reconnected = new Promise<void>((resolve) => s.io.once('reconnect', () => resolve()));
      // The game goes on: what the client sends meanwhile it buffers, then sends to B.
      let sent = half;
      const next = async (n: number) => {
        const to = Math.min(sent + n, replay.records.length);
        await sendRecords(s, replay, { pace: 'instant', groupCode: code, from: sent, to });
        sent = to;
      };
      await next(20);
      await reconnected;
      await expect.poll(() => b.out.some((l) => l.includes('"msg":"session lookup failed')), { timeout: 20_000 }).toBe(true);
      await next(20); // received by B while its lookup has no answer: held
      redisProxy.restore();
      await atPace(20, () => sent < replay.records.length, () => next(20));
      await onB.waitFor((f) => f.roundPhase === 'game_end', 90_000);

      const resumed = logLines(b, 'session resumed').filter((l) => l.groupCode === code);
      expect(resumed.length).toBeGreaterThan(0);
      expect(Number(resumed[0].lookupFailures)).toBeGreaterThan(0); // resumed by a retry, not by luck
      expect(logLines(b, 'match adopted from its snapshot').map((l) => l.groupCode)).toEqual([code]);
      expect(await dropped(b, 'unauthenticated')).toBe(0);
      expect(await dropped(b, 'rate_limited')).toBe(0);
      expect(outgoing.filter((e) => e === 'obs_logon')).toHaveLength(1); // never logged on again
      const final = onB.raw[onB.raw.length - 1];
      expect(JSON.parse(final)).toEqual(JSON.parse(await expected));
    } finally {
      s.close();
    }
  }, 180_000);

  it('Redis stays unreachable past SESSION_LOOKUP_DEADLINE_MS: the node closes the transport, the client reconnects by itself with the pid it was given, the session is looked up again with the held messages first, and resumes once Redis answers', async () => {
    const code = 'LKUP02';
    const onB = await overlay(b.urls.broadcast, code);
    const s = connectObserver(ingestUrl); // node A is gone: B
    const outgoing: string[] = [];
    s.onAnyOutgoing((event: string) => outgoing.push(event));
    try {
      await connected(s);
      expect((await logon(s, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code }))).ack.value).toBe(true);
      await expect.poll(() => s.io.engine.transport.name).toBe('websocket');
      const receivedBefore = await received(b);
      const first = killAfter(300);
      await sendRecords(s, replay, { pace: 'instant', groupCode: code, to: first });
      await expect.poll(() => received(b)).toBe(receivedBefore + first);
      await onB.waitFor((f) => typeof f.roundNumber === 'number' && f.roundNumber > 0, 30_000);
      const closedBefore = (await scrapeMetrics(b.urls.metrics!)).value('ods_sockets_closed_total', { listener: 'ingest', reason: 'session_lookup' });

      // Redis goes; the observer's network resets: its reconnection's lookup finds no answer.
      redisProxy.cut();
      const reconnects: number[] = [];
      s.io.on('reconnect', () => reconnects.push(Date.now()));
      tcpOf(webSocketOf(s)!).destroy();
      await expect.poll(() => reconnects.length, { timeout: 20_000 }).toBeGreaterThan(0);
      const second = killAfter(first + 1);
      await sendRecords(s, replay, { pace: 'instant', groupCode: code, from: first, to: second }); // held on B
      // The deadline passes: B closes the transport, and the client reconnects by itself (not "io server disconnect").
      await expect.poll(() => logLines(b, 'session lookup unanswered: transport closed so that the client reconnects').length, { timeout: 20_000 }).toBeGreaterThan(0);
      await expect.poll(() => reconnects.length, { timeout: 20_000 }).toBeGreaterThan(1);
      expect((await scrapeMetrics(b.urls.metrics!)).value('ods_sockets_closed_total', { listener: 'ingest', reason: 'session_lookup' })).toBeGreaterThan(closedBefore);
      const framesBefore = onB.raw.length;
      const third = killAfter(second + 1);
      await sendRecords(s, replay, { pace: 'instant', groupCode: code, from: second, to: third });
      redisProxy.restore();
      // Every message sent while Redis was gone reached the node's handlers (none dropped, none lost
      // with the closed transport), and the overlay moves again.
      await expect.poll(() => received(b), { timeout: 30_000 }).toBe(receivedBefore + third);
      await expect.poll(() => onB.raw.length, { timeout: 30_000 }).toBeGreaterThan(framesBefore);
      expect(logLines(b, 'session resumed').filter((l) => l.groupCode === code).length).toBeGreaterThan(0);
      expect(await dropped(b, 'unauthenticated')).toBe(0);
      expect(outgoing.filter((e) => e === 'obs_logon')).toHaveLength(1);
    } finally {
      s.close();
    }
  }, 120_000);
  it('data for a match another node runs, received while Redis does not take it, is sent to the owner again once Redis is back: nothing dropped, the match ends as an uninterrupted run; GET /match there answers 503 meanwhile', async () => {
    const code = 'LKUP03';
    const expected = cleanFinal(code);
    const c = await spawnService({ ...nodeEnv, NODE_ID: 'node-c' });
    extra.push(c);
    const onB = await overlay(b.urls.broadcast, code);
    // The match runs on B; the observer that sends its data is on C (a second logon with the group secret).
    const first = connectObserver(b.urls.ingest);
    const created = await logon(first, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code }));
    expect(created.ack.value).toBe(true);
    first.close();
    const s = connectObserver(c.urls.ingest);
    try {
      expect((await logon(s, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code, groupSecret: created.ack.reason }))).ack).toMatchObject({ value: true, reason: 'reconnected' });
      const half = killAfter(700);
      await sendRecords(s, replay, { pace: 'instant', groupCode: code, to: half });
      await expect.poll(() => received(c)).toBe(half);
      // B applied all of it (nothing in flight through Redis when it goes: what was in flight then may have been published, and is not sent again).
      await expect.poll(() => snapshotChangeAt(code), { timeout: 20_000 }).toBe(Number(replay.records[half - 1].timestamp));
      const forwarded = async (outcome: string) => (await scrapeMetrics(c.urls.metrics!)).value('ods_cluster_forwarded_total', { outcome });
      redisProxy.cut();
      const cutAt = killAfter(half + 1);
      await sendRecords(s, replay, { pace: 'instant', groupCode: code, from: half, to: cutAt }); // C cannot hand these to Redis
      await expect.poll(() => received(c)).toBe(cutAt);
      // C knows the match is live (its directory view) but its frame cannot come: 503, not "Match not found".
      const match = await fetch(`${c.urls.rest}/match/${code}`);
      expect(match.status).toBe(503);
      expect(((await match.json()) as { error: string }).error).toMatch(/live/);
      redisProxy.restore();
      await expect.poll(() => forwarded('redelivered'), { timeout: 20_000 }).toBeGreaterThanOrEqual(cutAt - half);
      await sendRecords(s, replay, { pace: 'instant', groupCode: code, from: cutAt });
      await onB.waitFor((f) => f.roundPhase === 'game_end', 90_000).catch((err) => {
        for (const [n, node] of [['b', b], ['c', c]] as const) console.log(n, node.out.filter((l) => !l.includes('"module":"ingest"') || l.includes('warn')).slice(-40).join('\n'));
        throw err;
      });
      expect(await forwarded('dropped')).toBe(0);
      expect(logLines(b, 'match adopted from its snapshot').filter((l) => l.groupCode === code)).toEqual([]); // it stayed on B
      expect(JSON.parse(onB.raw[onB.raw.length - 1])).toEqual(JSON.parse(await expected));
    } finally {
      s.close();
    }
  }, 180_000);
  it('a map that ends while Redis does not answer: its result is recorded once Redis is back; the admin routes answer 503 meanwhile, never "not found"', async () => {
    expect((await upload(b.urls.rest, TOKEN, exampleCsv())).status).toBe(201);
    const map = withMatchId(replay, 'lookup-retry-map-1');
    const fe = await overlay(b.urls.broadcast, BO3.code);
    const { socket: s, ack } = await replayObserver(b.urls.ingest, map, {
      key: CLUSTER_KEY, groupCode: BO3.code,
      leftTeam: { name: BO3.wolves.name, tricode: 'XXX', url: '', attackStart: true }, rightTeam: { name: BO3.owls.name, tricode: 'YYY', url: '', attackStart: false },
    });
    try {
      expect(ack.value).toBe(true);
      const end = map.records.length - 40;
      await sendRecords(s, map, { pace: 'instant', groupCode: BO3.code, to: end });
      await expect.poll(async () => (await fixture(b.urls.rest, TOKEN, BO3.code))?.live !== null, { timeout: 20_000 }).toBe(true);
      redisProxy.cut();
      await sendRecords(s, map, { pace: 'instant', groupCode: BO3.code, from: end });
      await fe.waitFor((f) => f.roundPhase === 'game_end', 60_000);
      await expect.poll(() => logLines(b, 'fixture update failed (retried)').length, { timeout: 20_000 }).toBeGreaterThan(0);
      const during = await fetch(`${b.urls.rest}/admin/fixtures/${BO3.code}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(during.status).toBe(503);
      expect(((await during.json()) as { error: string }).error).toMatch(/did not answer/);
      redisProxy.restore();
      await expect.poll(async () => (await fixture(b.urls.rest, TOKEN, BO3.code))?.results.length, { timeout: 30_000 }).toBe(1);
      expect(await fixture(b.urls.rest, TOKEN, BO3.code)).toMatchObject({ wins: [0, 1], results: [{ scores: [6, 13], winner: 1 }], live: null });
      expect(logLines(b, 'fixture not updated')).toEqual([]);
    } finally {
      s.close();
    }
  }, 120_000);
});
