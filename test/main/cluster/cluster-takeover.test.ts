// Scale-out: the loss of a node (`kill -9`) mid-match, and Redis restarted mid-match
// (docs/architecture.md, "Scale-out on Redis"; README, "Running several nodes").
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { cleanFinalFrame } from '../../helpers/clean-run.js';
import { closeAll, connectObserver, connected, overlay, logon } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines, startCluster, type Cluster } from '../../helpers/cluster.js';
import { FailoverProxy } from '../../helpers/failover-proxy.js';
import { scrapeMetrics } from '../../helpers/metrics.js';
import { playReplay, recordedMatch, replayLogon, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { decodeSnapshot } from '../../../src/main/matches/adapters/redis/snapshot-store.js';
import { atPace } from '../../helpers/waits.js';

const replay = recordedMatch();
/**
 * Every node: the recording's own timestamps, and no per-socket ingestion budget in the way (at the
 * default 200 messages/s one socket takes ~14 s to send the match; the budget is not what these
 * scenarios are about, and the backlog it fills is tested on its own).
 */
const FAST = { TRUST_REPLAY_TIMESTAMPS: 'true', INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000' };

let reference: TestService;
/** The final frame of the file's one uninterrupted run of the recording, for a group code. */
const cleanFinal = cleanFinalFrame(() => reference, replay);

beforeAll(async () => {
  reference = await startTestService({ AUTH_KEY: 'k', TRUST_REPLAY_TIMESTAMPS: 'true' });
});
afterAll(async () => {
  closeAll();
  await reference?.close();
});

/** The record index after which a state-changing record (a kill) was the last one sent. */
function killAfter(from: number): number {
  for (let i = from; i < replay.records.length; i++) if (replay.records[i].type === 'killfeed') return i + 1;
  throw new Error('no killfeed record');
}

/** The lastChangeAt in the match's snapshot in Redis (-1 when there is none; stored deflated, most as a delta against a base, since issue 20). */
async function snapshotChangeAt(cluster: Cluster, groupCode: string): Promise<number> {
  const redis = new Redis(cluster.redis.socketPath, { maxRetriesPerRequest: 1 });
  try {
    const [data, base] = await redis.hmgetBuffer(`ods:snap:${groupCode}`, 'data', 'base');
    const m = data ? /lastChangeAt\\*":(\d+)/.exec(decodeSnapshot(data, base)) : null;
    return m ? Number(m[1]) : -1;
  } finally {
    redis.disconnect();
  }
}

// A node lost mid-match, killed or stopped: one cluster of two nodes (A runs the match, B takes it
// over), the survivor B serving both cases (one node start fewer).
describe('the node that runs a match lost mid-match', () => {
  let cluster: Cluster;
  beforeAll(async () => { cluster = await startCluster(2, { ...FAST, SNAPSHOT_INTERVAL_MS: '200' }); }, 60_000);
  afterAll(async () => { await cluster?.stop(); });

  describe('the loss of the node that runs a match (kill -9)', () => {
    it('the observer continues on another node with its session; that node takes the match over from its snapshot; the match ends as an uninterrupted run', async () => {
      const [a, b] = cluster.nodes;
      const code = 'KILL01';
      const expected = cleanFinal(code);
      const proxy = new FailoverProxy([a.ports.ingest, b.ports.ingest]);
      const url = await proxy.start();
      const onB = await overlay(b.urls.broadcast, code);
      // The observer client's options (docs/client-contract.md 1.3), through the "balancer".
      const s = connectObserver(url);
      const outgoing: string[] = [];
      s.onAnyOutgoing((event: string) => outgoing.push(event));
      try {
        await connected(s);
        expect((await logon(s, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code }))).ack.value).toBe(true);
        await expect.poll(() => s.io.engine.transport.name).toBe('websocket');
        const half = killAfter(900);
        await sendRecords(s, replay, { pace: 'instant', groupCode: code, to: half });
        // Everything sent so far is in the snapshot in Redis: the kill then loses nothing (the
        // documented loss is what the owner applied after its last snapshot).
        const lastTs = Number(replay.records[half - 1].timestamp);
        await expect.poll(() => snapshotChangeAt(cluster, code), { timeout: 20_000 }).toBe(lastTs);
        const framesBefore = onB.raw.length;

        const killedAt = Date.now();
        const down = new Promise<string>((resolve) => s.once('disconnect', (reason: string) => resolve(reason)));
        a.proc.kill('SIGKILL');
        await a.exited;
        // What a client writes into a connection as it dies is lost (no acknowledgements on obs_data,
        // docs/client-contract.md 1.5): the game goes on once the client saw the drop, so it buffers
        // while it reconnects (through the proxy, to node B).
        expect(await down).toBe('transport close');
        let sent = half;
        await atPace(20, () => sent < replay.records.length, async () => {
          await sendRecords(s, replay, { pace: 'instant', groupCode: code, from: sent, to: Math.min(sent + 20, replay.records.length) });
          sent = Math.min(sent + 20, replay.records.length);
        });
        await onB.waitFor((f) => f.roundPhase === 'game_end', 90_000);
        const firstAfter = onB.raw.length > framesBefore ? 'yes' : 'no';
        const adopted = logLines(b, 'match adopted from its snapshot');
        expect(adopted.map((l) => l.groupCode)).toEqual([code]);
        console.log(`takeover: node B adopted ${code}; first frame from the new owner ${firstAfter}; ${Date.now() - killedAt} ms from the kill to the game end on B`);
        const final = onB.raw[onB.raw.length - 1];
        expect(JSON.parse(final)).toEqual(JSON.parse(await expected));
        expect(final).toBe(await expected);
        expect(outgoing.filter((e) => e === 'obs_logon')).toHaveLength(1); // resumed, never logged on again
        expect(logLines(b, 'session resumed').length).toBeGreaterThan(0);
      } finally {
        s.close();
        await proxy.close();
      }
    }, 180_000);
  });

  describe('a node stopped gracefully (SIGTERM) mid-match', () => {
    it('hands its matches over: the other node adopts them from the last snapshot, the observer resumes there, nothing is lost', async () => {
      // The node stopped is one more, with a long lease (the handover must not wait for it to lapse)
      // and the default snapshot interval (what B adopts is the snapshot the stop writes); the other
      // is B, the survivor of the case above. Its first node is gone (killed there; here, when this
      // case runs alone), so that B is the only node to hand the match to.
      await cluster.nodes[0].stop('SIGKILL');
      const a = await cluster.addNode({ REDIS_LEASE_TTL_MS: '60000', SNAPSHOT_INTERVAL_MS: '1000' });
      const b = cluster.nodes[1];
      const code = 'TERM01';
      const expected = cleanFinal(code);
      const proxy = new FailoverProxy([a.ports.ingest, b.ports.ingest]);
      const url = await proxy.start();
      const onB = await overlay(b.urls.broadcast, code);
      const s = connectObserver(url);
      try {
        await connected(s);
        expect((await logon(s, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code }))).ack.value).toBe(true);
        await expect.poll(() => s.io.engine.transport.name).toBe('websocket');
        const half = killAfter(700);
        await sendRecords(s, replay, { pace: 'instant', groupCode: code, to: half });
        // Stopped once it received what was sent (what is on the wire as a process closes its sockets is the client's to lose).
        await expect.poll(async () => (await scrapeMetrics(a.urls.metrics!)).value('ods_messages_received_total', { event: 'obs_data' })).toBe(half);
        const down = new Promise<string>((resolve) => s.once('disconnect', (reason: string) => resolve(reason)));
        const stopped = a.stop('SIGTERM');
        await down;
        expect(await stopped).toBe(0);
        expect(logLines(a, 'matches handed over to the other nodes').map((l) => l.matches)).toEqual([1]);
        await sendRecords(s, replay, { pace: 'instant', groupCode: code, from: half });
        await onB.waitFor((f) => f.roundPhase === 'game_end', 60_000);
        expect(logLines(b, 'match adopted from its snapshot').filter((l) => l.groupCode === code)).toHaveLength(1);
        expect(JSON.parse(onB.raw[onB.raw.length - 1])).toEqual(JSON.parse(await expected));
        expect(onB.raw[onB.raw.length - 1]).toBe(await expected);
      } finally {
        s.close();
        await proxy.close();
      }
    }, 120_000);
  });
});

