// The Redis FrameBus and OwnerInbox against a real redis-server: the FrameBus contract (local
// delivery), and across nodes with the recorded match's real frames (frame text + the shard's
// delta): a watching node joins mid-stream with one keyframe, then rebuilds every frame byte for
// byte from the deltas; epochs fence stale owners and let a new owner in; the last listener's
// going ends the subscription; Redis going away and coming back.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/redis/connection.js';
import { deflateDelta } from '../../../src/codec/layout-delta.js';
import { inflateDelta, inflateDeltaZlib } from '../../../src/codec/inflate-delta.js';
import { FRAME_KIND, RedisFrameBus } from '../../../src/main/frames/adapters/redis/frame-bus.js';
import type { ReceivedFrame } from '../../../src/main/frames/adapters/redis/frame-received.js';
import { RedisOwnerInbox } from '../../../src/main/matches/adapters/redis/owner-inbox.js';
import type { Frame } from '../../../src/main/frames/frame-bus.js';
import type { InboxMessage } from '../../../src/main/matches/owner-inbox.js';
import { recordedFrames, type RecordedFrame } from '../../../src/tools/recorded-frames.js';
import { describeFrameBusContract } from './frame-bus.contract.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

const log = pino({ level: 'silent' });
let redis: RedisServer;
const conns: RedisConnection[] = [];
const buses: RedisFrameBus[] = [];
let prefixes = 0;

// Slow probes (a loaded machine must not make a connection look down), fast for the outage test.
async function connect(prefix: string, nodeId: string, probeIntervalMs = 5000): Promise<RedisConnection> {
  const conn = await RedisConnection.open({ url: redis.url, prefix, nodeId, timeoutMs: 2000, probeIntervalMs, log });
  conns.push(conn);
  return conn;
}

async function frameBus(prefix: string, nodeId: string, probeIntervalMs?: number, answerIntervalMs?: number): Promise<{ conn: RedisConnection; bus: RedisFrameBus }> {
  const conn = await connect(prefix, nodeId, probeIntervalMs);
  const bus = new RedisFrameBus(conn, { log, answerIntervalMs });
  buses.push(bus);
  return { conn, bus };
}

/** Frame `frameNo`'s delta is lost on the way to `bus` (a gap its watcher must mend). */
function loseDelta(bus: RedisFrameBus, frameNo: number): void {
  const receive = bus.receive.bind(bus);
  bus.receive = (c, m) => { if (!(m[0] === FRAME_KIND.delta && m.readUInt32BE(7) === frameNo)) receive(c, m); };
}

/** Sharded subscribers of a channel (PUBSUB SHARDNUMSUB). */
async function shardSubscribers(channel: string): Promise<number> {
  const reply = await redis.command('PUBSUB', 'SHARDNUMSUB', channel);
  const m = /:(\d+)\r\n$/.exec(reply);
  if (!m) throw new Error(`unexpected PUBSUB reply ${JSON.stringify(reply)}`);
  return Number(m[1]);
}


/**
 * A frame as a recipient reads it when it is delivered. A watching node's frame makes its text when
 * read, and its bytes are reused once two newer frames arrived (frame-received.ts): a recipient
 * that keeps a frame keeps what it read.
 */
interface Delivered extends Frame { readonly delta: string | null }
const asDelivered = (f: Frame, delta: string | null): Delivered => ({ groupCode: f.groupCode, frameNo: f.frameNo, epoch: f.epoch, frameText: f.frameText, delta });

let frames: RecordedFrame[];
/** Frame `frameNo` (1-based) of the recording as its owner publishes it: the frame and its delta. */
const packet = (code: string, frameNo: number, epoch: number, keyframe = false): [Frame, string | null] =>
  [{ groupCode: code, frameNo, epoch, frameText: frames[frameNo - 1].frameText }, keyframe ? null : frames[frameNo - 1].delta];

beforeAll(async () => {
  redis = await startRedisServer();
  frames = recordedFrames();
});

