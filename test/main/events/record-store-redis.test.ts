// The RecordStore and DeadLetterStore contracts (events/record-store.ts) against the Redis adapters
// (events/adapters/redis/record-store.ts) on a real redis-server: a second connection with the same key
// prefix is another node. And what only Redis has: a record's hash expires at the end of its
// retention, and a record's JSON is stored deflated. And the writes that met a Redis outage
// (events/write-retry.ts): tried again until they land once Redis is back, the queue bounded.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/redis/connection.js';
import { decodeRecord, RedisDeadLetters, RedisRecordStore } from '../../../src/main/events/adapters/redis/record-store.js';
import { retryingDeadLetters, retryingRecords, WriteRetry } from '../../../src/main/events/write-retry.js';
import type { DeadLetterStore, RecordStore } from '../../../src/main/events/record-store.js';
import { describeDeadLetterStoreContract, describeRecordStoreContract, sampleRecord } from './record-store.contract.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

const log = pino({ level: 'silent' });
let server: RedisServer;
const open: RedisConnection[] = [];
const run = randomUUID().slice(0, 8);
let prefixes = 0;

beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => { await server?.stop(); });
afterEach(() => { for (const c of open.splice(0)) c.close(); });

async function connect(prefix: string, nodeId: string): Promise<RedisConnection> {
  const conn = await RedisConnection.open({ url: server.url, prefix, nodeId, timeoutMs: 2000, probeIntervalMs: 1000, log });
  open.push(conn);
  return conn;
}

const madeWith = new WeakMap<RecordStore | DeadLetterStore, { prefix: string; retentionMs: number }>();
describeRecordStoreContract('redis', {
  make: async (retentionMs) => {
    const prefix = `t${run}-${++prefixes}:`;
    const store = new RedisRecordStore(await connect(prefix, 'node-a'), { retentionMs });
    madeWith.set(store, { prefix, retentionMs });
    return store;
  },
  reopen: async (first) => {
    const { prefix, retentionMs } = madeWith.get(first)!;
    return new RedisRecordStore(await connect(prefix, 'node-b'), { retentionMs });
  },
});

describeDeadLetterStoreContract('redis', {
  make: async (retentionMs) => {
    const prefix = `t${run}-${++prefixes}:`;
    const store = new RedisDeadLetters(await connect(prefix, 'node-a'), { retentionMs });
    madeWith.set(store, { prefix, retentionMs });
    return store;
  },
  reopen: async (first) => {
    const { prefix, retentionMs } = madeWith.get(first)!;
    return new RedisDeadLetters(await connect(prefix, 'node-b'), { retentionMs });
  },
});

describe('RedisRecordStore', () => {
  it('a record\'s hash expires at the end of its retention; its JSON is stored deflated', async () => {
    const conn = await connect(`t${run}-ttl:`, 'node-a');
    const store = new RedisRecordStore(conn, { retentionMs: 60_000 });
    const record = sampleRecord('TTL', 10_000);
    await store.put(record);
    const key = conn.keys.record(record.matchKey);
    const ttl = await conn.cmd.pttl(key);
    expect(ttl).toBeGreaterThan(40_000);
    expect(ttl).toBeLessThanOrEqual(50_000);
    const stored = (await conn.cmd.hgetBuffer(key, 'r'))!;
    const json = JSON.stringify(record);
    expect(decodeRecord(stored)).toBe(json);
    // A 19-round record of 10 players: its JSON and what Redis holds of it.
    console.log(`record of 19 rounds: ${json.length} bytes of JSON, ${stored.length} bytes stored`);
    expect(stored.length).toBeLessThan(json.length / 4);
    const letters = new RedisDeadLetters(conn, { retentionMs: 60_000 });
    await letters.add({ endpointId: 'wh', eventId: 'K.1', type: 'kill', groupCode: 'K', attempts: 1, lastError: 'x', firstAttemptAt: '', deadAt: '' });
    expect(await conn.cmd.pttl(conn.keys.deadLetters)).toBeGreaterThan(50_000);
  });
});

