// The RecordStore and DeadLetterStore contracts (ports/record-store.ts) against the Redis adapters
// (adapters/redis/record-store.ts) on a real redis-server: a second connection with the same key
// prefix is another node. And what only Redis has: a record's hash expires at the end of its
// retention, and a record's JSON is stored deflated.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/adapters/redis/connection.js';
import { decodeRecord, RedisDeadLetters, RedisRecordStore } from '../../../src/main/adapters/redis/record-store.js';
import type { DeadLetterStore, RecordStore } from '../../../src/main/ports/record-store.js';
import { describeDeadLetterStoreContract, describeRecordStoreContract, sampleRecord } from '../ports/record-store.contract.js';
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