afterAll(async () => {
  for (const bus of buses) bus.close();
  for (const conn of conns) conn.close();
  await redis?.stop();
});

let contractConn: RedisConnection | null = null;
describeFrameBusContract('redis', {
  async make() {
    const { conn, bus } = await frameBus(`contract${++prefixes}:`, `contract${prefixes}`);
    contractConn = conn;
    return bus;
  },
  // Local delivery is synchronous; what the bus sent to Redis meanwhile is through once a command after it returns.
  async settle() { await contractConn?.cmd.ping(); },
});

describe('deltas rebuilt on a watching node', () => {
  it('every delta of the recording decodes to its frame, as zlib decodes it', () => {
    expect(frames.length).toBeGreaterThan(1000);
    for (let k = 1; k < frames.length; k++) {
      const base = Buffer.from(frames[k - 1].frameText);
      const delta = Buffer.from(frames[k].delta!, 'latin1');
      const expected = Buffer.from(frames[k].frameText);
      expect(inflateDeltaZlib(base, delta).equals(expected)).toBe(true);
      expect(inflateDelta(base, delta).equals(expected)).toBe(true);
    }
  });

  it('a malformed delta throws rather than making up a frame', () => {
    const base = Buffer.from(frames[10].frameText);
    const delta = Buffer.from(frames[11].delta!, 'latin1');
    expect(() => inflateDelta(Buffer.alloc(0), delta)).toThrow(/distance/);
    expect(() => inflateDelta(base, delta.subarray(0, delta.length >> 1))).toThrow();
  });
});

