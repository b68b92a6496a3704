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
const opened: RedisConnection[] = [];
beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => { conn?.close(); for (const c of opened) c.close(); await server?.stop(); });

async function connect(prefix: string, nodeId: string): Promise<RedisConnection> {
  const c = await RedisConnection.open({ url: server.url, prefix, nodeId, timeoutMs: 2000, probeIntervalMs: 5000, log });
  opened.push(c);
  return c;
}

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

// The sentinel-failover-move failures (docs/reliability.md, "The 300 runs on one build"): the owner's
// inbox subscriber blinks (a Redis failover: it subscribes again when it reconnects) while this node
// forwards a moved observer's data. Sends answered "nobody" were held, offered to the owner again while
// it was still away (answered "nobody" again, and held behind later ones), and later sends reached the
// owner once it was back before earlier held ones: the owner applied them out of order.
describe('OwnerDelivery while the owner\'s inbox blinks', () => {
  it('the owner gets every message once, in the order sent, however often it leaves and comes back', async () => {
    const prefix = `b${randomUUID().slice(0, 8)}:`;
    const sender = await connect(prefix, 'node-b');
    const ownerConn = await connect(prefix, 'node-a');
    const ownerInbox = new RedisOwnerInbox(ownerConn, { log });
    const events = new EventBus<MainEvents>();
    const remote = new OwnerDelivery({ inbox: new RedisOwnerInbox(sender, { log }), log, events, maxAgeMs: 60_000, nodeId: 'node-b', retainMs: 10_000, maxHeld: 5000 });
    const got: string[] = [];
    const listening: { stop: (() => void) | null } = { stop: null };
    const listen = async () => {
      listening.stop = ownerInbox.listen('CODE', (m) => { if (m.t === 'obs') got.push(m.raw); });
      await ownerConn.sub.ping(); // the subscription is confirmed
    };
    // Gone as after a failover (the new primary has no subscription yet): the server has no
    // subscriber for the channel. (Unsubscribed by the inbox itself, a message the server still
    // routed to it in between would be dropped by the inbox: not the failover's case.)
    const channel = sender.keys.ownerChannel('CODE');
    const subscribers = async () => Number(/:(\d+)\r\n$/.exec(await server.command('PUBSUB', 'SHARDNUMSUB', channel))?.[1]);
    const away = async () => {
      await expect.poll(() => remote.pending('CODE')).toBe(false); // none on its way to the listener
      listening.stop?.();
      listening.stop = null;
      await expect.poll(subscribers).toBe(0);
    };
    // The takeover's part (takeover.ts): the owner's lease is live, so what is held is offered to it
    // again, at once and then on every retry while some is held.
    let missing = 0;
    events.on('matchOwnerMissing', () => { missing++; setImmediate(() => remote.release('CODE')); });
    const offers = setInterval(() => { if (remote.waiting().includes('CODE')) remote.release('CODE'); }, 20);
    try {
      await listen();
      const sent: string[] = [];
      let n = 0;
      const burst = (count: number) => { for (let i = 0; i < count; i++) { const raw = `m${++n}`; sent.push(raw); remote.send('CODE', { t: 'obs', raw }); } };
      for (let blink = 0; blink < 20; blink++) {
        burst(15);
        await away();
        burst(15); // answered "nobody": held, offered to the owner again while it is still away
        await new Promise((r) => setImmediate(r));
        burst(15);
        await new Promise((r) => setImmediate(r));
        burst(15);
        await listen(); // and back, while some are still unanswered or held
        burst(15);
        await new Promise((r) => setImmediate(r));
      }
      await expect.poll(() => got.length, { timeout: 20_000 }).toBe(sent.length);
      expect(got).toEqual(sent);
      expect(missing).toBeGreaterThan(0); // the owner really was missing for some
      expect(remote.stats.dropped).toBe(0);
    } finally {
      clearInterval(offers);
      listening.stop?.();
      remote.close();
    }
  });
});
