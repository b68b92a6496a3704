// The contracts of the ports the Redis store adapters back (previews, team info, control bus,
// sessions, snapshots, standby) against a real redis-server, and what the contracts cannot show: two nodes
// (two connections, one key prefix) sharing one store, and Redis going away and coming back.
// The directory and frame bus adapters have their own tests.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/redis/connection.js';
import { RedisControlBus } from '../../../src/main/control/adapters/redis/control-bus.js';
import { RedisPreviewStore } from '../../../src/main/previews/adapters/redis/preview-store.js';
import { RedisSessionStore } from '../../../src/main/sessions/adapters/redis/session-store.js';
import { decodeSnapshot, RedisSnapshotStore } from '../../../src/main/matches/adapters/redis/snapshot-store.js';
import { BASE_EVERY } from '../../../src/main/matches/adapters/redis/snapshot-format.js';
import { packText } from '../../../src/main/matches/snapshot-codec.js';
import { RedisStandbyStore } from '../../../src/main/standby/adapters/redis/standby-store.js';
import { RedisTeamInfoStore } from '../../../src/main/previews/adapters/redis/team-info-store.js';
import type { ControlMessage } from '../../../src/main/control/control-bus.js';
import type { MatchSnapshot } from '../../../src/main/matches/snapshot-store.js';
import { describeControlBusContract } from '../control/control-bus.contract.js';
import { describePreviewStoreContract } from '../previews/preview-store.contract.js';
import { describeSessionStoreContract } from '../sessions/session-store.contract.js';
import { describeSnapshotStoreContract } from '../matches/snapshot-store.contract.js';
import { describeStandbyStoreContract } from '../standby/standby-store.contract.js';
import { describeTeamInfoStoreContract } from '../previews/team-info-store.contract.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { sleep, yieldToIo } from '../../helpers/waits.js';
import { SNAPSHOTS_SCRIPTS } from '../../../src/main/matches/adapters/redis/lua/snapshots.js';

const log = pino({ level: 'silent' });
const TIMEOUT_MS = 2000;
let server: RedisServer;
const open: RedisConnection[] = [];
const run = randomUUID().slice(0, 8);
let prefixes = 0;
/** A key prefix no other test uses. */
const freshPrefix = () => `t${run}-${++prefixes}:`;

beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => { await server?.stop(); });
// Connections opened during a test are closed after it (the stores' close() leaves them open).
afterEach(() => { for (const c of open.splice(0)) c.close(); });

async function connect(prefix: string, nodeId = 'node-a'): Promise<RedisConnection> {
  const conn = await RedisConnection.open({ url: server.url, prefix, nodeId, timeoutMs: TIMEOUT_MS, probeIntervalMs: 1000, log });
  open.push(conn);
  return conn;
}


// TTLs are Redis's own (real time): the harness lets real time pass (fixed waits: Redis's clock
// cannot be advanced, and a key that must still be there at half its TTL has no event). Time is stretched by SLOW
// (the TTL and every step alike) so that a loaded machine's pauses stay well inside the contracts'
// margins (a record checked at half its TTL must still be there).
const SLOW = 3;
const advance = (ms: number) => sleep(ms * SLOW); // Redis's clock: real time must pass
describePreviewStoreContract('redis', {
  make: async (bounds) => new RedisPreviewStore(await connect(freshPrefix()), { ...bounds, ttlMs: bounds.ttlMs * SLOW }),
  advance,
});

describeTeamInfoStoreContract('redis', {
  make: async (ttlMs) => new RedisTeamInfoStore(await connect(freshPrefix()), { ttlMs: ttlMs * SLOW }),
  advance,
});

// publish resolves once the message came back to the bus: delivered to this process's listeners.
describeControlBusContract('redis', {
  make: async () => RedisControlBus.open(await connect(freshPrefix()), { log }),
  settle: async () => undefined,
});

describeSessionStoreContract('redis', {
  make: async (windowMs) => new RedisSessionStore(await connect(freshPrefix()), { windowMs, log }),
});