describe('RedisFrameBus across nodes', () => {
  const prefix = 'x:';
  const code = 'CROSS1';
  let A: RedisFrameBus, B: RedisFrameBus, C: RedisFrameBus;
  let connA: RedisConnection;
  let connB: RedisConnection;
  const got: Delivered[] = [];
  let offB: () => void = () => undefined;
  const MID = 300;

  beforeAll(async () => {
    ({ bus: A, conn: connA } = await frameBus(prefix, 'A'));
    ({ bus: B, conn: connB } = await frameBus(prefix, 'B'));
    ({ bus: C } = await frameBus(prefix, 'C'));
  });

  it('a node joining mid-stream gets one keyframe, then every frame rebuilt byte for byte with the same delta bytes', async () => {
    A.open(code, 5);
    const local: Frame[] = [];
    const offLocal = A.subscribe(code, (f) => local.push(f)); // the owner's own overlays: direct calls
    for (let n = 1; n <= MID; n++) A.publish(...packet(code, n, 5));
    expect(local.length).toBe(MID);
    expect(A.stats.framesPublished).toBe(MID);
    // Those went through Redis before B joins (a PING's answer follows every earlier command of A's
    // connection); otherwise B's subscription could see the last of them, deltas without a base.
    await connA.cmd.ping();

    offB = B.subscribe(code, (f, delta) => got.push(asDelivered(f, delta)));
    await expect.poll(() => got.length).toBe(1);
    expect([got[0].frameNo, got[0].epoch, got[0].delta]).toEqual([MID, 5, null]);
    expect(got[0].frameText).toBe(frames[MID - 1].frameText);
    expect(B.latest(code)?.frameNo).toBe(MID);

    for (let n = MID + 1; n <= frames.length; n++) A.publish(...packet(code, n, 5));
    await expect.poll(() => got.length).toBe(frames.length - MID + 1);
    for (let k = 1; k < got.length; k++) {
      const n = MID + k;
      const f = got[k];
      if (f.frameNo !== n || f.frameText !== frames[n - 1].frameText || f.delta !== frames[n - 1].delta || f.epoch !== 5) {
        throw new Error(`frame ${n} differs on B: #${f.frameNo}@${f.epoch}, wire equal ${f.frameText === frames[n - 1].frameText}, delta equal ${f.delta === frames[n - 1].delta}`);
      }
    }
    expect(B.latest(code)?.frameText).toBe(frames[frames.length - 1].frameText);
    const stats = JSON.stringify({ A: A.stats, B: B.stats });
    expect(got.filter((f) => f.delta === null).length, stats).toBe(1); // B's overlays: one keyframe, then deltas
    expect(B.stats, stats).toMatchObject({ keyframesRequested: 1, keyframesReceived: 1, gaps: 0, noBase: 0, badDeltas: 0, framesReceived: frames.length - MID + 1 });
    expect(A.stats.keyframesAnswered, stats).toBe(1);
    expect(local.length).toBe(frames.length);
    offLocal();

    // Through Redis: every frame of the recording once (its delta; the first frame and the answer
    // to B's request as keyframes), whatever the number of overlays.
    const perFrame = A.stats.bytesPublished / frames.length;
    console.log(`bytes through Redis per frame over the recording (${frames.length} frames): ${perFrame.toFixed(0)}`);
    expect(perFrame).toBeLessThanOrEqual(1024);
  });

  it('drops the frames of a lower epoch', async () => {
    const before = { got: got.length, stale: B.stats.droppedStale };
    C.open(code, 3); // a stale owner that still thinks it runs the match
    C.publish(...packet(code, 1, 3));
    C.publish(...packet(code, 2, 3));
    await expect.poll(() => B.stats.droppedStale).toBe(before.stale + 2);
    expect(got.length).toBe(before.got);
    expect(B.latest(code)?.epoch).toBe(5);
    C.end(code); // its final frame again ('K') and its 'X' are of epoch 3: B keeps the match
    await expect.poll(async () => { await connB.cmd.ping(); return B.stats.droppedStale; }).toBe(before.stale + 4);
    expect(B.latest(code)?.frameNo).toBe(frames.length);
  });

  it('follows a new owner (higher epoch) from its first keyframe, and fences the old one', async () => {
    const from = got.length;
    C.open(code, 9); // took the match over
    for (let n = 1; n <= 20; n++) C.publish(...packet(code, n, 9));
    await expect.poll(() => got.length).toBe(from + 20);
    expect(got.slice(from).map((f) => `${f.frameNo}@${f.epoch}`)).toEqual(Array.from({ length: 20 }, (_, i) => `${i + 1}@9`));
    expect(got.slice(from).every((f, i) => f.frameText === frames[i].frameText)).toBe(true);
    expect(got[from].delta).toBeNull();
    expect(got[from + 1].delta).toBe(frames[1].delta);
    const stale = B.stats.droppedStale;
    A.publish(...packet(code, 1, 5, true)); // the old owner, not told yet
    await expect.poll(() => B.stats.droppedStale).toBe(stale + 1);
    expect(got.length).toBe(from + 20);
    A.end(code);
  });

  it('the end of the match (X) drops the latest frame; the watcher stays subscribed', async () => {
    C.end(code);
    await expect.poll(() => B.latest(code)).toBeUndefined();
    expect(await shardSubscribers(`${prefix}f:${code}`)).toBe(1);
  });

  it('the last listener going ends the subscription and the delivery', async () => {
    const code2 = 'CROSS2';
    const { bus: E } = await frameBus(prefix, 'E');
    A.open(code2, 1);
    A.publish(...packet(code2, 1, 1));
    const b1: Frame[] = [];
    const b2: Frame[] = [];
    const offB1 = B.subscribe(code2, (f) => b1.push(f));
    const offB2 = B.subscribe(code2, (f) => b2.push(f));
    await expect.poll(() => b1.length).toBe(1);
    expect(b2.length).toBe(1);
    expect(await shardSubscribers(`${prefix}f:${code2}`)).toBe(1);
    offB1();
    A.publish(...packet(code2, 2, 1));
    await expect.poll(() => b2.length).toBe(2);
    expect(await shardSubscribers(`${prefix}f:${code2}`)).toBe(1);
    offB2();
    offB2();
    await expect.poll(() => shardSubscribers(`${prefix}f:${code2}`)).toBe(0);
    // A watcher on another node still gets the next frames; B none.
    const e: Frame[] = [];
    E.subscribe(code2, (f) => e.push(f));
    await expect.poll(() => e.length).toBe(1);
    A.publish(...packet(code2, 3, 1));
    await expect.poll(() => e.map((f) => f.frameNo)).toEqual([2, 3]);
    expect([b1.length, b2.length]).toEqual([1, 2]);
    expect(B.latest(code2)).toBeUndefined();
    offB(); // the first test's listener
    await expect.poll(() => shardSubscribers(`${prefix}f:${code}`)).toBe(0);
  });

  it('a lost frame (a gap) is dropped and mended with a keyframe', async () => {
    const code3 = 'CROSS3';
    const { bus: F } = await frameBus(prefix, 'F');
    loseDelta(F, 2);
    A.open(code3, 2);
    A.publish(...packet(code3, 1, 2));
    const f: Delivered[] = [];
    F.subscribe(code3, (p, delta) => f.push(asDelivered(p, delta)));
    await expect.poll(() => f.length).toBe(1);
    A.publish(...packet(code3, 2, 2));
    A.publish(...packet(code3, 3, 2));
    await expect.poll(() => f.map((p) => p.frameNo)).toEqual([1, 3]);
    expect(F.stats).toMatchObject({ gaps: 1, keyframesRequested: 2, keyframesReceived: 2 });
    expect(f[1].delta).toBeNull(); // F's overlays get frame 3 as a keyframe
    A.publish(...packet(code3, 4, 2));
    await expect.poll(() => f.map((p) => p.frameNo)).toEqual([1, 3, 4]);
    expect(f.map((p) => p.frameText)).toEqual([frames[0].frameText, frames[2].frameText, frames[3].frameText]);
    expect(f[2].delta).toBe(frames[3].delta);
    A.end(code3);
  });

  it('a watcher still waiting for its keyframe when the match ends gets the final frame', async () => {
    // CI: a node whose overlay asked for a keyframe (the owner's epoch had just moved, after a Redis
    // restart) while the match's last frames went out; the owner's answer waited for its interval,
    // the match ended first, and that node's overlay never got the final frame.
    const code4 = 'CROSS4';
    const { bus: O } = await frameBus(prefix, 'O', undefined, 60_000); // a second answer waits a minute
    const { bus: G } = await frameBus(prefix, 'G');
    loseDelta(G, 2);
    O.open(code4, 1);
    O.publish(...packet(code4, 1, 1));
    const g: Delivered[] = [];
    G.subscribe(code4, (p, delta) => g.push(asDelivered(p, delta)));
    await expect.poll(() => g.map((p) => p.frameNo)).toEqual([1]); // the first answer goes at once
    O.publish(...packet(code4, 2, 1)); // lost on the way to G
    O.publish(...packet(code4, 3, 1)); // the match's last frame: G has no base for it and asks
    await expect.poll(() => G.stats.gaps).toBe(1);
    O.end(code4);
    await expect.poll(() => g.map((p) => p.frameNo), { timeout: 10_000 }).toEqual([1, 3]);
    expect(g[1].frameText).toBe(frames[2].frameText);
    expect(g[1].delta).toBeNull();
    await expect.poll(() => G.latest(code4)).toBeUndefined(); // then the end (X)
  });
});