describe('Redis restarted mid-match', () => {
  let cluster: Cluster;
  beforeAll(async () => { cluster = await startCluster(2, FAST); }, 60_000);
  afterAll(async () => { await cluster?.stop(); });

  it('the match goes on and ends correctly on both nodes; a logon while Redis is down gets the documented refusal', async () => {
    const [a, b] = cluster.nodes;
    const code = 'RDSRST';
    const expected = cleanFinal(code);
    const onA = await overlay(a.urls.broadcast, code);
    const onB = await overlay(b.urls.broadcast, code);
    // On a failure: how far each node's overlay got, and what each node logged above info.
    onTestFailed(() => {
      const phases = (o: typeof onA) => o.frames.map((f) => `${String(f.roundNumber)}:${String(f.roundPhase)}`).join(' ');
      console.log(`overlay on A: ${onA.frames.length} frames (${phases(onA)})\noverlay on B: ${onB.frames.length} frames (${phases(onB)})`);
      for (const [name, node] of [['A', a], ['B', b]] as const) console.log(`node ${name}:\n${node.out.filter((l) => /"level":(40|50|60)|stderr/.test(l)).join('\n')}`);
    });
    const run = await playReplay(replay, { url: a.urls.ingest, key: CLUSTER_KEY, groupCode: code, pace: 'instant', to: 800 });
    try {
      await cluster.redis.stop();
      const statusOf = async () => ((await (await fetch(`${a.urls.rest}/status`)).json()) as { redis: string }).redis;
      await expect.poll(statusOf).toBe('unreachable');
      // The owner keeps its match and its own overlays fed while Redis is down.
      await sendRecords(run.socket, replay, { pace: 'instant', groupCode: code, from: 800, to: 1000 });
      const s = connectObserver(b.urls.ingest);
      await connected(s);
      const refused = await logon(s, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: 'DOWN01' }));
      expect(refused.ack).toMatchObject({ value: false, reason: 'The server cannot reach its shared store right now. Try again in a moment.' });
      s.close();
      await cluster.redis.start();
      await expect.poll(statusOf, { timeout: 20_000 }).toBe('up');
      await sendRecords(run.socket, replay, { pace: 'instant', groupCode: code, from: 1000 });
      await onA.waitFor((f) => f.roundPhase === 'game_end', 60_000);
      await onB.waitFor((f) => f.roundPhase === 'game_end', 60_000);
      const final = onA.raw[onA.raw.length - 1];
      expect(final).toBe(await expected);
      await expect.poll(() => onB.raw[onB.raw.length - 1]).toBe(final);
    } finally {
      run.socket.close();
    }
  }, 180_000);
});
