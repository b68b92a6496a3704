// Frames reach every kind of frontend intact: WebSocket with permessage-deflate (shared delta
// bytes after a keyframe), WebSocket without deflate, long-polling, and a late joiner.
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ReplayClient from '../src/tools/replay-client.js';
import type * as RecordedMatch from '../src/tools/recorded-match.js';
import { closeAll, connected, nextEvent } from './helpers/clients.js';
import { startTestService, type TestService } from './helpers/service.js';

const { playReplay } = (await import('../dist/tools/replay-client.js')) as unknown as typeof ReplayClient;
const { recordedMatch } = (await import('../dist/tools/recorded-match.js')) as unknown as typeof RecordedMatch;
const replay = recordedMatch();

let svc: TestService;
const sockets: Socket[] = [];
beforeAll(async () => {
  svc = await startTestService({ AUTH_KEY: 'k', TRUST_REPLAY_TIMESTAMPS: 'true' });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  closeAll();
  await svc?.close();
});

async function frontend(code: string, opts: { transports?: ('polling' | 'websocket')[]; perMessageDeflate?: boolean }) {
  const socket = io(svc.broadcast, { forceNew: true, reconnection: false, transports: opts.transports, perMessageDeflate: opts.perMessageDeflate === false ? false : { threshold: 1024 } } as never);
  sockets.push(socket);
  const frames: string[] = [];
  socket.on('match_data', (f: string) => frames.push(f));
  await connected(socket);
  const ok = nextEvent(socket, 'logon_success');
  socket.emit('logon', JSON.stringify({ groupCode: code }));
  await ok;
  return { socket, frames };
}

describe('broadcast delivery', () => {
  it('every frontend kind receives the same frames; deflate frontends get shared deltas', async () => {
    const code = 'DELIV1';
    const before = { ...svc.service.broadcast.counters };
    const ws = await frontend(code, { transports: ['websocket'] });
    const upgraded = await frontend(code, { transports: ['polling', 'websocket'] });
    const noDeflate = await frontend(code, { transports: ['websocket'], perMessageDeflate: false });
    const polling = await frontend(code, { transports: ['polling'] });
    await expect.poll(() => upgraded.socket.io.engine.transport.name).toBe('websocket'); // the upgrade is done

    // At 2000 times the recorded pace (about 1.1 s): a dozen broadcast intervals or more, so many
    // frames (instant, a fast machine can apply the whole match between two frames).
    const run = await playReplay(replay, { url: svc.ingest, key: 'k', pace: 2000, groupCode: code });
    const done = (f: { frames: string[] }) => f.frames.length > 0 && JSON.parse(f.frames[f.frames.length - 1]).roundPhase === 'game_end';
    await expect.poll(() => [ws, upgraded, noDeflate, polling].every(done), { timeout: 30_000 }).toBe(true);
    run.socket.close();

    // Every frame parses; the final frames are identical everywhere.
    const finals = [ws, upgraded, noDeflate, polling].map((f) => f.frames[f.frames.length - 1]);
    for (const f of finals) expect(f).toBe(finals[0]);
    for (const f of [ws, upgraded, noDeflate]) for (const frame of f.frames) expect(() => JSON.parse(frame)).not.toThrow();
    // The websocket frontends saw the same sequence (nobody was slow here).
    expect(upgraded.frames.slice(-ws.frames.length)).toEqual(ws.frames);
    expect(noDeflate.frames).toEqual(ws.frames);

    const c = svc.service.broadcast.counters;
    expect(c.deltas - before.deltas).toBeGreaterThan(ws.frames.length); // two deflate frontends, mostly deltas
    expect(c.keyframes - before.keyframes).toBeLessThanOrEqual(4);
    expect(c.plain - before.plain).toBe(noDeflate.frames.length);
    expect(c.skipped - before.skipped).toBe(0);
  }, 60_000);

  it('a frontend that joins mid-match gets a keyframe, then deltas, and decodes them', async () => {
    const code = 'DELIV2';
    const first = await frontend(code, { transports: ['websocket'] });
    const run = await playReplay({ ...replay, records: replay.records.slice(0, 1500) }, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: code });
    await expect.poll(() => first.frames.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const late = await frontend(code, { transports: ['websocket'] });
    await expect.poll(() => late.frames.length).toBeGreaterThan(0);
    const { sendRecords } = (await import('../dist/tools/replay-client.js')) as unknown as typeof ReplayClient;
    await sendRecords(run.socket, replay, { pace: 'instant', groupCode: code, from: 1500 });
    const done = (f: { frames: string[] }) => JSON.parse(f.frames[f.frames.length - 1]).roundPhase === 'game_end';
    await expect.poll(() => done(first) && done(late), { timeout: 30_000 }).toBe(true);
    expect(late.frames[late.frames.length - 1]).toBe(first.frames[first.frames.length - 1]);
    run.socket.close();
  }, 60_000);
});