describe('a watching node\'s frames: text on demand, buffers reused', () => {
  it('a frame\'s text is made only when a recipient reads it, byte for byte the owner\'s (UTF-8 included), and a frame two back gives its bytes to the next', async () => {
    const { bus: A, conn: connA } = await frameBus('lazy:', 'A');
    const { bus: B } = await frameBus('lazy:', 'B');
    const code = 'LAZY1';
    // Frames with non-ASCII text (a player's name), growing past the rebuild buffer's room, with real deltas.
    const texts = Array.from({ length: 40 }, (_, i) => `42["match_data","{\\"n\\":${i},\\"name\\":\\"Zoë 日本 ${'é'.repeat(i * 300)}\\"}"]`);
    const frame = (n: number, keyframe = false): [Frame, string | null] => [
      { groupCode: code, frameNo: n, epoch: 1, frameText: texts[n - 1] },
      keyframe ? null : Buffer.from(deflateDelta(Buffer.from(texts[n - 2]), Buffer.from(texts[n - 1]))!).toString('latin1'),
    ];
    A.open(code, 1);
    A.publish(...frame(1, true));
    await connA.cmd.ping();
    const got: ReceivedFrame[] = [];
    const deltas: (string | null)[] = [];
    B.subscribe(code, (f, delta) => { got.push(f as ReceivedFrame); deltas.push(delta); }); // a delta-only recipient: never reads the text
    await expect.poll(() => got.length).toBe(1);
    for (let n = 2; n <= texts.length; n++) A.publish(...frame(n));
    await expect.poll(() => got.length).toBe(texts.length);
    expect(B.stats).toMatchObject({ badDeltas: 0, gaps: 0, noBase: 0 });
    expect(got.map((f) => f.frameNo)).toEqual(texts.map((_, i) => i + 1));
    expect(deltas.slice(1)).toEqual(texts.slice(1).map((_, i) => frame(i + 2)[1]));
    expect(got.filter((f) => f.textMade).length).toBe(0); // nobody read a text: none was made
    // The latest and the one before keep their bytes: their texts, made now, are the owner's.
    const last = got[got.length - 1];
    expect(B.latest(code)).toBe(last);
    expect(last.frameText).toBe(texts[texts.length - 1]);
    expect(got[got.length - 2].frameText).toBe(texts[texts.length - 2]);
    // Older ones gave their buffers to newer frames: a text not read by then is gone (a Frame may be
    // without its text: such a frame is moot, a newer one came to every subscriber).
    expect(got[got.length - 3].bytes).toBeNull();
    expect(got[got.length - 3].frameText).toBeNull();
    // A text read while the frame was current stays.
    const reader = await frameBus('lazy:', 'C');
    const read: string[] = [];
    reader.bus.subscribe(code, (f) => { read.push(f.frameText!); });
    await expect.poll(() => read.length).toBe(1); // its keyframe (the latest)
    for (let n = 1; n <= 5; n++) A.publish({ ...frame(texts.length - 5 + n, true)[0], frameNo: texts.length + n }, null);
    await expect.poll(() => read.length).toBe(6);
    expect(read).toEqual([texts[texts.length - 1], ...texts.slice(texts.length - 5)]);
    A.end(code);
  });
});

