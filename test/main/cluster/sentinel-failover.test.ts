// Redis failover with Sentinel (README, "Running several nodes"; docs/reliability.md, "Redis
// failover"): a real redis-server primary and replica, three real redis-sentinels, three nodes
// (REDIS_SENTINELS) and 50 live matches. The primary is killed (SIGKILL) mid-match: the nodes
// follow the promoted replica by themselves; no match is lost or moves (every match keeps the one
// node that ran it, in every poll of every node's admin API, and its record in Redis keeps its
// owner and an epoch no lower than before: fencing holds across the promotion); every overlay gets
// frames again; every final frame equals a clean run's. Once the nodes follow the new primary, the
// old one comes back (the game still going on): the Sentinels make it a replica of the new one and
// it catches up. The leases are the default 10 s (REDIS_LEASE_TTL_MS), longer than the failover
// (2–5 s), as in production: at 3 s, a node the loaded test machine starved past one lease after the
// promotion lost a match to another (an adoption, which the takeover tests cover; not this test's point).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { AdminApi, TEST_ADMIN_TOKEN, type DashboardSnapshot } from '../../helpers/admin.js';
import { closeAll, connectObserver, connected, overlay, logon, type Overlay } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines } from '../../helpers/cluster.js';
import { playReplay, replayLogon, sendRecords, shortMatch, type Replay } from '../../helpers/recorded.js';
import { MASTER_NAME, startSentinelSetup, type SentinelSetup } from '../../helpers/redis-sentinel.js';
import { spawnService, type ServiceProcess } from '../../helpers/service-process.js';
import { startTestService } from '../../helpers/service.js';
import { pollUntil } from '../../helpers/waits.js';
import { decodeSnapshot } from '../../../src/main/matches/adapters/redis/snapshot-store.js';

const MATCHES = 50;
// The first 450 records and the game's end: the same game for the clean run and the 50 matches.
const replay: Replay = shortMatch(450);
const BEFORE = 150; // sent before the kill, at once (round 1's combat: every overlay has a round number)
const DURING = 400; // [BEFORE, DURING) at 20× the recorded pace (~8.5 s of a 170 s stretch): the kill falls in it
const codeOf = (i: number) => `SNT${String(i).padStart(3, '0')}`;
const REF = 'SNTREF';
const admin = new AdminApi('', TEST_ADMIN_TOKEN.slice(TEST_ADMIN_TOKEN.indexOf(':') + 1));

let setup: SentinelSetup;
let nodes: ServiceProcess[] = [];
let expectedFinal = '';

beforeAll(async () => {
  setup = await startSentinelSetup();
  const base = {
    // The host of REDIS_URL is not used with REDIS_SENTINELS (the Sentinels name the primary).
    REDIS_URL: `redis://${MASTER_NAME}`, REDIS_SENTINELS: setup.sentinelList, REDIS_SENTINEL_NAME: MASTER_NAME,
    AUTH_KEY: CLUSTER_KEY, REDIS_PROBE_INTERVAL_MS: '500', LOG_LEVEL: 'info',
    TRUST_REPLAY_TIMESTAMPS: 'true', ADMIN_TOKEN: TEST_ADMIN_TOKEN,
  };
  nodes = await Promise.all(['a', 'b', 'c'].map((n) => spawnService({ ...base, NODE_ID: `node-${n}` })));
  // The clean run: the same records in one embedded process, uninterrupted.
  const reference = await startTestService({ AUTH_KEY: 'k', TRUST_REPLAY_TIMESTAMPS: 'true' });
  try {
    const fe = await overlay(reference.broadcast, REF);
    const run = await playReplay(replay, { url: reference.ingest, key: 'k', groupCode: REF, pace: 'instant' });
    await fe.waitFor((f) => f.roundPhase === 'game_end', 60_000);
    run.socket.close();
    expectedFinal = fe.raw[fe.raw.length - 1];
  } finally {
    await reference.close();
  }
}, 90_000);
afterAll(async () => {
  closeAll();
  await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
  await setup?.stop();
});

/** Every node's admin view: for each code, the nodes that run it (shard ≥ 0) in one round of polls. */
async function localOwners(): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  await Promise.all(nodes.map(async (node, k) => {
    const res = await fetch(`${node.urls.rest}/admin/matches`, { headers: { authorization: `Bearer ${admin.token}` }, signal: AbortSignal.timeout(5000) });
    const snap = (await res.json()) as DashboardSnapshot;
    for (const row of snap.matches) if (row.shard >= 0) out.set(row.groupCode, [...(out.get(row.groupCode) ?? []), 'abc'[k]]);
  }));
  return out;
}

