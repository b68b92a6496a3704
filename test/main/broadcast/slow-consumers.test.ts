// Slow and dead consumers. An overlay that stops reading (its TCP socket paused for seconds while
// the match changes) does not grow the server's buffers past the per-socket cap nor slow the
// other overlays; once it reads again it gets the latest state, also when the match ended
// meanwhile. Dead connections are found by the ping/pong heartbeat within its timeouts.
import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, connected, overlay, observer as observerClient } from '../../helpers/clients.js';
import { playReplay, recordedMatch, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { sessionPid, webSocketOf } from '../../helpers/internals/socketio-client.js';
import { tcpOf } from '../../helpers/internals/ws.js';

const replay = recordedMatch();

const services: TestService[] = [];
const sockets: Socket[] = [];
afterAll(async () => {
  for (const s of sockets) {
    const ws = webSocketOf(s);
    if (ws) tcpOf(ws).destroy();
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

const tcpUnder = (s: Socket) => tcpOf(webSocketOf(s)!);

/** Server side: the most bytes queued in any overlay's WebSocket right now (/metrics). */
const maxBuffered = (svc: TestService) => svc.metric('ods_frontend_buffered_bytes_max');

describe('an overlay that stops reading', () => {
  it('is skipped while it does not read (bounded buffer, others unaffected) and gets the latest state once it reads again', async () => {
    const svc = await startTestService({ AUTH_KEY: 'k', TRUST_REPLAY_TIMESTAMPS: 'true', BROADCAST_INTERVAL_MS: '10' });
    services.push(svc);
    const code = 'SLOW01';
    // Plain frames (~70 KB each with the sponsor lists, no deflate) fill the socket buffers quickly.
    const slowFe = await overlay(svc.broadcast, code, ['websocket'], { perMessageDeflate: false });
    const slow = slowFe.socket;
    const slowFrames = slowFe.raw;
    const fast = await overlay(svc.broadcast, code, ['websocket']);

    const run = await playReplay(heavy, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: code, to: 200 });
    await expect.poll(() => slowFrames.length, { timeout: 15_000 }).toBeGreaterThan(0);

    // Stop reading for seconds while the match runs to its end.
    tcpUnder(slow).pause();
    const pausedAt = slowFrames.length;
    let peak = 0;
    let samples = 0;
    let sampling = false;
    const sampler = setInterval(() => {
      if (sampling) return;
      sampling = true;
      void maxBuffered(svc).then((b) => { peak = Math.max(peak, b); samples++; }).finally(() => { sampling = false; });
    }, 20);
    const skipped = () => svc.metric('ods_frames_skipped_total');
    const skippedBefore = await skipped();
    // The match runs at 400× until the paused overlay was skipped (its kernel buffers and then the
    // server's cap filled: how many frames that takes depends on how loaded the machine is, frames
    // coalesce per cycle), then to its end at once.
    let next = 200;
    while (next < replay.records.length && (await skipped()) === skippedBefore) {
      await sendRecords(run.socket, replay, { pace: 400, groupCode: code, from: next, to: next + 100 });
      next += 100;
    }
    await sendRecords(run.socket, replay, { pace: 'instant', groupCode: code, from: next });
    const final = await fast.waitFor((f) => f.roundPhase === 'game_end', 30_000);
    await expect.poll(() => svc.admin.has(code)).toBe(false); // the match is gone already
    // A few more samples of what the server holds for it, now that nothing more is sent.
    const samplesAtEnd = samples;
    await expect.poll(() => samples).toBeGreaterThanOrEqual(samplesAtEnd + 5);
    clearInterval(sampler);
    const framesWhilePaused = fast.frames.length;
    // The match changed a lot and the fast overlay kept receiving (frames coalesce per cycle, so fewer under load).
    expect(framesWhilePaused).toBeGreaterThan(20);
    expect((await skipped()) - skippedBefore).toBeGreaterThan(0);
    // The server held at most the cap (256 KB) plus one frame for it.
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(256 * 1024 + 64 * 1024);

    // Reading again: it receives what was queued, then the latest state, and is never left stale.
    tcpUnder(slow).resume();
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
    const { socket: observer, ack } = await observerClient(svc.ingest, { obsName: 'o', key: 'k', groupCode: 'DEAD01' }, { transports: ['websocket'], reconnection: false });
    sockets.push(observer);
    expect(ack.value).toBe(true);
    const fe = await overlay(svc.broadcast, 'DEAD01', ['websocket']);
    /** Overlays of the match (GET /admin/matches) and observer sockets (/metrics). */
    const overlays = async () => (await svc.admin.match('DEAD01'))?.overlays;
    const observers = () => svc.metric('ods_sockets', { listener: 'ingest', kind: 'observer' });
    // Heartbeats go on while both answer: two pings each (socket.io-client's 'ping' event, 300 ms
    // apart) and neither is closed.
    const pings = (s: Socket) => new Promise<void>((resolve) => { let n = 0; const on = () => { if (++n === 2) { s.io.off('ping', on); resolve(); } }; s.io.on('ping', on); });
    await Promise.all([pings(observer), pings(fe.socket)]);
    expect(await overlays()).toBe(1);
    expect(await observers()).toBe(1);

    // Both stop answering (a frozen PC, a cable pulled): the server notices within interval + timeout.
    const stoppedAt = Date.now();
    tcpUnder(observer).pause();
    tcpUnder(fe.socket).pause();
    await expect.poll(async () => (await overlays()) === 0 && (await observers()) === 0, { timeout: 15_000, interval: 25 }).toBe(true);
    expect(Date.now() - stoppedAt).toBeLessThan(300 + 1000 + 500);
    expect(await svc.admin.has('DEAD01')).toBe(true); // the match itself goes on
    // The observer's session stays resumable: a connection presenting its pid takes it over, no logon.
    const pid = sessionPid(observer);
    expect(pid).toBeTruthy();
    const watcher = await overlay(svc.broadcast, 'DEAD01');
    const resumed = io(svc.ingest, { forceNew: true, reconnection: false, auth: { pid, offset: 'bogus' } });
    sockets.push(resumed);
    await connected(resumed);
    resumed.emit('obs_data', JSON.stringify({ obsName: 'o', groupCode: 'DEAD01', type: 'map', data: 'Ascent' }));
    await watcher.waitFor((f) => f.map === 'Ascent');
    expect(svc.logged({ msg: 'session resumed', groupCode: 'DEAD01' })).toHaveLength(1);
  }, 20_000);
});