let snapshotPrefix = '';
describeSnapshotStoreContract('redis', {
  make: async () => new RedisSnapshotStore(await connect((snapshotPrefix = freshPrefix())), { log }),
  reopen: async () => new RedisSnapshotStore(await connect(snapshotPrefix, 'node-b'), { log }),
});

let standbyPrefix = '';
describeStandbyStoreContract('redis', {
  make: async () => new RedisStandbyStore(await connect((standbyPrefix = freshPrefix()))),
  reopen: async () => new RedisStandbyStore(await connect(standbyPrefix, 'node-b')),
});

/** Two nodes: two connections on one prefix. */
async function twoNodes() {
  const prefix = freshPrefix();
  return [await connect(prefix, 'node-a'), await connect(prefix, 'node-b')] as const;
}

const snap = (groupCode: string, epoch: number, text: string): MatchSnapshot => ({
  groupCode, epoch, text, savedAt: 1000 + epoch,
  match: { groupCode, secretDigest: 'ab'.repeat(32), matchId: 'game', organizationId: 'org', isSupporter: false, keyId: 'org:org', createdAt: 5, teams: { leftTeam: { players: [] }, rightTeam: { name: 'R' } } },
});

describe('Redis stores across nodes', () => {
  it('a preview created on one node is read on the other; the bounds hold across both', async () => {
    const [a, b] = await twoNodes();
    const bounds = { ttlMs: 60_000, maxEntries: 3, maxBytes: 25 };
    const pa = new RedisPreviewStore(a, bounds);
    const pb = new RedisPreviewStore(b, bounds);
    expect(await pa.create('P1', '"from-a"')).toBe('stored');
    expect(await pb.get('P1')).toBe('"from-a"');
    expect(await pb.create('P1', '"from-b"')).toBe('exists');
    expect(await pb.put('P2', '"b"')).toBe('stored');
    expect(await pa.put('P3', '"a"')).toBe('stored');
    expect(await pb.put('P4', '"b"')).toBe('full'); // count: 3 across both nodes
    expect(await pa.size()).toBe(3);
    expect(await pb.size()).toBe(3);
    expect(await pb.put('P2', '"bbbbbbbbbbbbb"')).toBe('full'); // bytes: 8 + 3 + 15 > 25
    expect(await pa.put('P2', '"bbbbbbbbbb"')).toBe('stored'); // 8 + 3 + 12 = 23
    expect(await pb.get('P2')).toBe('"bbbbbbbbbb"');
    const raced = await Promise.all([pa.create('R1', '1'), pb.create('R1', '2')]);
    expect(raced).toEqual(['full', 'full']);
  });

  it('team info written on one node is read on the other; setFinal keeps the teams\' JSON as written', async () => {
    const [a, b] = await twoNodes();
    const ta = new RedisTeamInfoStore(a, { ttlMs: 60_000 });
    const tb = new RedisTeamInfoStore(b, { ttlMs: 60_000 });
    await ta.set('G', { leftTeam: { players: [] }, rightTeam: { name: 'R', n: 1.5 } });
    await tb.setFinal('G', { higherScore: 1, tournamentInfo: [], sponsorInfo: null, isSupporter: true });
    expect(await ta.get('G')).toEqual({ leftTeam: { players: [] }, rightTeam: { name: 'R', n: 1.5 }, higherScore: 1, tournamentInfo: [], sponsorInfo: null, isSupporter: true });
    expect(await tb.size()).toBe(1);
  });

  it('a session put on node A is taken over on node B exactly once when two B sockets race', async () => {
    const [a, b] = await twoNodes();
    const sa = new RedisSessionStore(a, { windowMs: 10_000, log });
    const sb = new RedisSessionStore(b, { windowMs: 10_000, log });
    try {
      sa.put({ id: 'pid-1', role: 'observer', groupCode: 'G1', obsName: 'o', matchId: '', playerId: '', socketId: 'sock-a' });
      await sa.flush(Date.now()); // the write is done (flush also detaches: node A is going away)
      const now = Date.now();
      const results = await Promise.all([sb.takeOver('pid-1', 'pid-b1', 'sock-b1', now), sb.takeOver('pid-1', 'pid-b2', 'sock-b2', now)]);
      const won = results.filter((r) => r !== undefined);
      expect(won).toHaveLength(1);
      expect(won[0]!.previousSocketId).toBeNull();
      expect(won[0]!.session).toMatchObject({ groupCode: 'G1', socketId: won[0]!.session.id === 'pid-b1' ? 'sock-b1' : 'sock-b2' });
      expect(sb.size()).toBe(1);
      // Ending the group on node A finds the session node B holds now.
      const ended = await sa.end({ observersOf: 'G1' });
      expect(ended.map((s) => s.id)).toContain(won[0]!.session.id);
      expect(await sb.takeOver(won[0]!.session.id, 'pid-x', 'sock-x', now)).toBeUndefined();
    } finally {
      sa.close();
      sb.close();
    }
  });

  it('one held auxiliary session per player across nodes; node A\'s detach after a takeover on B changes nothing', async () => {
    const [a, b] = await twoNodes();
    const sa = new RedisSessionStore(a, { windowMs: 10_000, log });
    const sb = new RedisSessionStore(b, { windowMs: 10_000, log });
    try {
      const aux = (id: string) => ({ id, role: 'auxiliary' as const, groupCode: '', obsName: '', matchId: 'M', playerId: 'P', socketId: `sock-${id}` });
      expect(await sa.putAuxiliary(aux('a-1'))).toBe(true);
      expect(await sb.putAuxiliary(aux('b-1'))).toBe(false);
      const now = Date.now();
      const taken = await sb.takeOver('a-1', 'b-2', 'sock-b-2', now);
      expect(taken?.previousSocketId).toBe('sock-a-1');
      // Node A's socket goes away: its view still has the session (true), Redis is not changed.
      expect(sa.detach('a-1', 'sock-a-1', now)).toBe(true);
      expect(await sa.putAuxiliary(aux('a-3'))).toBe(false); // b-2 holds it
      expect(await sa.takeOver('b-2', 'a-4', 'sock-a-4', now)).toMatchObject({ previousSocketId: 'sock-b-2', disconnectedAt: null });
      // B's view learns at its next write that A took it over: its detach then changes nothing.
      expect(sb.detach('b-2', 'sock-b-2', now)).toBe(true);
      await sb.flush(now);
      expect(await sb.putAuxiliary(aux('b-5'))).toBe(false); // a-4 still holds it
      expect(sa.detach('a-4', 'sock-a-4', now)).toBe(true);
      await sa.flush(now); // A's detach is written on A's connection: B's next write must come after it
      expect(await sb.putAuxiliary(aux('b-5'))).toBe(true);
      const ended = await sb.end({ auxiliariesOf: 'M' });
      expect(ended.map((s) => s.id).sort()).toEqual(['a-4', 'b-5']);
    } finally {
      sa.close();
      sb.close();
    }
  });

  it('a held session outlives its safety expiry while its node renews it, and goes one expiry after its node stopped', async () => {
    const [a, b] = await twoNodes();
    // A 2 s expiry renewed every third: a loaded machine's pauses stay well inside it.
    const sa = new RedisSessionStore(a, { windowMs: 60_000, heldTtlMs: 2000, log });
    const sb = new RedisSessionStore(b, { windowMs: 60_000, heldTtlMs: 2000, log });
    try {
      sa.put({ id: 'kept', role: 'observer', groupCode: 'G', obsName: 'o', matchId: '', playerId: '', socketId: 'sa-1' });
      sa.put({ id: 'also-held', role: 'observer', groupCode: 'G', obsName: 'o', matchId: '', playerId: '', socketId: 'sa-2' });
      // Renewals, seen as the key's remaining time going up again: three of them (one every third
      // of the expiry) take it past its first expiry, and only they can have kept it.
      const key = b.keys.session('kept');
      let renewals = 0;
      let lastTtl = await b.cmd.pttl(key);
      await expect.poll(async () => {
        const ttl = await b.cmd.pttl(key);
        if (ttl > lastTtl) renewals++;
        lastTtl = ttl;
        return ttl > 0 ? renewals : -1;
      }, { timeout: 15_000, interval: 50 }).toBeGreaterThanOrEqual(3);
      expect(await b.cmd.pttl(key)).toBeGreaterThan(0);
      sa.close(); // node A stops renewing (as if it died)
      expect(await b.cmd.exists(key)).toBe(1); // not removed by the stop: it goes with its expiry
      await expect.poll(() => b.cmd.exists(key, b.keys.session('also-held')), { timeout: 15_000, interval: 50 }).toBe(0);
      expect(await sb.takeOver('kept', 'kept-b', 'sb-1', Date.now())).toBeUndefined();
    } finally {
      sa.close();
      sb.close();
    }
  });

  it('control messages published on node A reach node B in order', async () => {
    const [a, b] = await twoNodes();
    const busA = await RedisControlBus.open(a, { log });
    const busB = await RedisControlBus.open(b, { log });
    const gotB: ControlMessage[] = [];
    const gotA: ControlMessage[] = [];
    busB.subscribe((m) => gotB.push(m));
    busA.subscribe((m) => gotA.push(m));
    const sent: ControlMessage[] = Array.from({ length: 50 }, (_, i) => ({ t: 'secret_rotated', groupCode: `G${i}`, sessionIds: [`s${i}`] }));
    for (const m of sent) void busA.publish(m);
    await busA.publish({ t: 'force_end', groupCode: 'last' });
    expect(gotA).toEqual([...sent, { t: 'force_end', groupCode: 'last' }]); // this node: delivered before publish resolved
    await expect.poll(() => gotB.length).toBe(51);
    expect(gotB).toEqual(gotA);
    busA.close();
    busB.close();
  });

  it('messages published on both nodes at once reach both in one order', async () => {
    const [a, b] = await twoNodes();
    const busA = await RedisControlBus.open(a, { log });
    const busB = await RedisControlBus.open(b, { log });
    const gotA: string[] = [];
    const gotB: string[] = [];
    busA.subscribe((m) => gotA.push('groupCode' in m ? m.groupCode : ''));
    busB.subscribe((m) => gotB.push('groupCode' in m ? m.groupCode : ''));
    const sends: Promise<void>[] = [];
    for (let i = 0; i < 30; i++) {
      sends.push(busA.publish({ t: 'force_end', groupCode: `A${i}` }), busB.publish({ t: 'force_end', groupCode: `B${i}` }));
    }
    await Promise.all(sends);
    await expect.poll(() => gotA.length + gotB.length).toBe(120);
    expect(gotB).toEqual(gotA);
    expect(gotA.filter((c) => c.startsWith('A'))).toEqual(Array.from({ length: 30 }, (_, i) => `A${i}`));
    expect(gotA.filter((c) => c.startsWith('B'))).toEqual(Array.from({ length: 30 }, (_, i) => `B${i}`));
    busA.close();
    busB.close();
  });

  it('a snapshot of a lower epoch from node A does not replace node B\'s higher one; B\'s is loaded by A', async () => {
    const [a, b] = await twoNodes();
    const na = new RedisSnapshotStore(a, { log });
    const nb = new RedisSnapshotStore(b, { log });
    expect(await na.put(snap('S', 3, 'a-3'))).toBe(true);
    expect(await nb.put(snap('S', 4, 'b-4'))).toBe(true); // B adopted the match
    expect(await na.put(snap('S', 3, 'a-3 again'))).toBe(false);
    await na.delete('S', 3);
    expect((await nb.load('S'))?.text).toBe('b-4');
    expect(await na.load('S')).toEqual(snap('S', 4, 'b-4'));
    expect(na.latest('S')?.text).toBe('b-4');
    expect((await na.loadAll()).map((s) => s.text)).toEqual(['b-4']);
  });
});

