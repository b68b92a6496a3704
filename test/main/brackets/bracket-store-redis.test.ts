// The BracketStore contract against the Redis adapter on a real redis-server: a second connection
// with the same key prefix is another node.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { RedisConnection } from '../../../src/main/redis/connection.js';
import { RedisBracketStore } from '../../../src/main/brackets/adapters/redis/bracket-store.js';
import { describeBracketStoreContract } from './bracket-store.contract.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

const log = pino({ level: 'silent' });
let server: RedisServer;
const open: RedisConnection[] = [];
const run = randomUUID().slice(0, 8);
let prefixes = 0;
const prefixOf = new Map<RedisBracketStore, string>();

beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => { await server?.stop(); });
afterEach(() => { for (const c of open.splice(0)) c.close(); });

async function store(prefix: string, nodeId: string): Promise<RedisBracketStore> {
  const conn = await RedisConnection.open({ url: server.url, prefix, nodeId, timeoutMs: 2000, probeIntervalMs: 1000, log });
  open.push(conn);
  const s = new RedisBracketStore(conn);
  prefixOf.set(s, prefix);
  return s;
}

describeBracketStoreContract('redis', {
  make: () => store(`t${run}-${++prefixes}:`, 'node-a'),
  reopen: (first) => store(prefixOf.get(first as RedisBracketStore)!, 'node-b'),
  shared: true,
});
