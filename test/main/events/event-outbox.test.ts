// The EventOutbox contract (events/event-outbox.ts) against its two adapters: the embedded files
// (events/journal-files.ts, in a temporary directory) and Redis (events/adapters/redis/event-outbox.ts,
// a real redis-server), and what only Redis has: the keys expire after the retention.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/redis/connection.js';
import { RedisEventOutbox } from '../../../src/main/events/adapters/redis/event-outbox.js';
import { FileEventOutbox } from '../../../src/main/events/adapters/state-dir/event-outbox.js';
import { JournalFiles } from '../../../src/main/events/journal-files.js';
import { OutputFencedError, type EventOutbox, type OutputFence } from '../../../src/main/events/event-outbox.js';
import type { Redis } from 'ioredis';
import { RedisRecordStore } from '../../../src/main/events/adapters/redis/record-store.js';
import type { MatchRecord } from '../../../src/main/events/record-store.js';
import { describeEventOutboxContract } from './event-outbox.contract.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

const log = pino({ level: 'silent' });
let server: RedisServer;
const open: RedisConnection[] = [];
const dirs: string[] = [];
const run = randomUUID().slice(0, 8);
let prefixes = 0;

beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => {
  await server?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
afterEach(() => { for (const c of open.splice(0)) c.close(); });

async function connect(prefix: string, nodeId: string): Promise<RedisConnection> {
  const conn = await RedisConnection.open({ url: server.url, prefix, nodeId, timeoutMs: 2000, probeIntervalMs: 1000, log });
  open.push(conn);
  return conn;
}

const dirOf = new WeakMap<EventOutbox, string>();
describeEventOutboxContract('files', {
  make: () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-'));
    dirs.push(dir);
    const outbox = new FileEventOutbox(new JournalFiles(dir, log));
    dirOf.set(outbox, dir);
    return outbox;
  },
  reopen: (first) => {
    first.close(); // the process ends: its pending cursor file is written
    const outbox = new FileEventOutbox(new JournalFiles(dirOf.get(first)!, log));
    dirOf.set(outbox, dirOf.get(first)!);
    return outbox;
  },
});

const prefixOf = new WeakMap<EventOutbox, string>();
describeEventOutboxContract('redis', {
  make: async () => {
    const prefix = `t${run}-${++prefixes}:`;
    const outbox = new RedisEventOutbox(await connect(prefix, 'node-a'), { retentionMs: 60_000 });
    prefixOf.set(outbox, prefix);
    return outbox;
  },
  reopen: async (first) => new RedisEventOutbox(await connect(prefixOf.get(first)!, 'node-b'), { retentionMs: 60_000 }),
});

describe('RedisEventOutbox', () => {
  it('fencing: a deposed owner\'s late append, cursor move and record write are refused by Redis; the new owner\'s go', async () => {
    const prefix = `t${run}-fence:`;
    const connA = await connect(prefix, 'node-a');
    const a = new RedisEventOutbox(connA, { retentionMs: 60_000 });
    const b = new RedisEventOutbox(await connect(prefix, 'node-b'), { retentionMs: 60_000 });
    const recordsA = new RedisRecordStore(connA, { retentionMs: 60_000 });
    const raw = connA.cmd as unknown as Redis;
    const row = (seq: number) => ({ matchKey: 'FEN-1', seq, order: seq, organizationId: '', text: `{"seq":${seq}}` });
    const fenceA: OutputFence = { groupCode: 'FEN', epoch: 4, live: true };
    const fenceB: OutputFence = { groupCode: 'FEN', epoch: 5, live: true };
    // A owns the match (its lease, epoch 4) and writes.
    await raw.set(connA.keys.lease('FEN'), 'node-a 4', 'PX', 60_000);
    expect(await a.append(row(1), fenceA)).toBe(true);
    await a.advance('wh_1', 'FEN-1', 1, fenceA);
    // A is deposed: B adopted the match (the lease is B's, epoch 5) before writing anything.
    await raw.set(connA.keys.lease('FEN'), 'node-b 5', 'PX', 60_000);
    await expect(a.append(row(2), fenceA)).rejects.toBeInstanceOf(OutputFencedError);
    await expect(a.advance('wh_1', 'FEN-1', 1, fenceA)).rejects.toBeInstanceOf(OutputFencedError);
    const record = { matchKey: 'FEN-1', groupCode: 'FEN', storedAt: new Date().toISOString() } as unknown as MatchRecord;
    await expect(recordsA.put(record, fenceA)).rejects.toBeInstanceOf(OutputFencedError);
    // B's writes go, and raise the match's fence: once B's lease is gone too (the match ended, the
    // code released), A's writes of that match are still refused, even an ended match's (not live).
    expect(await b.append(row(2), fenceB)).toBe(true);
    await b.advance('wh_1', 'FEN-1', 2, fenceB);
    await raw.del(connA.keys.lease('FEN'));
    await expect(a.append(row(3), fenceA)).rejects.toBeInstanceOf(OutputFencedError);
    await expect(a.advance('wh_1', 'FEN-1', 2, { ...fenceA, live: false })).rejects.toBeInstanceOf(OutputFencedError);
    expect((await b.events('FEN-1')).map((e) => e.text)).toEqual(['{"seq":1}', '{"seq":2}']);
    expect(await b.cursors('FEN-1')).toEqual({ wh_1: 2 });
    // An ended match's cursor is not fenced by a later match of the reused code (another match's lease).
    await raw.set(connA.keys.lease('FEN'), 'node-a 9', 'PX', 60_000);
    await b.advance('wh_1', 'FEN-1', 2, { ...fenceB, live: false });
    await expect(b.advance('wh_1', 'FEN-1', 2, fenceB)).rejects.toBeInstanceOf(OutputFencedError);
  });

  it('a match\'s stream and cursors expire after the retention from their last write', async () => {
    const conn = await connect(`t${run}-ttl:`, 'node-a');
    const outbox = new RedisEventOutbox(conn, { retentionMs: 30_000 });
    const fence: OutputFence = { groupCode: 'M', epoch: 1, live: true };
    await outbox.append({ matchKey: 'M1', seq: 1, order: 1, organizationId: '', text: '{}' }, fence);
    await outbox.advance('wh_1', 'M1', 1, fence);
    for (const key of [conn.keys.eventStream('M1'), conn.keys.eventCursors('M1')]) {
      const ttl = await conn.cmd.pttl(key);
      expect(ttl).toBeGreaterThan(20_000);
      expect(ttl).toBeLessThanOrEqual(30_000);
    }
  });
});