describe('records and dead letters while Redis is down', () => {
  it('every method fails fast (no longer than the command timeout) and works again once Redis is back', async () => {
    const conn = await connect(`t${run}-down:`, 'node-a');
    const store = new RedisRecordStore(conn, { retentionMs: 60_000 });
    const letters = new RedisDeadLetters(conn, { retentionMs: 60_000 });
    const record = sampleRecord('DOWN', 1_000);
    await server.stop();
    const started = Date.now();
    const settled = await Promise.allSettled([store.put(record), store.list(), store.get(record.matchKey), store.prune(Date.now()), letters.add({ endpointId: 'wh', eventId: 'K.1', type: 'kill', groupCode: 'K', attempts: 1, lastError: 'x', firstAttemptAt: '', deadAt: '' }), letters.list()]);
    expect(Date.now() - started).toBeLessThan(2000 + 1500);
    expect(settled.map((r) => r.status)).toEqual(Array(6).fill('rejected'));
    await server.start();
    // The connection reconnects by itself (an empty Redis: nothing was persisted).
    await expect.poll(async () => { try { await store.put(record); return true; } catch { return false; } }, { timeout: 20_000 }).toBe(true);
    expect(await store.get(record.matchKey)).toEqual(record);
    expect((await store.list()).map((s) => s.matchKey)).toEqual([record.matchKey]);
  });
});

describe('record and dead-letter writes that meet a Redis outage (write-retry.ts)', () => {
  it('are tried again until they land once Redis is back, in order; past the bound the oldest is given up, logged', async () => {
    const conn = await connect(`t${run}-retry:`, 'node-a');
    const lines: Record<string, unknown>[] = [];
    const captured = pino({ level: 'info' }, { write: (l: string) => { lines.push(JSON.parse(l) as Record<string, unknown>); } });
    const recordRetry = new WriteRetry({ log: captured, what: 'match record', firstDelayMs: 50, maxDelayMs: 400 });
    const letterRetry = new WriteRetry({ log: captured, what: 'dead letter', firstDelayMs: 50, maxDelayMs: 400 });
    const bounded = new WriteRetry({ log: captured, what: 'match record', firstDelayMs: 50, maxDelayMs: 400, maxPending: 2 });
    const store = retryingRecords(new RedisRecordStore(conn, { retentionMs: 60_000 }), recordRetry);
    const boundedStore = retryingRecords(new RedisRecordStore(conn, { retentionMs: 60_000 }), bounded);
    const letters = retryingDeadLetters(new RedisDeadLetters(conn, { retentionMs: 60_000 }), letterRetry);
    const [first, second] = [sampleRecord('OUT1', 1_000), sampleRecord('OUT2', 1_000)];
    const letter = { endpointId: 'wh', eventId: 'OUT1-x.3', type: 'kill', groupCode: 'OUT1', attempts: 4, lastError: 'HTTP 500', firstAttemptAt: '', deadAt: new Date().toISOString() };
    const dropped = [sampleRecord('DROP1', 1_000), sampleRecord('DROP2', 1_000), sampleRecord('DROP3', 1_000)];
    try {
      await server.stop();
      // Neither rejects: each is queued after its first attempt failed.
      await store.put(first);
      await letters.add(letter);
      await store.put(second);
      for (const r of dropped) await boundedStore.put(r);
      expect(recordRetry.pending).toBe(2);
      expect(letterRetry.pending).toBe(1);
      expect(bounded.pending).toBe(2);
      expect(lines.filter((l) => l.msg === 'match record not kept yet: tried again until it lands').map((l) => l.key)).toContain(first.matchKey);
      expect(lines.filter((l) => l.msg === 'match record given up: more than 2 writes waiting').map((l) => l.key)).toEqual([dropped[0].matchKey]);
      // Still down a while: the queue waits (several attempts fail), nothing is lost.
      await expect.poll(() => recordRetry.headAttempts, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
      expect(recordRetry.pending).toBe(2);
      expect(lines.some((l) => String(l.msg).includes('kept after'))).toBe(false);

      await server.start(); // an empty Redis: what is in it afterwards was written by the retries
      await expect.poll(() => recordRetry.pending + letterRetry.pending + bounded.pending, { timeout: 30_000 }).toBe(0);
      expect(await store.get(first.matchKey)).toEqual(first);
      expect(await store.get(second.matchKey)).toEqual(second);
      expect((await store.list()).map((s) => s.matchKey).sort()).toEqual([first.matchKey, second.matchKey, dropped[1].matchKey, dropped[2].matchKey].sort());
      expect(await store.get(dropped[0].matchKey)).toBeUndefined();
      expect(await letters.list()).toEqual([letter]);
      const kept = lines.filter((l) => l.msg === 'match record kept after a failed write');
      expect(kept.map((l) => l.key)).toEqual(expect.arrayContaining([first.matchKey, second.matchKey]));
      expect(Number(kept.find((l) => l.key === first.matchKey)?.attempts)).toBeGreaterThanOrEqual(4);
    } finally {
      await server.start();
      for (const r of [recordRetry, letterRetry, bounded]) r.close();
    }
  }, 60_000);
});
