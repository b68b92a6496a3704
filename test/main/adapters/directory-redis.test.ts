// The Redis MatchDirectory/MatchOwnership (adapters/redis/match-directory.ts) against a real
// redis-server: the MatchDirectory contract, then two nodes sharing one directory (views, races,
// admission across nodes, lease expiry and adoption, a lost lease, Redis restarted empty).
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/adapters/redis/connection.js';
import { RedisMatchDirectory } from '../../../src/main/adapters/redis/match-directory.js';
import type { NewMatch } from '../../../src/main/ports/match-directory.js';
import { describeMatchDirectoryContract } from '../ports/match-directory.contract.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

const log = pino({ level: 'silent' });
let server: RedisServer;
const opened: Array<{ dir: RedisMatchDirectory; conn: RedisConnection }> = [];

beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => {
  for (const { dir, conn } of opened.splice(0)) { dir.close(); conn.close(); }
  await server?.stop();
});

async function node(prefix: string, nodeId: string, options: { leaseTtlMs?: number; renewIntervalMs?: number } = {}) {
  const conn = await RedisConnection.open({ url: server.url, prefix, nodeId, timeoutMs: 2000, probeIntervalMs: 200, log });
  const dir = await RedisMatchDirectory.open(conn, { leaseTtlMs: options.leaseTtlMs ?? 2000, renewIntervalMs: options.renewIntervalMs, log });
  opened.push({ dir, conn });
  return { dir, conn };
}

const match = (groupCode: string, keyId = 'key:a'): NewMatch => ({
  groupCode, secretDigest: 'ab'.repeat(32), organizationId: 'org', isSupporter: false, keyId, createdAt: 1700000000000,
  teams: { leftTeam: { name: 'L', players: [] }, rightTeam: { name: 'R', tags: {} } },
});

let current: RedisMatchDirectory | undefined;
describeMatchDirectoryContract('redis', {
  make: async () => (current = (await node(`c${randomUUID().slice(0, 8)}:`, 'solo', { leaseTtlMs: 30_000 })).dir),
  settle: () => current!.caughtUp(),
});