describe('RedisOwnerInbox beside the frame bus (its encoding and contract: inbox-redis.test.ts)', () => {
  const prefix = 'i:';
  it('messages from another node reach the owner in order; the frame bus\'s keyframe requests have a channel of their own', async () => {
    const connA = await connect(prefix, 'A');
    const connB = await connect(prefix, 'B');
    const inboxA = new RedisOwnerInbox(connA, { log });
    const inboxB = new RedisOwnerInbox(connB, { log });
    const busA = new RedisFrameBus(connA, { log });
    const busB = new RedisFrameBus(connB, { log });
    buses.push(busA, busB);
    const code = 'INBOX1';
    const received: InboxMessage[] = [];
    const off = inboxA.listen(code, (m) => received.push(m));
    busA.open(code, 1); // the owner listens for keyframe requests (the match's keyframe channel)
    busA.publish(...packet(code, 1, 1));
    await connA.cmd.ping();
    const sent: InboxMessage[] = [];
    for (let i = 0; i < 500; i++) {
      const m: InboxMessage = i % 3 === 0 ? { t: 'obs', raw: `{"n":${i}}` } : i % 3 === 1 ? { t: 'aux', matchId: 'M', playerId: `p${i}`, raw: `{"n":${i}}` } : { t: 'aux_disconnected', matchId: 'M', playerId: `p${i}` };
      sent.push(m);
      void inboxB.send(code, [m]);
      if (i === 250) busB.subscribe(code, () => undefined); // a keyframe request in the middle
    }
    await expect.poll(() => received.length).toBe(500);
    expect(received).toEqual(sent);
    expect(await inboxB.send(code, [{ t: 'obs', raw: 'counted' }])).toBe(1); // SPUBLISH's answer: the owner node received it
    await expect.poll(() => received.length).toBe(501);
    received.pop();
    await expect.poll(() => busB.stats.keyframesReceived).toBe(1);
    expect(busA.stats.keyframesAnswered).toBe(1); // 500 inbox messages were no keyframe requests
    expect(inboxA.stats.malformed).toBe(0);
    expect(await shardSubscribers(`${prefix}o:${code}`)).toBe(1);
    expect(await shardSubscribers(`${prefix}k:${code}`)).toBe(1);

    // No listener: nothing delivered, no error.
    off();
    await expect.poll(() => shardSubscribers(`${prefix}o:${code}`)).toBe(0); // busA listens on the keyframe channel only
    expect(await inboxB.send(code, [{ t: 'obs', raw: 'while nobody listens' }])).toBe(0);
    expect(await inboxB.send('NOBODY', [{ t: 'obs', raw: 'x' }])).toBe(0); // nobody runs it: the sender holds its data (matches/owner-delivery.ts)
    // Both through Redis and read by A before A listens again.
    await connB.cmd.ping();
    await connA.sub.ping();
    const later: InboxMessage[] = [];
    inboxA.listen(code, (m) => later.push(m));
    await expect.poll(() => shardSubscribers(`${prefix}o:${code}`)).toBe(1);
    expect(await inboxB.send(code, [{ t: 'obs', raw: 'marker' }])).toBe(1);
    await expect.poll(() => later.length).toBe(1);
    expect(later).toEqual([{ t: 'obs', raw: 'marker' }]);
    expect(received.length).toBe(500);
    busA.end(code);
    inboxA.close();
    inboxB.close();
    await expect.poll(() => shardSubscribers(`${prefix}o:${code}`)).toBe(0);
    await expect.poll(() => shardSubscribers(`${prefix}k:${code}`)).toBe(0);
  });
});