/** A match's record in Redis, from the primary on `port`: its owner and epoch. */
async function record(port: number, code: string): Promise<{ owner: string; epoch: number } | null> {
  const text = await setup.command(port, 'GET', `ods:match:${code}`);
  const m = /"epoch":(\d+),"owner":"([^"]+)"/.exec(text);
  return m ? { epoch: Number(m[1]), owner: m[2] } : null;
}

describe('Redis failover with Sentinel, 3 nodes, 50 live matches', () => {
  it('the primary is killed mid-match: nodes follow the new primary, no match lost or doubly owned, every overlay gets frames again, every final frame is a clean run\'s; the old primary comes back as a replica', async () => {
    const overlays: Overlay[][] = [];
    const observers: Socket[] = [];
    const join = async (i: number): Promise<Socket> => {
      const owner = nodes[i % 3];
      // An overlay on the owner's node and one on another (its frames cross Redis).
      overlays[i] = await Promise.all([overlay(owner.urls.broadcast, codeOf(i)), overlay(nodes[(i + 1) % 3].urls.broadcast, codeOf(i))]);
      const s = connectObserver(owner.urls.ingest); // the observer client's options
      await connected(s);
      expect((await logon(s, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: codeOf(i) }))).ack.value).toBe(true);
      return s;
    };
    // Ten at a time: a loaded machine answers a burst of 150 handshakes slowly.
    for (let i = 0; i < MATCHES; i += 10) observers.push(...await Promise.all(Array.from({ length: Math.min(10, MATCHES - i) }, (_, k) => join(i + k))));
    // Who owns what, polled the whole time: a code run by two nodes in one round is a double owner.
    const seen = new Map<string, Set<string>>();
    const doubles: string[] = [];
    let polling = true;
    let rounds = 0;
    const poller = pollUntil(async () => {
      if (!polling) return true;
      const owners = await localOwners().catch(() => null);
      if (owners) {
        rounds++;
        for (const [code, ns] of owners) {
          if (ns.length > 1) doubles.push(`${code}: ${ns.join('+')}`);
          const set = seen.get(code) ?? new Set<string>();
          for (const n of ns) set.add(n);
          seen.set(code, set);
        }
      }
      return false;
    }, 'the ownership poller stopping', 300_000, 100);
    try {
      await Promise.all(observers.map((s, i) => sendRecords(s, replay, { pace: 'instant', groupCode: codeOf(i), to: BEFORE })));
      for (const pair of overlays) for (const fe of pair) await fe.waitFor((f) => typeof f.roundNumber === 'number' && f.roundNumber > 0, 60_000);
      const primary = setup.servers[0];
      const epochsBefore = await Promise.all(Array.from({ length: MATCHES }, (_, i) => record(primary, codeOf(i))));
      // Each match has its owner (the node it logged on to, or, on a machine loaded enough that a lease
      // lapsed, the node that adopted it); what the failover must keep is this owner, checked below.
      expect(epochsBefore.map((r) => /^node-[abc]$/.test(r?.owner ?? ''))).toEqual(new Array(MATCHES).fill(true));
      // Every claim was acknowledged by the replica (WAIT) before its logon was.
      for (const node of nodes) expect(logLines(node, 'redis write not acknowledged by a replica in time (a failover now could undo it)')).toEqual([]);

      // Mid-match: the game goes on while the primary dies and the Sentinels promote the replica.
      const framesBefore = overlays.map((pair) => pair.map((fe) => fe.raw.length));
      const during = Promise.all(observers.map((s, i) => sendRecords(s, replay, { pace: 20, groupCode: codeOf(i), from: BEFORE, to: DURING })));
      // The kill comes once every overlay has a frame of this stretch (the game is going on
      // everywhere), while the rest of it (~8.5 s at this pace) is still being sent.
      await expect.poll(() => overlays.every((pair, i) => pair.every((fe, k) => fe.raw.length > framesBefore[i][k])), { timeout: 30_000 }).toBe(true);
      const framesAtKill = overlays.map((pair) => pair.map((fe) => fe.raw.length));
      const killedAt = Date.now();
      await setup.kill(0);
      await expect.poll(() => setup.primaryPort(), { timeout: 30_000, interval: 200 }).toBe(setup.servers[1]);
      // Every node finds the new primary by itself.
      try {
        for (const node of nodes) {
          await expect.poll(async () => ((await (await fetch(`${node.urls.rest}/status`)).json()) as { redis: string }).redis, { timeout: 30_000 }).toBe('up');
        }
        console.log(`failover: the primary killed; ${Date.now() - killedAt} ms later every node was up on the new primary`);
      } catch (err) {
        for (const node of nodes) console.log(node.out.filter((l) => /"module":"redis/.test(l)).slice(-40).join('\n'));
        throw err;
      }
      // The old primary comes back (empty, no persistence) while the game goes on: the Sentinels make
      // it a replica of the new one (a few seconds later; checked at the end).
      await setup.restart(0);
      await during;
      // The records on the new primary keep their owner, with an epoch no lower than before the failover
      // (a lease renewal or two later: a renewal that finds a record without its lease takes the lease again).
      const keptOwner = async () => (await Promise.all(Array.from({ length: MATCHES }, (_, i) => record(setup.servers[1], codeOf(i)))))
        .flatMap((r, i) => (r?.owner === epochsBefore[i]!.owner && r.epoch >= epochsBefore[i]!.epoch ? [] : [`${codeOf(i)}: ${JSON.stringify(r)}`]));
      await expect.poll(keptOwner, { timeout: 30_000, interval: 250 }).toEqual([]);
      const after = await Promise.all(Array.from({ length: MATCHES }, (_, i) => record(setup.servers[1], codeOf(i))));
      after.forEach((r, i) => {
        expect(r?.owner, codeOf(i)).toBe(epochsBefore[i]!.owner);
        expect(r!.epoch, codeOf(i)).toBeGreaterThanOrEqual(epochsBefore[i]!.epoch);
      });
      // Every match's snapshot on the new primary is readable (a takeover could start from it): the
      // first put after the outage wrote a new base, never a delta against a base the replica may lack.
      const redis = new Redis({ port: setup.servers[1], host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      try {
        for (let i = 0; i < MATCHES; i++) {
          const [data, base] = await redis.hmgetBuffer(`ods:snap:${codeOf(i)}`, 'data', 'base');
          expect((JSON.parse(decodeSnapshot(data!, base)) as { groupCode: string }).groupCode, codeOf(i)).toBe(codeOf(i));
        }
      } finally {
        redis.disconnect();
      }
      await Promise.all(observers.map((s, i) => sendRecords(s, replay, { pace: 'instant', groupCode: codeOf(i), from: DURING })));
      for (const pair of overlays) for (const fe of pair) await fe.waitFor((f) => f.roundPhase === 'game_end', 60_000);

      // Every overlay got frames after the kill, and ends on the clean run's final frame.
      overlays.forEach((pair, i) => pair.forEach((fe, k) => {
        expect(fe.raw.length, `${codeOf(i)} overlay ${k}`).toBeGreaterThan(framesAtKill[i][k]);
        expect(fe.raw[fe.raw.length - 1].replaceAll(codeOf(i), REF), `${codeOf(i)} overlay ${k}`).toBe(expectedFinal);
      }));
      // No match changed hands, and none had two owners in any poll round.
      polling = false;
      await poller;
      expect(rounds).toBeGreaterThan(10);
      expect(doubles).toEqual([]);
      for (let i = 0; i < MATCHES; i++) expect([...(seen.get(codeOf(i)) ?? [])], codeOf(i)).toEqual(['abc'[i % 3]]);
      for (const node of nodes) {
        expect(logLines(node, 'match adopted from its snapshot')).toEqual([]);
        expect(logLines(node, 'match lease lost to another node')).toEqual([]);
      }
      // A new match after the failover is claimed on the new primary.
      const late = connectObserver(nodes[2].urls.ingest);
      await connected(late);
      expect((await logon(late, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: 'SNTNEW' }))).ack.value).toBe(true);
      expect((await record(setup.servers[1], 'SNTNEW'))?.owner).toBe('node-c');
      late.close();

      // The old primary, back since the nodes followed the new one, is a replica of the new primary and caught up.
      await expect.poll(async () => {
        const r = await setup.replication(setup.servers[0]);
        return `${r.role} ${r.master_port} ${r.master_link_status}`;
      }, { timeout: 40_000, interval: 250 }).toBe(`slave ${setup.servers[1]} up`);
      expect(await setup.primaryPort()).toBe(setup.servers[1]);
      await expect.poll(() => record(setup.servers[0], 'SNTNEW'), { timeout: 10_000 }).toMatchObject({ owner: 'node-c' });
    } finally {
      polling = false;
      await poller;
      for (const s of observers) s.close();
    }
  }, 150_000);
});