describe('Redis snapshots stored deflated, as deltas against a base (issue 20)', () => {
  it('are a fraction of their JSON in Redis, read back the same; data of earlier versions (deflated whole, plain JSON) still loads', async () => {
    const [a] = await twoNodes();
    const store = new RedisSnapshotStore(a, { log });
    const big = snap('Z', 1, JSON.stringify({ state: { teams: Array.from({ length: 10 }, (_, i) => ({ name: `player ${i}`, kills: i, money: 800 + i })) } }));
    expect(await store.put(big)).toBe(true);
    const [data, base] = await a.cmd.hmgetBuffer(a.keys.snapshot('Z'), 'data', 'base');
    expect(data!.length + base!.length).toBeLessThan(JSON.stringify(big).length / 2);
    expect(decodeSnapshot(data!, base)).toBe(JSON.stringify(big));
    expect(await new RedisSnapshotStore(a, { log }).load('Z')).toEqual(big);
    // Earlier versions' values: the snapshot's JSON as it is, and deflated whole (no base).
    const old = snap('OLD', 2, 'old-text');
    await a.scripts(SNAPSHOTS_SCRIPTS).odsSnapshotPut(a.keys.snapshot('OLD'), 2, JSON.stringify(old));
    const whole = snap('WHOLE', 2, 'deflated whole');
    await a.scripts(SNAPSHOTS_SCRIPTS).odsSnapshotPut(a.keys.snapshot('WHOLE'), 2, packText(JSON.stringify(whole)));
    const fresh = new RedisSnapshotStore(a, { log });
    expect(await fresh.load('OLD')).toEqual(old);
    expect(await fresh.load('WHOLE')).toEqual(whole);
    expect((await fresh.loadAll()).map((s) => s.groupCode).sort()).toEqual(expect.arrayContaining(['OLD', 'WHOLE', 'Z']));
  });

  it('a match\'s puts after the first are deltas (a base every BASE_EVERY puts, and under each new owner); every one reads back, from this node and from another', async () => {
    const [a, b] = await twoNodes();
    const store = new RedisSnapshotStore(a, { log });
    const textAt = (k: number) => JSON.stringify({ round: k, teams: Array.from({ length: 10 }, (_, i) => ({ name: `player ${i}`, kills: i + k, money: 800 + i * k })) });
    const sizes: number[] = [];
    let bases = 0;
    for (let k = 0; k < 2 * BASE_EVERY + 3; k++) {
      const s = snap('D', 1, textAt(k));
      expect(await store.put(s)).toBe(true);
      const [data, base] = await a.cmd.hmgetBuffer(a.keys.snapshot('D'), 'data', 'base');
      if (data!.length === 1) bases++; // "the snapshot is the base"
      else sizes.push(data!.length);
      expect(await new RedisSnapshotStore(b, { log }).load('D')).toEqual(s);
      expect(decodeSnapshot(data!, base)).toBe(JSON.stringify(s));
    }
    expect(bases).toBe(3); // puts 0, BASE_EVERY and 2 × BASE_EVERY
    expect(Math.max(...sizes)).toBeLessThan(packText(JSON.stringify(snap('D', 1, textAt(0)))).length);
    // A new owner (B, epoch 2) writes a base first; the old owner's puts are refused.
    const nb = new RedisSnapshotStore(b, { log });
    const adopted = snap('D', 2, textAt(100));
    expect(await nb.put(adopted)).toBe(true);
    expect((await a.cmd.hgetBuffer(a.keys.snapshot('D'), 'data'))!.length).toBe(1);
    expect(await store.put(snap('D', 1, textAt(101)))).toBe(false);
    const next = snap('D', 2, textAt(102));
    expect(await nb.put(next)).toBe(true);
    expect(await new RedisSnapshotStore(a, { log }).load('D')).toEqual(next);
  });

  it('a delta whose base is not the one stored is unreadable: skipped and logged, never another snapshot', async () => {
    const [a] = await twoNodes();
    const store = new RedisSnapshotStore(a, { log });
    expect(await store.put(snap('X', 1, 'first'))).toBe(true);
    expect(await store.put(snap('X', 1, 'second'))).toBe(true); // a delta
    const [, base] = await a.cmd.hmgetBuffer(a.keys.snapshot('X'), 'data', 'base');
    const otherBase = Buffer.from(base!);
    otherBase.writeUInt32BE(otherBase.readUInt32BE(1) + 1, 1);
    await a.scripts(SNAPSHOTS_SCRIPTS).odsSnapshotPut(a.keys.snapshot('X'), 1, (await a.cmd.hgetBuffer(a.keys.snapshot('X'), 'data'))!, otherBase);
    expect(await new RedisSnapshotStore(a, { log }).load('X')).toBeUndefined();
  });
});

