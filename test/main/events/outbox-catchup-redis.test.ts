// The shared outbox after a failed append (src/main/events/outbox-share.ts), against a real
// redis-server that refuses writes for a while (min-replicas-to-write with no replica: every write
// script fails, reads still answer): the journal's later events are told at once, in order, but
// wait; once Redis takes writes again, the outbox gets every event in seq order, as the journal
// numbered them, and the next one goes straight in. Meanwhile the match's group is `pending`, and a
// snapshot put with that wait reaches Redis only after it, and only the newest one.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/redis/connection.js';
import { RedisEventOutbox } from '../../../src/main/events/adapters/redis/event-outbox.js';
import { RedisSnapshotStore } from '../../../src/main/matches/adapters/redis/snapshot-store.js';
import { EventJournal } from '../../../src/main/events/journal.js';
import { FileRecordStore } from '../../../src/main/events/adapters/state-dir/record-store.js';
import type { MatchSnapshot } from '../../../src/main/matches/snapshot-store.js';
import type { DerivedEvent } from '../../../src/protocol/match-events.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

/** The journal's events in memory are compared with the outbox's: none is let go meanwhile (journal.ts, prune). */
const KEEP_ALL = 3_600_000;
const log = pino({ level: 'silent' });
let server: RedisServer;
const open: RedisConnection[] = [];
const run = randomUUID().slice(0, 8);
let prefixes = 0;

beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => { await server?.stop(); });
afterEach(async () => {
  await server.command('CONFIG', 'SET', 'min-replicas-to-write', '0');
  for (const c of open.splice(0)) c.close();
});

async function connect(timeoutMs = 2000): Promise<RedisConnection> {
  const conn = await RedisConnection.open({ url: server.url, prefix: `t${run}-${++prefixes}:`, nodeId: 'node-a', timeoutMs, probeIntervalMs: 1000, log });
  open.push(conn);
  return conn;
}
const refuseWrites = (on: boolean) => server.command('CONFIG', 'SET', 'min-replicas-to-write', on ? '1' : '0');
const kill = (n: number): DerivedEvent => ({ type: 'kill', at: 1_700_000_000_000 + n, round: 1, order: n * 64, data: { n } });

describe('the shared outbox after a failed append', () => {
  it('catches up in seq order once Redis takes writes again; the events are told at once, in order', async () => {
    const outbox = new RedisEventOutbox(await connect(), { retentionMs: 60_000 });
    const journal = new EventJournal({ files: null, shared: outbox, records: new FileRecordStore(null, 60_000), log, resumeWindowMs: 60_000, retentionMs: 60_000, pruneIntervalMs: KEEP_ALL });
    const told: number[] = [];
    journal.subscribe((s) => told.push(s.seq));
    const key = 'GRP-k1';
    const inOutbox = async () => (await outbox.events(key)).map((e) => e.seq);
    try {
      for (let n = 1; n <= 3; n++) journal.add('GRP', key, 'm', 'org', kill(n));
      await expect.poll(inOutbox, { timeout: 10_000 }).toEqual([1, 2, 3]);

      await refuseWrites(true);
      for (let n = 4; n <= 6; n++) journal.add('GRP', key, 'm', 'org', kill(n));
      await expect.poll(() => journal.whenShared('GRP') !== undefined, { timeout: 10_000 }).toBe(true);
      const caughtUp = journal.whenShared('GRP')!;
      let done = false;
      void caughtUp.then(() => { done = true; });
      journal.add('GRP', key, 'm', 'org', kill(7)); // behind: told, not appended yet
      await expect.poll(() => told, { timeout: 10_000 }).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(await inOutbox()).toEqual([1, 2, 3]);
      expect(done).toBe(false);

      await refuseWrites(false);
      await caughtUp;
      expect(journal.whenShared('GRP')).toBeUndefined();
      const rows = await outbox.events(key);
      expect(rows.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(rows.map((e) => e.text)).toEqual(journal.matches.get(key)!.events.map((s) => s?.text));
      journal.add('GRP', key, 'm', 'org', kill(8));
      await expect.poll(inOutbox, { timeout: 10_000 }).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(told).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    } finally {
      journal.close();
    }
  });

  it('an append whose answer came too late but ran is confirmed, not appended twice', async () => {
    // CLIENT PAUSE WRITE holds every write until UNPAUSE: the appends time out after 300 ms (the node
    // falls behind), then run in Redis once the pause ends; the catch-up finds them there.
    const outbox = new RedisEventOutbox(await connect(300), { retentionMs: 60_000 });
    const journal = new EventJournal({ files: null, shared: outbox, records: new FileRecordStore(null, 60_000), log, resumeWindowMs: 60_000, retentionMs: 60_000, pruneIntervalMs: KEEP_ALL });
    const key = 'LATE-k1';
    try {
      journal.add('LATE', key, 'm', 'org', kill(1));
      await expect.poll(async () => (await outbox.events(key)).length, { timeout: 10_000 }).toBe(1);
      await server.command('CLIENT', 'PAUSE', '60000', 'WRITE');
      for (let n = 2; n <= 4; n++) journal.add('LATE', key, 'm', 'org', kill(n));
      await expect.poll(() => journal.whenShared('LATE') !== undefined, { timeout: 10_000 }).toBe(true);
      const caughtUp = journal.whenShared('LATE');
      await server.command('CLIENT', 'UNPAUSE');
      await caughtUp;
      const rows = await outbox.events(key);
      expect(rows.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect(rows.map((e) => e.text)).toEqual(journal.matches.get(key)!.events.map((s) => s?.text));
    } finally {
      await server.command('CLIENT', 'UNPAUSE');
      journal.close();
    }
  });

  it('a snapshot put that waits reaches Redis after the wait, the newest only, and not after a delete', async () => {
    const conn = await connect();
    const store = new RedisSnapshotStore(conn, { log });
    const snap = (groupCode: string, text: string): MatchSnapshot => ({
      groupCode, epoch: 1, text, savedAt: 1,
      match: { groupCode, secretDigest: 'ab'.repeat(32), matchId: 'game', organizationId: 'org', isSupporter: false, keyId: 'org:org', createdAt: 5, teams: { leftTeam: { players: [] }, rightTeam: { name: 'R' } } },
    });
    const inRedis = async (code: string) => (await new RedisSnapshotStore(conn, { log }).load(code))?.text;
    expect(await store.put(snap('S', 'first'))).toBe(true);
    let release = () => {};
    const wait = new Promise<void>((resolve) => { release = resolve; });
    const older = store.put(snap('S', 'second'), wait);
    const newer = store.put(snap('S', 'third'), wait);
    expect(store.latest('S')?.text).toBe('third'); // a shard restart here has it at once
    expect(await inRedis('S')).toBe('first');
    release();
    expect(await older).toBe(false);
    expect(await newer).toBe(true);
    expect(await inRedis('S')).toBe('third');

    let releaseGone = () => {};
    const gone = store.put(snap('G', 'of a removed match'), new Promise<void>((resolve) => { releaseGone = resolve; }));
    await store.delete('G', 1);
    releaseGone();
    expect(await gone).toBe(false);
    expect(await inRedis('G')).toBeUndefined();
  });
});