// Last: it stops the shared redis-server.
describe('Redis unreachable, then back', () => {
  it('local delivery goes on, publishing fails and is counted, watchers re-request keyframes when Redis is back', async () => {
    const prefix = 'r:';
    const code = 'OUTAGE';
    const { bus: A, conn: connA } = await frameBus(prefix, 'A', 300);
    const { bus: B, conn: connB } = await frameBus(prefix, 'B', 300);
    const inbox = new RedisOwnerInbox(connB, { log });
    A.open(code, 1);
    A.publish(...packet(code, 1, 1));
    const local: Frame[] = [];
    A.subscribe(code, (f) => local.push(f));
    const got: Delivered[] = [];
    B.subscribe(code, (f, delta) => got.push(asDelivered(f, delta)));
    await expect.poll(() => got.length).toBe(1);

    await redis.stop();
    await expect.poll(() => connA.cmd.status !== 'ready' && connB.cmd.status !== 'ready').toBe(true);
    const failed = A.stats.publishFailed;
    for (let n = 2; n <= 10; n++) A.publish(...packet(code, n, 1));
    expect(local.map((f) => f.frameNo)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(A.stats.publishFailed).toBe(failed + 9);
    await expect(inbox.send(code, [{ t: 'obs', raw: 'x' }])).rejects.toThrow();

    const requested = B.stats.keyframesRequested;
    await redis.start();
    await expect.poll(() => connA.up && connB.up).toBe(true);
    await expect.poll(() => B.latest(code)?.frameNo).toBe(10);
    expect(B.stats.keyframesRequested).toBeGreaterThan(requested);
    expect(B.latest(code)?.frameText).toBe(frames[9].frameText);
    // And the stream goes on from there.
    A.publish(...packet(code, 11, 1));
    await expect.poll(() => got.at(-1)?.frameNo).toBe(11);
    expect(got.at(-1)?.delta).toBe(frames[10].delta);
    inbox.close();
  }, 60_000);
});
