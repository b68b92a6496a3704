// Slow and dead consumers. An overlay that stops reading (its TCP socket paused for seconds while
// the match changes) does not grow the server's buffers past the per-socket cap nor slow the
// other overlays; once it reads again it gets the latest state, also when the match ended
// meanwhile. Dead connections are found by the ping/pong heartbeat within its timeouts.
import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import type * as ReplayClient from '../src/tools/replay-client.js';
import type * as RecordedMatch from '../src/tools/recorded-match.js';
import { closeAll, connected, frontend, nextEvent } from './helpers/clients.js';
import { startTestService, type TestService } from './helpers/service.js';
import type { MemorySessionStore } from '../src/main/adapters/memory/session-store.js';

const { playReplay, sendRecords } = (await import('../dist/tools/replay-client.js')) as unknown as typeof ReplayClient;
const { recordedMatch } = (await import('../dist/tools/recorded-match.js')) as unknown as typeof RecordedMatch;
const replay = recordedMatch();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const services: TestService[] = [];
const sockets: Socket[] = [];
afterAll(async () => {
  for (const s of sockets) {
    (s.io.engine?.transport as unknown as { ws?: { _socket?: { destroy(): void } } } | undefined)?.ws?._socket?.destroy();
    s.close();
  }
  closeAll();
  for (const s of services) await s.close();
});

/** The TCP socket under a websocket socket.io-client connection. */
/** The recorded match with big sponsor lists (~50 KB more per frame), so that a paused reader fills its buffers fast. */
const heavy = {
  ...replay,
  header: { ...replay.header, toolsData: { ...(replay.header.toolsData as object), sponsorInfo: { enabled: true, duration: 5000, sponsors: Array.from({ length: 1200 }, (_, i) => `https://cdn.example.org/sponsors/logo-${i}.png`) } } },
};

const tcpOf = (s: Socket) => (s.io.engine.transport as unknown as { ws: { _socket: { pause(): void; resume(): void } } }).ws._socket;

/** Server side: the largest bufferedAmount of any frontend WebSocket right now. */
function maxBuffered(svc: TestService): number {
  let max = 0;
  for (const socket of svc.service.broadcast.io.sockets.sockets.values()) {
    const ws = (socket.conn.transport as unknown as { socket?: { bufferedAmount?: number } }).socket;
    max = Math.max(max, ws?.bufferedAmount ?? 0);
  }
  return max;
}

describe('an overlay that stops reading', () => {
  it('is skipped while it does not read (bounded buffer, others unaffected) and gets the latest state once it reads again', async () => {
    const svc = await startTestService({ AUTH_KEY: 'k', TRUST_REPLAY_TIMESTAMPS: 'true', BROADCAST_INTERVAL_MS: '10' });
    services.push(svc);
    const code = 'SLOW01';
    // Plain frames (~70 KB each with the sponsor lists, no deflate) fill the socket buffers quickly.
    const slow = io(svc.broadcast, { forceNew: true, reconnection: false, transports: ['websocket'], perMessageDeflate: false } as never);
    sockets.push(slow);
    const slowFrames: string[] = [];
    slow.on('match_data', (f: string) => slowFrames.push(f));
    await connected(slow);
    const ok = nextEvent(slow, 'logon_success');
    slow.emit('logon', JSON.stringify({ groupCode: code }));
    await ok;
    const fast = await frontend(svc.broadcast, code, ['websocket']);

    const run = await playReplay(heavy, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: code, to: 200 });
    await expect.poll(() => slowFrames.length, { timeout: 15_000 }).toBeGreaterThan(0);

    // Stop reading for seconds while the match runs to its end.
    tcpOf(slow).pause();
    const pausedAt = slowFrames.length;
    let peak = 0;
    const sampler = setInterval(() => { peak = Math.max(peak, maxBuffered(svc)); }, 20);
    const skippedBefore = svc.service.broadcast.counters.skipped;
    await sendRecords(run.socket, replay, { pace: 400, groupCode: code, from: 200, to: 1400 });
    await sendRecords(run.socket, replay, { pace: 'instant', groupCode: code, from: 1400 });
    const final = await fast.waitFor((f) => f.roundPhase === 'game_end', 30_000);
    await expect.poll(() => svc.service.shared.directory.get(code)).toBeUndefined(); // the match is gone already
    await sleep(500);
    clearInterval(sampler);
    const framesWhilePaused = fast.frames.length;
    expect(framesWhilePaused).toBeGreaterThan(100); // the match changed a lot, the fast overlay saw it all
    expect(svc.service.broadcast.counters.skipped - skippedBefore).toBeGreaterThan(0);
    // The server held at most the cap (256 KB) plus one frame for it.
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(256 * 1024 + 64 * 1024);

    // Reading again: it receives what was queued, then the latest state, and is never left stale.
    tcpOf(slow).resume();
    await expect.poll(() => slowFrames.length > pausedAt && JSON.parse(slowFrames[slowFrames.length - 1]).roundPhase === 'game_end', { timeout: 10_000 }).toBe(true);
    expect(JSON.parse(slowFrames[slowFrames.length - 1])).toEqual(final);
    expect(slowFrames.length).toBeLessThan(fast.frames.length); // intermediate frames were skipped
    run.socket.close();
  }, 60_000);
});

describe('dead connections', () => {
  it('are detected by ping/pong within PING_INTERVAL_MS + PING_TIMEOUT_MS on both listeners; the observer session stays resumable', async () => {
    // The clients answer pings from this very process: a pong timeout of 1 s (not 300 ms) rides out its stalls on a loaded machine.
    const svc = await startTestService({ AUTH_KEY: 'k', PING_INTERVAL_MS: '300', PING_TIMEOUT_MS: '1000' });
    services.push(svc);
    const observer = io(svc.ingest, { forceNew: true, reconnection: false, transports: ['websocket'] });
    sockets.push(observer);
    await connected(observer);
    const ack = nextEvent<string>(observer, 'obs_logon_ack');
    observer.emit('obs_logon', JSON.stringify({ type: 'authenticate', clientVersion: '0.3.3', obsName: 'o', key: 'k', groupCode: 'DEAD01', groupSecret: '', leftTeam: { name: 'a', tricode: 'a', url: '' }, rightTeam: { name: 'b', tricode: 'b', url: '' } }));
    expect(JSON.parse(await ack).value).toBe(true);
    const fe = await frontend(svc.broadcast, 'DEAD01', ['websocket']);
    await sleep(800); // heartbeats go on while both answer: proves that neither is closed
    expect(svc.service.broadcast.frontendCount('DEAD01')).toBe(1);
    expect(svc.service.ingest.socketCounts().observer).toBe(1);

    // Both stop answering (a frozen PC, a cable pulled): the server notices within interval + timeout.
    const stoppedAt = Date.now();
    tcpOf(observer).pause();
    tcpOf(fe.socket).pause();
    await expect.poll(() => svc.service.broadcast.frontendCount('DEAD01') === 0 && svc.service.ingest.socketCounts().observer === 0, { timeout: 15_000, interval: 25 }).toBe(true);
    expect(Date.now() - stoppedAt).toBeLessThan(300 + 1000 + 500);
    const session = (svc.service.shared.sessions as MemorySessionStore).all().filter((s) => s.groupCode === 'DEAD01')[0];
    expect(session.socketId).toBeNull();
    expect(session.disconnectedAt).not.toBeNull();
    expect(svc.service.shared.directory.get('DEAD01')).toBeDefined(); // the match itself goes on
  }, 20_000);
});
