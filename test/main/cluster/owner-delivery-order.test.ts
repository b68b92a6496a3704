// Ingestion data in order across a takeover (matches/owner-delivery.ts; docs/reliability.md, "The
// events-cluster loss"): a node that adopts a match while its own earlier sends of that match's data
// to the owner's inbox are still unanswered (Redis answers after the adoption: nobody received them)
// must apply those first, and hold what comes meanwhile behind them. Before, the late answers were
// held and applied after the messages that went straight to the shard: the match was rewound, and
// the node that took it over derived no round_ended for the rounds in between. Real Redis, the real
// RedisOwnerInbox; `apply` records what reaches the node's shard, in order.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/redis/connection.js';
import { RedisOwnerInbox } from '../../../src/main/matches/adapters/redis/owner-inbox.js';
import { EventBus, type MainEvents } from '../../../src/main/base/events.js';
import { OwnerDelivery } from '../../../src/main/matches/owner-delivery.js';
import type { InboxMessage } from '../../../src/main/matches/owner-inbox.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

const log = pino({ level: 'silent' });
let server: RedisServer;
let conn: RedisConnection | undefined;
beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => { conn?.close(); await server?.stop(); });

describe('OwnerDelivery across an adoption', () => {
  it('data sent to the inbox before the adoption and answered after it goes to the shard first, then what came meanwhile', async () => {
    conn = await RedisConnection.open({ url: server.url, prefix: `o${randomUUID().slice(0, 8)}:`, nodeId: 'node-b', timeoutMs: 2000, probeIntervalMs: 5000, log });
    const events = new EventBus<MainEvents>();
    const remote = new OwnerDelivery({ inbox: new RedisOwnerInbox(conn, { log }), log, events, maxAgeMs: 60_000, nodeId: 'node-b', retainMs: 10_000, maxHeld: 2000 });
    const applied: string[] = [];
    const apply = (m: InboxMessage) => { if (m.t === 'obs') applied.push(m.raw); };
    // The routing's rule (matches/routing.ts): a match run here goes through OwnerDelivery while it is pending.
    let local = false;
    const route = (raw: string) => (local && !remote.pending('CODE') ? apply({ t: 'obs', raw }) : remote.send('CODE', { t: 'obs', raw }));

    route('m1'); // the owner is gone: nobody receives it, but Redis has not answered yet
    route('m2');
    expect(remote.pending('CODE')).toBe(true);
    // Adopted here before those answers came back (takeover.ts: routes.add, then release to the shard).
    local = true;
    remote.release('CODE', apply);
    route('m3'); // after the adoption: behind m1 and m2
    await expect.poll(() => applied, { timeout: 10_000 }).toEqual(['m1', 'm2', 'm3']);
    expect(remote.pending('CODE')).toBe(false);
    route('m4'); // and then straight to the shard
    expect(applied).toEqual(['m1', 'm2', 'm3', 'm4']);
  });
});
