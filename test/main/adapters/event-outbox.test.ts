// The EventOutbox contract (ports/event-outbox.ts) against its two adapters: the embedded files
// (events-out/journal-files.ts, in a temporary directory) and Redis (adapters/redis/event-outbox.ts,
// a real redis-server), and what only Redis has: the keys expire after the retention.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/adapters/redis/connection.js';
import { RedisEventOutbox } from '../../../src/main/adapters/redis/event-outbox.js';
import { JournalFiles } from '../../../src/main/events-out/journal-files.js';
import type { EventOutbox } from '../../../src/main/ports/event-outbox.js';
import { describeEventOutboxContract } from '../ports/event-outbox.contract.js';
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
    const files = new JournalFiles(dir, log);
    dirOf.set(files, dir);
    return files;
  },
  reopen: (first) => {
    first.close(); // the process ends: its pending cursor file is written
    return new JournalFiles(dirOf.get(first)!, log);
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
  it('a node\'s holds lapse when it stops renewing them; each orphan is then claimed by one node only; a settled match is no orphan', async () => {
    const prefix = `t${run}-holds:`;
    const a = new RedisEventOutbox(await connect(prefix, 'node-a'), { retentionMs: 60_000 });
    const b = new RedisEventOutbox(await connect(prefix, 'node-b'), { retentionMs: 60_000 });
    const c = new RedisEventOutbox(await connect(prefix, 'node-c'), { retentionMs: 60_000 });
    await a.hold(['M1', 'M2', 'M3'], 300);
    expect(await b.claimOrphans(60_000, 10)).toEqual([]);
    await a.settle('M3');
    // Node A stops renewing (it is lost): after 300 ms its matches are orphans.
    await expect.poll(async () => (await b.claimOrphans(60_000, 10)).sort(), { timeout: 10_000 }).toEqual(['M1', 'M2']);
    expect(await c.claimOrphans(60_000, 10)).toEqual([]);
    await b.hold(['M1'], 60_000);
    expect(await c.claimOrphans(60_000, 10)).toEqual([]);
  });

  it('a match\'s stream and cursors expire after the retention from their last write', async () => {
    const conn = await connect(`t${run}-ttl:`, 'node-a');
    const outbox = new RedisEventOutbox(conn, { retentionMs: 30_000 });
    await outbox.append({ matchKey: 'M1', seq: 1, order: 1, organizationId: '', text: '{}' });
    await outbox.advance('wh_1', 'M1', 1);
    for (const key of [conn.keys.eventStream('M1'), conn.keys.eventCursors('M1')]) {
      const ttl = await conn.cmd.pttl(key);
      expect(ttl).toBeGreaterThan(20_000);
      expect(ttl).toBeLessThanOrEqual(30_000);
    }
  });
});
