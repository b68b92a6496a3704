// The Redis OwnerInbox (matches/adapters/redis/owner-inbox.ts) against a real redis-server: the OwnerInbox
// contract between two nodes, and its encoding. (That the frame bus's keyframe requests travel on a
// channel of their own, beside the inbox's, is tested with the frame bus: frames-redis.test.ts.)
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/redis/connection.js';
import { RedisOwnerInbox, decodeInboxBatch, decodeInboxMessage, encodeInboxBatch, encodeInboxMessage } from '../../../src/main/matches/adapters/redis/owner-inbox.js';
import type { OwnerInbox } from '../../../src/main/matches/owner-inbox.js';
import { describeOwnerInboxContract, INBOX_MESSAGES } from './owner-inbox.contract.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

const log = pino({ level: 'silent' });
let server: RedisServer;
const open: RedisConnection[] = [];
const connOf = new Map<OwnerInbox, RedisConnection>();

beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => { await server?.stop(); });
afterEach(() => {
  for (const c of open.splice(0)) c.close();
  connOf.clear();
});

async function inbox(prefix: string, nodeId: string): Promise<RedisOwnerInbox> {
  const conn = await RedisConnection.open({ url: server.url, prefix, nodeId, timeoutMs: 2000, probeIntervalMs: 5000, log });
  open.push(conn);
  const box = new RedisOwnerInbox(conn, { log });
  connOf.set(box, conn);
  return box;
}

describeOwnerInboxContract('redis', {
  pair: async () => {
    const prefix = `i${randomUUID().slice(0, 8)}:`;
    return [await inbox(prefix, 'sender'), await inbox(prefix, 'owner')];
  },
  // The subscriber's commands are answered in order: its SSUBSCRIBEs are confirmed before this PING.
  settle: async (owner) => { await connOf.get(owner)!.sub.ping(); },
});

describe('RedisOwnerInbox encoding', () => {

  it('encodes each message compactly (its kind, then its fields) and back; malformed payloads decode to null', () => {
    for (const m of INBOX_MESSAGES) expect(decodeInboxMessage(Buffer.from(encodeInboxMessage(m)))).toEqual(m);
    expect(encodeInboxMessage({ t: 'obs', raw: 'x' })).toBe('ox');
    expect(encodeInboxMessage({ t: 'aux_disconnected', matchId: 'm', playerId: 'p:1' })).toBe('d1:m3:p:1');
    for (const bad of ['', 'R', 'a5:ab', 'axx:', 'd1:a1:bz', 'q']) expect(decodeInboxMessage(Buffer.from(bad))).toBeNull();
  });

  it('a send of several messages is one batch payload, a lone message its own encoding; a malformed batch decodes to null', () => {
    expect(decodeInboxBatch(Buffer.from(encodeInboxBatch(INBOX_MESSAGES)))).toEqual(INBOX_MESSAGES);
    expect(encodeInboxBatch([{ t: 'obs', raw: 'x' }])).toBe('ox');
    expect(encodeInboxBatch([{ t: 'obs', raw: 'x' }, { t: 'obs', raw: 'é' }])).toBe('b2:ox2:oé');
    expect(decodeInboxBatch(Buffer.from('ox'))).toEqual([{ t: 'obs', raw: 'x' }]);
    for (const bad of ['b', 'b2:ox9:oy', 'b0:', 'b2:bx', 'bx:ox']) expect(decodeInboxBatch(Buffer.from(bad))).toBeNull();
  });
});