describe('Redis stores while Redis is down', () => {
  it('methods fail fast (no longer than the command timeout), nothing throws uncaught, and all works again after a restart', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const conn = await connect(freshPrefix());
      const previews = new RedisPreviewStore(conn, { ttlMs: 60_000, maxEntries: 10, maxBytes: 1000 });
      const teams = new RedisTeamInfoStore(conn, { ttlMs: 60_000 });
      const bus = await RedisControlBus.open(conn, { log });
      const sessions = new RedisSessionStore(conn, { windowMs: 10_000, log });
      const snapshots = new RedisSnapshotStore(conn, { log });
      sessions.put({ id: 'before', role: 'observer', groupCode: 'G', obsName: 'o', matchId: '', playerId: '', socketId: 's0' });
      expect(await snapshots.put(snap('S', 1, 'before'))).toBe(true);

      await server.stop();
      const started = Date.now();
      const settled = await Promise.allSettled([
        previews.put('P', '1'), previews.create('P', '1'), previews.get('P'), previews.size(),
        teams.set('G', { leftTeam: 1, rightTeam: 2 }), teams.setFinal('G', { higherScore: 0, tournamentInfo: 1, sponsorInfo: 1, isSupporter: false }), teams.get('G'), teams.size(),
        bus.publish({ t: 'force_end', groupCode: 'G' }),
        sessions.takeOver('before', 'after', 's1', Date.now()), sessions.putAuxiliary({ id: 'x', role: 'auxiliary', groupCode: '', obsName: '', matchId: 'M', playerId: 'P', socketId: 's2' }),
        sessions.end({ observersOf: 'G' }),
        snapshots.put(snap('S', 2, 'during')), snapshots.load('S'), snapshots.loadAll(),
      ]);
      // The synchronous methods neither throw nor wait.
      sessions.put({ id: 'during', role: 'observer', groupCode: 'G', obsName: 'o', matchId: '', playerId: '', socketId: 's3' });
      expect(sessions.detach('during', 's3', Date.now())).toBe(true);
      sessions.sweep(Date.now());
      expect(sessions.size()).toBe(2);
      await sessions.flush(Date.now());
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1500);
      expect(settled.map((r) => r.status)).toEqual(settled.map(() => 'rejected'));
      // What this node put is still its latest snapshot (a shard restarted now resumes from it).
      expect(snapshots.latest('S')?.text).toBe('during');
      await expect(snapshots.delete('S', 2)).rejects.toThrow();
      expect(snapshots.latest('S')).toBeUndefined();

      await server.start();
      await expect.poll(() => conn.cmd.status === 'ready' && conn.sub.status === 'ready').toBe(true);
      await expect.poll(() => previews.put('P', '1').catch(() => 'failed')).toBe('stored');
      expect(await previews.get('P')).toBe('1');
      await teams.set('G', { leftTeam: 1, rightTeam: 2 });
      expect(await teams.get('G')).toEqual({ leftTeam: 1, rightTeam: 2 });
      const got: ControlMessage[] = [];
      bus.subscribe((m) => got.push(m));
      // The subscriber re-subscribes on its own after the reconnection.
      await expect.poll(async () => { await bus.publish({ t: 'force_end', groupCode: 'again' }); return got.length > 0; }).toBe(true);
      sessions.put({ id: 'again', role: 'observer', groupCode: 'G2', obsName: 'o', matchId: '', playerId: '', socketId: 's4' });
      expect((await sessions.takeOver('again', 'again-2', 's5', Date.now()))?.previousSocketId).toBe('s4');
      expect(await snapshots.put(snap('S', 3, 'after'))).toBe(true);
      expect((await snapshots.loadAll()).map((s) => s.text)).toEqual(['after']);
      bus.close();
      sessions.close();
      previews.close();
      teams.close();
      // The marker: a command after theirs on the same connections is answered after anything they
      // had in flight; one more turn lets Node report a rejection nobody handled.
      await conn.cmd.ping();
      await conn.sub.ping();
      await yieldToIo();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await server.start().catch(() => undefined);
    }
  });
});
