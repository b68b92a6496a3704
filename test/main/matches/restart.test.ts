// Restart without losing matches (STATE_DIR): real socket.io clients keep their connection
// objects across a graceful shutdown and a new service on the same ports. The observer never
// sends its logon again (docs/client-contract.md 1.5): its automatic reconnection resumes the persisted
// session. Replay half of the recorded match, restart, replay the rest: the final frame equals an
// uninterrupted run's (recorded clock).
import fs from 'node:fs';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { connectObserver, logon } from '../../helpers/clients.js';
import { playReplay, recordedMatch, replayLogon, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { restartableEnv, startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { sessionPid } from '../../helpers/internals/socketio-client.js';

const replay = recordedMatch();

const KEY = 'restart-key-0123456789';
const CODE = 'RSTRT1';
const REF = 'RSTREF';
const HALF = Math.floor(replay.records.length / 2);

const sockets: Socket[] = [];
const services: TestService[] = [];
afterAll(async () => {
  for (const s of sockets) s.close();
  for (const s of services) await s.close();
});

/** An overlay like the real one: reconnects on its own and logs on again at every connect. */
function overlay(url: string, code: string): { socket: Socket; frames: string[] } {
  const socket = io(url, { forceNew: true, reconnection: true, reconnectionDelay: 100, reconnectionDelayMax: 300 });
  sockets.push(socket);
  const frames: string[] = [];
  socket.on('connect', () => socket.emit('logon', JSON.stringify({ groupCode: code })));
  socket.on('match_data', (f: string) => frames.push(f));
  return { socket, frames };
}

const last = (frames: string[]) => JSON.parse(frames[frames.length - 1]) as Record<string, unknown>;
const withCode = (frame: Record<string, unknown>, code: string) => ({ ...frame, groupCode: code });

describe('restart with STATE_DIR', () => {
  it('resumes the match, its secret and the observer session; the final state equals an uninterrupted run', async () => {
    const { env, stateDir } = await restartableEnv(KEY);
    const first = await startTestService(env);
    services.push(first);

    // The uninterrupted run, for comparison.
    const refOverlay = overlay(first.broadcast, REF);
    const ref = await playReplay(replay, { url: first.ingest, key: KEY, pace: 'instant', groupCode: REF });
    sockets.push(ref.socket);
    await expect.poll(() => refOverlay.frames.length > 0 && last(refOverlay.frames).roundPhase === 'game_end', { timeout: 20_000 }).toBe(true);
    const expected = last(refOverlay.frames);
    await expect.poll(() => first.admin.has(REF)).toBe(false);
    // The shard reports its counter once a second: wait for the reference run's messages in it.
    const applied = () => first.metric('ods_messages_applied_total');
    await expect.poll(applied, { timeout: 15_000 }).toBe(replay.records.length);
    const appliedBefore = replay.records.length;

    // Half of the match, with an overlay watching.
    const watch = overlay(first.broadcast, CODE);
    const observer = connectObserver(first.ingest);
    sockets.push(observer);
    const acks: string[] = [];
    observer.on('obs_logon_ack', (a: string) => acks.push(a));
    const { ack } = await logon(observer, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: CODE }));
    expect(ack.value).toBe(true);
    const secret = ack.reason;
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, to: HALF });
    // Every record of the first half applied (the shard's counter), and the latest frame at the
    // overlay (GET /match: the same match_data text). Not every frame: while it polls, the overlay
    // needs each frame's text, and a frame whose text is still on its way when the next one comes
    // is superseded (docs/architecture.md, "One `obs_data` message", the frame texts).
    await expect.poll(async () => (await applied()) - appliedBefore, { timeout: 15_000 }).toBe(HALF);
    const latest = async () => (await fetch(`${first.rest}/match/${CODE}`)).text();
    await expect.poll(async () => watch.frames.length > 0 && watch.frames[watch.frames.length - 1] === (await latest()), { timeout: 15_000 }).toBe(true);
    const pid = sessionPid(observer);
    expect(pid).toBeTruthy();

    // Graceful shutdown: persisted, not completed.
    const disconnected = new Promise<string>((resolve) => observer.once('disconnect', resolve));
    const overlayGone = new Promise<void>((resolve) => watch.socket.once('disconnect', () => resolve()));
    await first.shutdown();
    expect(await disconnected).toBe('transport close'); // so the client reconnects on its own
    // The state before the restart: the overlay's last frame once it is closed. The shutdown's drain
    // sends a frame still waiting for its interval, so this is the state after the last applied record
    // (taking it before the shutdown could be one frame behind on a loaded machine).
    await overlayGone;
    const beforeRestart = watch.frames[watch.frames.length - 1];

    // Owner-only files; no secret and no session id in clear.
    expect(fs.statSync(stateDir).mode & 0o777).toBe(0o700);
    const files = fs.readdirSync(stateDir);
    expect(files).toContain('sessions.json');
    expect(files.filter((f) => f.startsWith('match-'))).toHaveLength(1);
    expect(files).toContain('inputs'); // the input log (docs/reliability.md, "The input log")
    const inputFiles = fs.readdirSync(path.join(stateDir, 'inputs')).map((f) => path.join('inputs', f));
    expect(inputFiles.length).toBeGreaterThan(0);
    for (const f of [...files, ...inputFiles]) {
      if (f === 'events' || f === 'inputs') { expect(fs.statSync(path.join(stateDir, f)).mode & 0o777).toBe(0o700); continue; } // the match events' journal (docs/events.md)
      expect(fs.statSync(path.join(stateDir, f)).mode & 0o777).toBe(0o600);
      const text = fs.readFileSync(path.join(stateDir, f), 'utf8');
      expect(text).not.toContain(secret);
      expect(text).not.toContain(pid);
      expect(text).not.toContain(KEY);
    }

    // A new service on the same ports and the same STATE_DIR.
    const second = await startTestService(env);
    expect({ ...second.ports, metrics: 0 }).toEqual({ ...first.ports, metrics: 0 });
    services.push(second);
    expect(await second.admin.has(CODE)).toBe(true);

    // A new overlay gets the restored state at logon: the frame it had before the restart.
    const late = overlay(second.broadcast, CODE);
    await expect.poll(() => late.frames.length, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(late.frames[0]).toBe(beforeRestart);

    // The observer reconnects by itself with its pid and resumes its session, without a logon.
    await expect.poll(() => observer.connected, { timeout: 15_000 }).toBe(true);
    await expect.poll(() => second.logs.some((l) => l.includes('session resumed') && l.includes(CODE)), { timeout: 15_000 }).toBe(true);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, from: HALF });
    await expect.poll(() => late.frames.length > 0 && last(late.frames).roundPhase === 'game_end', { timeout: 20_000 }).toBe(true);
    expect(acks).toHaveLength(1);

    // The same final state as the uninterrupted run, at both overlays (the first reconnected by itself).
    expect(withCode(last(late.frames), REF)).toEqual(expected);
    await expect.poll(() => last(watch.frames).roundPhase, { timeout: 15_000 }).toBe('game_end');
    expect(withCode(last(watch.frames), REF)).toEqual(expected);
  }, 120_000);

  it('a restored match keeps its group secret: the right one reconnects, a wrong one is refused', async () => {
    const stateDir = path.join(tempDir(), 'state');
    const env = { AUTH_KEY: KEY, STATE_DIR: stateDir };
    const first = await startTestService(env);
    services.push(first);
    const a = await replayObserver(first.ingest, replay, { key: KEY, groupCode: 'RSTRT2' });
    sockets.push(a.socket);
    await first.shutdown();
    a.socket.close();
    const second = await startTestService(env);
    services.push(second);
    const wrong = await replayObserver(second.ingest, replay, { key: KEY, groupCode: 'RSTRT2', groupSecret: 'WRONGSECRET00000' });
    sockets.push(wrong.socket);
    expect(wrong.ack).toMatchObject({ value: false });
    const right = await replayObserver(second.ingest, replay, { key: KEY, groupCode: 'RSTRT2', groupSecret: a.ack.reason });
    sockets.push(right.socket);
    expect(right.ack).toMatchObject({ value: true, reason: 'reconnected' });
  }, 30_000);
});