describe('RedisMatchDirectory: two nodes', () => {
  let prefix: string;
  let a: RedisMatchDirectory;
  let b: RedisMatchDirectory;
  const raw = (...args: string[]) => server.command(...args);

  afterEach(() => { a?.close(); b?.close(); });

  async function pair(optionsA: { renewIntervalMs?: number } = {}) {
    prefix = `x${randomUUID().slice(0, 8)}:`;
    a = (await node(prefix, 'A', optionsA)).dir;
    b = (await node(prefix, 'B')).dir;
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
    expect(b.ownerOf('V1')).toBe('A');
    expect(a.owns('V1')).toBe(true);
    expect(b.owns('V1')).toBe(false);
    // A third node starting now loads the same view.
    const c = (await node(prefix, 'C')).dir;
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
    expect(a.owns('V1')).toBe(false);
    c.close();
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
    expect(Number(a.owns('RACE')) + Number(b.owns('RACE'))).toBe(1);
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

  it('a node that stops renewing: its match becomes an orphan, adopted once with a higher epoch; its stale release changes nothing', async () => {
    await pair();
    const claim = await a.claim(match('D1'));
    if (!claim.ok) throw new Error('refused');
    a.setRoster('D1', ['p9']);
    await a.caughtUp();
    expect(await b.orphans()).toEqual([]);
    a.close(); // A "dies": no more renewals
    await expect.poll(() => b.orphans(), { timeout: 20_000 }).toEqual(['D1']);
    const [first, second] = await Promise.all([b.adopt('D1', claim.record.epoch), b.adopt('D1', claim.record.epoch)]);
    const adopted = first ?? second;
    expect(Number(first !== undefined) + Number(second !== undefined)).toBe(1);
    expect(adopted?.epoch).toBeGreaterThan(claim.record.epoch);
    expect(adopted?.playerIds).toEqual(new Set(['p9']));
    expect(await b.adopt('D1', claim.record.epoch)).toBeUndefined();
    expect(b.owns('D1')).toBe(true);
    expect(b.ownerOf('D1')).toBe('B');
    expect(await b.orphans()).toEqual([]);
    // A's stale writes and release (its view still has the old epoch) change nothing in Redis.
    a.setMatchId('D1', 'stale');
    expect(a.get('D1')?.epoch).toBe(claim.record.epoch);
    expect(a.release('D1', claim.record.epoch)).toBeDefined();
    await b.caughtUp();
    expect(b.get('D1')?.matchId).toBe('');
    expect(JSON.parse((await raw('GET', `${prefix}match:D1`)).split('\r\n')[1])).toMatchObject({ matchId: '', epoch: adopted!.epoch, owner: 'B' });
    expect(b.get('D1')?.epoch).toBe(adopted!.epoch);
    expect(await raw('EXISTS', `${prefix}match:D1`)).toBe(':1\r\n');
    expect(await raw('SISMEMBER', `${prefix}matches`, 'D1')).toBe(':1\r\n');
    expect(await raw('GET', `${prefix}perkey:key:a`)).toBe('$1\r\n1\r\n');
    // B keeps renewing it: still no orphan after more than a TTL.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await b.orphans()).toEqual([]);
    expect((await raw('GET', `${prefix}lease:D1`))).toContain(`B ${adopted!.epoch}`);
  });

  it('adopt takes an epoch above `after` and refuses a live lease or a missing record', async () => {
    await pair();
    const claim = await a.claim(match('F1'));
    if (!claim.ok) throw new Error('refused');
    expect(await b.adopt('F1', 0)).toBeUndefined(); // A's lease is live
    expect(await b.adopt('nope', 0)).toBeUndefined();
    await raw('DEL', `${prefix}lease:F1`);
    const adopted = await b.adopt('F1', claim.record.epoch + 500);
    expect(adopted?.epoch).toBeGreaterThan(claim.record.epoch + 500);
  });

  it('a lease taken over while A still runs: A\'s next renewal reports it lost', async () => {
    await pair({ renewIntervalMs: 3_600_000 }); // A is "paused": it renews only when told
    const lost: Array<[string, number]> = [];
    a.onLost((code, epoch) => lost.push([code, epoch]));
    const claim = await a.claim(match('L1'));
    if (!claim.ok) throw new Error('refused');
    const other = await a.claim(match('L2'));
    if (!other.ok) throw new Error('refused');
    await expect.poll(() => b.orphans(), { timeout: 20_000 }).toEqual(expect.arrayContaining(['L1', 'L2']));
    const adopted = await b.adopt('L1', claim.record.epoch);
    expect(adopted).toBeDefined();
    await a.renew();
    expect(lost).toEqual([['L1', claim.record.epoch]]);
    expect(a.owns('L1')).toBe(false);
    // L2 was not adopted: A re-takes its lease with the same epoch.
    expect(a.owns('L2')).toBe(true);
    expect(await raw('GET', `${prefix}lease:L2`)).toContain(`A ${other.record.epoch}`);
    await a.caughtUp();
    expect(a.ownerOf('L1')).toBe('B');
    expect(a.get('L1')?.epoch).toBe(adopted!.epoch);
  });

  it('Redis restarted empty: A re-asserts its matches with higher epochs and B sees them again', async () => {
    await pair();
    const reasserted: number[] = [];
    a.onReasserted((r) => reasserted.push(r.epoch));
    const claim = await a.claim(match('R1'));
    if (!claim.ok) throw new Error('refused');
    a.setMatchId('R1', 'game-r');
    a.setRoster('R1', ['pr']);
    await expect.poll(() => b.hasPlayer('game-r', 'pr')).toBe(true);
    await server.restart();
    await expect.poll(() => reasserted.length, { timeout: 20_000 }).toBe(1);
    expect(reasserted[0]).toBeGreaterThan(claim.record.epoch);
    expect(a.owns('R1')).toBe(true);
    await expect.poll(() => b.get('R1')?.epoch, { timeout: 20_000 }).toBe(reasserted[0]);
    expect(b.hasPlayer('game-r', 'pr')).toBe(true);
    expect(b.count()).toBe(1);
    expect(b.countForKey('key:a')).toBe(1);
    expect(a.get('R1')?.epoch).toBe(reasserted[0]);
    // The counts in Redis are back too: a capped claim sees the re-asserted match.
    expect(await b.claim(match('R2', 'key:a'), { limits: { maxLive: 1, maxPerKey: 5 } })).toEqual({ ok: false, reason: 'capacity' });
    expect(await raw('GET', `${prefix}lease:R1`)).toContain(`A ${reasserted[0]}`);
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
    a.onReasserted((r) => reasserted.push(r.groupCode));
    const lost: string[] = [];
    a.onLost((code) => lost.push(code));
    const claim = await a.claim(match('T1'));
    if (!claim.ok) throw new Error('refused');
    await server.stop();
    a.setRoster('T1', ['down-1']); // the write fails: kept in the view
    expect(a.hasPlayer('', 'down-1')).toBe(false);
    await a.renew(); // fails: logged, nothing lost
    expect(a.owns('T1')).toBe(true);
    expect(a.get('T1')?.playerIds).toEqual(new Set(['down-1']));
    await new Promise((r) => setTimeout(r, 2500)); // longer than the lease TTL
    expect(a.owns('T1')).toBe(true);
    await server.start();
    await expect.poll(() => reasserted, { timeout: 20_000 }).toEqual(['T1']);
    expect(lost).toEqual([]);
    await expect.poll(() => b.get('T1')?.playerIds, { timeout: 20_000 }).toEqual(new Set(['down-1']));
    expect(b.get('T1')!.epoch).toBeGreaterThan(claim.record.epoch);
  });
});
