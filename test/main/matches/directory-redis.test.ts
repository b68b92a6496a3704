// The Redis MatchDirectory and MatchOwnership (matches/adapters/redis/match-directory.ts, match-ownership.ts)
// against a real redis-server: both contracts, then two nodes sharing one directory (views, races,
// admission across nodes, messages lost, Redis restarted empty or down for a while).
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/redis/connection.js';
import { RedisMatchDirectory } from '../../../src/main/matches/adapters/redis/match-directory.js';
import { RedisMatchOwnership } from '../../../src/main/matches/adapters/redis/match-ownership.js';
import type { NewMatch } from '../../../src/main/matches/match-directory.js';
import { describeMatchDirectoryContract } from './match-directory.contract.js';
import { RedisEventOutbox } from '../../../src/main/events/adapters/redis/event-outbox.js';
import { describeMatchOwnershipContract } from './match-ownership.contract.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { sleep } from '../../helpers/waits.js';

const log = pino({ level: 'silent' });
let server: RedisServer;
interface Node { dir: RedisMatchDirectory; own: RedisMatchOwnership; conn: RedisConnection }
const opened: Node[] = [];

beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => {
  for (const { dir, own, conn } of opened.splice(0)) { own.close(); dir.close(); conn.close(); }
  await server?.stop();
});

async function node(prefix: string, nodeId: string, options: { leaseTtlMs?: number; renewIntervalMs?: number } = {}): Promise<Node> {
  const conn = await RedisConnection.open({ url: server.url, prefix, nodeId, timeoutMs: 2000, probeIntervalMs: 200, log });
  const leaseTtlMs = options.leaseTtlMs ?? 2000;
  const dir = await RedisMatchDirectory.open(conn, { leaseTtlMs, log });
  const own = new RedisMatchOwnership(conn, dir, { leaseTtlMs, renewIntervalMs: options.renewIntervalMs, log });
  const n = { dir, own, conn };
  opened.push(n);
  return n;
}

/** The node "dies": no more renewals, no more messages (the connection stays for the test's end). */
const stop = (n: Node) => { n.own.close(); n.dir.close(); };

const match = (groupCode: string, keyId = 'key:a'): NewMatch => ({
  groupCode, secretDigest: 'ab'.repeat(32), organizationId: 'org', isSupporter: false, keyId, createdAt: 1700000000000,
  teams: { leftTeam: { name: 'L', players: [] }, rightTeam: { name: 'R', tags: {} } },
});

let current: RedisMatchDirectory | undefined;
describeMatchDirectoryContract('redis', {
  make: async () => (current = (await node(`c${randomUUID().slice(0, 8)}:`, 'solo', { leaseTtlMs: 30_000 })).dir),
  settle: () => current!.caughtUp(),
});

// Nodes as the ownership contract sees them (a node's directory and ownership).
// They stop after each test (no renewals left running while later tests restart Redis).
const contractNodes: Node[] = [];
afterEach(() => { for (const n of contractNodes.splice(0)) stop(n); });
const asPort = (n: Node) => { contractNodes.push(n); return { directory: n.dir, ownership: n.own, node: n }; };
type PortNode = ReturnType<typeof asPort>;
let ownershipPrefix = '';
describeMatchOwnershipContract('redis', {
  pair: async (options = {}) => {
    ownershipPrefix = `o${randomUUID().slice(0, 8)}:`;
    const a = await node(ownershipPrefix, 'A', options.pausedA ? { renewIntervalMs: 3_600_000 } : {});
    return [asPort(a), asPort(await node(ownershipPrefix, 'B'))];
  },
  join: async () => asPort(await node(ownershipPrefix, `C${randomUUID().slice(0, 4)}`)),
  stop: (n) => stop((n as PortNode).node),
  renew: (n) => (n as PortNode).node.own.renew(),
  settle: (n) => (n as PortNode).node.dir.caughtUp(),
  lapseMs: 20_000,
  outbox: (n) => new RedisEventOutbox((n as PortNode).node.conn, { retentionMs: 60_000 }),
});

describe('RedisMatchDirectory: two nodes', () => {
  let prefix: string;
  let a: RedisMatchDirectory;
  let b: RedisMatchDirectory;
  let ownA: RedisMatchOwnership;
  let ownB: RedisMatchOwnership;
  let nodes: Node[] = [];
  const raw = (...args: string[]) => server.command(...args);

  afterEach(() => { for (const n of nodes.splice(0)) stop(n); });

  async function pair() {
    prefix = `x${randomUUID().slice(0, 8)}:`;
    nodes = [await node(prefix, 'A'), await node(prefix, 'B')];
    [{ dir: a, own: ownA }, { dir: b, own: ownB }] = nodes;
  }

  it('a claim on A appears in B\'s view, with its match id, roster, digest and owner', async () => {
    await pair();
    const claim = await a.claim(match('V1'));
    if (!claim.ok) throw new Error('refused');
    a.setMatchId('V1', 'game-1');
    a.setRoster('V1', ['p1', 'p2']);
    expect(a.setSecretDigest('V1', 'cd'.repeat(32))).toBe(true);
    // A's own view shows them at once.
    expect(a.groupsForMatchId('game-1')).toEqual(new Set(['V1']));
    expect(a.hasPlayer('game-1', 'p2')).toBe(true);
    await expect.poll(() => b.hasPlayer('game-1', 'p2')).toBe(true);
    expect(b.count()).toBe(1);
    expect(b.countForKey('key:a')).toBe(1);
    expect(b.get('V1')).toMatchObject({ groupCode: 'V1', epoch: claim.record.epoch, secretDigest: 'cd'.repeat(32), matchId: 'game-1', organizationId: 'org', createdAt: 1700000000000, teams: match('V1').teams });
    expect([...(b.groupsForMatchId('game-1') ?? [])]).toEqual(['V1']);
    expect(ownB.ownerOf('V1')).toBe('A');
    expect(ownA.owns('V1')).toBe(true);
    expect(ownB.owns('V1')).toBe(false);
    // A third node starting now loads the same view.
    const third = await node(prefix, 'C');
    const c = third.dir;
    expect(c.get('V1')).toMatchObject({ matchId: 'game-1', secretDigest: 'cd'.repeat(32), epoch: claim.record.epoch });
    expect(c.hasPlayer('game-1', 'p1')).toBe(true);
    // The stored record is the JSON the brief names (owner, epoch, playerIds as an array).
    const stored = JSON.parse((await raw('GET', `${prefix}match:V1`)).split('\r\n')[1]);
    expect(stored).toMatchObject({ epoch: claim.record.epoch, owner: 'A', playerIds: ['p1', 'p2'], base: { groupCode: 'V1', teams: match('V1').teams } });
    // A release on A leaves every view.
    expect(a.release('V1', claim.record.epoch)?.groupCode).toBe('V1');
    expect(a.get('V1')).toBeUndefined();
    await expect.poll(() => b.get('V1')).toBeUndefined();
    await expect.poll(() => c.count()).toBe(0);
    expect(b.groupsForMatchId('game-1')).toBeUndefined();
    expect(ownA.owns('V1')).toBe(false);
    stop(third);
  });

  it('a quick series of local writes is never undone in the writer\'s view by its own echoes', async () => {
    await pair();
    const claim = await a.claim(match('W1'));
    if (!claim.ok) throw new Error('refused');
    const seen: string[] = [];
    for (let i = 0; i < 50; i++) {
      a.setMatchId('W1', `g${i}`);
      seen.push(a.get('W1')!.matchId);
      await new Promise((r) => setImmediate(r));
      expect(a.get('W1')!.matchId).toBe(`g${i}`);
    }
    await a.caughtUp();
    await b.caughtUp();
    expect(a.get('W1')!.matchId).toBe('g49');
    expect(b.get('W1')!.matchId).toBe('g49');
    expect([...(a.groupsForMatchId('g49') ?? [])]).toEqual(['W1']);
    expect(a.groupsForMatchId('g48')).toBeUndefined();
  });

  it('20 concurrent claims of one new code from A and B: exactly one wins', async () => {
    await pair();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claim(match('RACE'))));
    const won = results.filter((r) => r.ok);
    expect(won).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === 'taken')).toHaveLength(19);
    for (const r of results) if (!r.ok && r.reason === 'taken') expect(r.record.epoch).toBe(won[0].ok && won[0].record.epoch);
    await a.caughtUp();
    await b.caughtUp();
    expect(a.count()).toBe(1);
    expect(b.count()).toBe(1);
    expect(a.countForKey('key:a')).toBe(1);
    expect(Number(ownA.owns('RACE')) + Number(ownB.owns('RACE'))).toBe(1);
  });

  it('admission caps hold across both nodes', async () => {
    await pair();
    const limits = { limits: { maxLive: 3, maxPerKey: 2 } };
    expect((await a.claim(match('K1', 'key:a'), limits)).ok).toBe(true);
    expect((await b.claim(match('K2', 'key:a'), limits)).ok).toBe(true);
    expect(await a.claim(match('K3', 'key:a'), limits)).toEqual({ ok: false, reason: 'key_capacity' });
    expect(await b.claim(match('K3', 'key:a'), limits)).toEqual({ ok: false, reason: 'key_capacity' });
    expect((await b.claim(match('K4', 'key:b'), limits)).ok).toBe(true);
    expect(await a.claim(match('K5', 'key:c'), limits)).toEqual({ ok: false, reason: 'capacity' });
    // Concurrent claims at the edge: of 10 codes for one free place, one gets in.
    const k2 = b.get('K2')!;
    b.release('K2', k2.epoch);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claim(match(`E${i}`, `key:${i}`), limits)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === 'capacity')).toHaveLength(9);
    await a.caughtUp();
    await b.caughtUp();
    expect(a.count()).toBe(3);
    expect(b.count()).toBe(3);
    expect(b.countForKey('key:a')).toBe(1);
  });

  it('a node frozen past its lease, waking after its match was adopted and ended elsewhere, is told it lost the match: it does not re-assert it', async () => {
    prefix = `x${randomUUID().slice(0, 8)}:`;
    // A renews only when the test says (its timer every hour): frozen between its renewals.
    nodes = [await node(prefix, 'A', { renewIntervalMs: 3_600_000 }), await node(prefix, 'B')];
    [{ dir: a, own: ownA }, { dir: b, own: ownB }] = nodes;
    const lost: number[] = [];
    const reasserted: number[] = [];
    ownA.onLost((_code, epoch) => lost.push(epoch));
    ownA.onReasserted((r) => reasserted.push(r.epoch));
    const claim = await a.claim(match('Z1'));
    if (!claim.ok) throw new Error('refused');
    await expect.poll(() => ownB.orphans(), { timeout: 10_000 }).toEqual(['Z1']); // A's lease lapsed
    const adopted = await ownB.adopt('Z1', claim.record.epoch);
    expect(adopted?.epoch).toBeGreaterThan(claim.record.epoch);
    expect(b.release('Z1', adopted!.epoch)).toBeDefined(); // the match ends on B
    await expect.poll(() => raw('EXISTS', `${prefix}match:Z1`)).toBe(':0\r\n');
    expect((await raw('GET', `${prefix}ended:Z1`)).split('\r\n')[1]).toBe(String(adopted!.epoch));
    await ownA.renew(); // A wakes up: no lease, no record, but the code ended at a later epoch
    expect(lost).toEqual([claim.record.epoch]);
    expect(reasserted).toEqual([]);
    expect(ownA.owns('Z1')).toBe(false);
    expect(await raw('EXISTS', `${prefix}match:Z1`)).toBe(':0\r\n');
  });

  it('Redis restarted empty: A re-asserts its matches with higher epochs and B sees them again', async () => {
    await pair();
    const reasserted: number[] = [];
    ownA.onReasserted((r) => reasserted.push(r.epoch));
    const claim = await a.claim(match('R1'));
    if (!claim.ok) throw new Error('refused');
    a.setMatchId('R1', 'game-r');
    a.setRoster('R1', ['pr']);
    await expect.poll(() => b.hasPlayer('game-r', 'pr')).toBe(true);
    await server.restart();
    await expect.poll(() => reasserted.length, { timeout: 20_000 }).toBe(1);
    expect(reasserted[0]).toBeGreaterThan(claim.record.epoch);
    expect(ownA.owns('R1')).toBe(true);
    await expect.poll(() => b.get('R1')?.epoch, { timeout: 20_000 }).toBe(reasserted[0]);
    expect(b.hasPlayer('game-r', 'pr')).toBe(true);
    expect(b.count()).toBe(1);
    expect(b.countForKey('key:a')).toBe(1);
    expect(a.get('R1')?.epoch).toBe(reasserted[0]);
    // The counts in Redis are back too: a capped claim sees the re-asserted match. B may have
    // seen the re-assertion on its subscriber before its command connection is back (each
    // reconnects on its own), and a claim while it is not ready is refused by ioredis: wait for it.
    await expect.poll(() => nodes[1].conn.up, { timeout: 20_000 }).toBe(true);
    expect(await b.claim(match('R2', 'key:a'), { limits: { maxLive: 1, maxPerKey: 5 } })).toEqual({ ok: false, reason: 'capacity' });
    expect(await raw('GET', `${prefix}lease:R1`)).toContain(`A ${reasserted[0]}`);
  });

  it('after a Redis outage a node adopts nothing for one lease TTL: the owner re-takes a lease Redis lost (a failover to a replica that missed a renewal)', async () => {
    await pair();
    const claim = await a.claim(match('H1'));
    if (!claim.ok) throw new Error('refused');
    const flips: boolean[] = [];
    nodes[1].conn.onStatus((up) => flips.push(up));
    // Every connection cut (as when the primary dies); both nodes reconnect to the same Redis.
    await raw('CLIENT', 'KILL', 'TYPE', 'normal');
    await raw('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await expect.poll(() => flips.at(-1) === true && flips.includes(false), { timeout: 20_000 }).toBe(true);
    // The promoted replica's view: the record without its lease.
    await raw('DEL', `${prefix}lease:H1`);
    expect(await ownB.orphans()).toEqual([]);
    expect(await ownB.adopt('H1', claim.record.epoch)).toBeUndefined();
    // A's next renewal takes the lease again (the record is still its epoch's); B never got it.
    await expect.poll(() => raw('GET', `${prefix}lease:H1`), { timeout: 10_000 }).toContain(`A ${claim.record.epoch}`);
    // Past B's hold (one lease TTL on B's own clock after it reconnected): the hold ends with no event.
    await sleep(2100);
    expect(await ownB.adopt('H1', claim.record.epoch)).toBeUndefined(); // the lease is live
    expect(ownA.owns('H1')).toBe(true);
    expect(b.get('H1')?.epoch).toBe(claim.record.epoch);
  });

  it('messages lost while the subscribers were disconnected: the views reload when Redis is reachable again', async () => {
    await pair();
    const claim = await a.claim(match('O1'));
    if (!claim.ok) throw new Error('refused');
    await b.caughtUp();
    expect(b.get('O1')).toBeDefined();
    await raw('CLIENT', 'KILL', 'TYPE', 'pubsub'); // both nodes' subscribers: their messages are lost meanwhile
    a.setMatchId('O1', 'while-away');
    const c2 = await a.claim(match('O2'));
    expect(c2.ok).toBe(true);
    await expect.poll(() => b.get('O1')?.matchId).toBe('while-away');
    await expect.poll(() => b.get('O2')).toBeDefined();
    // A's own write is settled by the reload: a later change from B shows in A's view.
    await expect.poll(() => a.get('O2')).toBeDefined();
    await a.caughtUp();
    expect(b.setSecretDigest('O1', 'ee'.repeat(32))).toBe(true);
    await expect.poll(() => a.get('O1')?.secretDigest).toBe('ee'.repeat(32));
    expect(a.get('O1')?.matchId).toBe('while-away');
  });

  it('Redis down for a while: renewals fail and the node keeps its matches; written again when it is back (empty)', async () => {
    await pair();
    const reasserted: string[] = [];
    ownA.onReasserted((r) => reasserted.push(r.groupCode));
    const lost: string[] = [];
    ownA.onLost((code) => lost.push(code));
    const claim = await a.claim(match('T1'));
    if (!claim.ok) throw new Error('refused');
    await server.stop();
    a.setRoster('T1', ['down-1']); // the write fails: kept in the view
    expect(a.hasPlayer('', 'down-1')).toBe(false);
    await ownA.renew(); // fails: logged, nothing lost
    expect(ownA.owns('T1')).toBe(true);
    expect(a.get('T1')?.playerIds).toEqual(new Set(['down-1']));
    // A lease TTL's worth of renewals (the timer's, every third of it), all failing: time passing
    // does nothing else to a node's ownership, so they are run here rather than waited for.
    for (let i = 0; i < 4; i++) await ownA.renew();
    expect(ownA.owns('T1')).toBe(true);
    await server.start();
    await expect.poll(() => reasserted, { timeout: 20_000 }).toEqual(['T1']);
    expect(lost).toEqual([]);
    await expect.poll(() => b.get('T1')?.playerIds, { timeout: 20_000 }).toEqual(new Set(['down-1']));
    expect(b.get('T1')!.epoch).toBeGreaterThan(claim.record.epoch);
  });
});
