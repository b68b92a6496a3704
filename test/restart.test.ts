// Restart without losing matches (STATE_DIR): real socket.io clients keep their connection
// objects across a graceful shutdown and a new service on the same ports. The observer never
// sends its logon again (docs/client-contract.md 1.5): its automatic reconnection resumes the persisted
// session. Replay half of the recorded match, restart, replay the rest: the final frame equals an
// uninterrupted run's (recorded clock).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import type * as ReplayClient from '../src/tools/replay-client.js';
import type * as RecordedMatch from '../src/tools/recorded-match.js';
import { connected, nextEvent } from './helpers/clients.js';
import { startTestService, tempDir, type TestService } from './helpers/service.js';

const { connectObserver, logon, playReplay, sendRecords } = (await import('../dist/tools/replay-client.js')) as unknown as typeof ReplayClient;
const { recordedMatch } = (await import('../dist/tools/recorded-match.js')) as unknown as typeof RecordedMatch;
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

/** An overlay frontend like the real one: reconnects on its own and logs on again at every connect. */
function overlay(url: string, code: string): { socket: Socket; frames: string[] } {
  const socket = io(url, { forceNew: true, reconnection: true, reconnectionDelay: 100, reconnectionDelayMax: 300 });
  sockets.push(socket);
  const frames: string[] = [];
  socket.on('connect', () => socket.emit('logon', JSON.stringify({ groupCode: code })));
  socket.on('match_data', (f: string) => frames.push(f));
  return { socket, frames };
}

/**
 * Fixed free ports for the first service: uWS binds an ephemeral port (0) without SO_REUSEADDR, and
 * its closed connections (TIME_WAIT) then block binding that port again for a minute; a service
 * started on a fixed port, as in production, can be restarted on it at once.
 */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: n }, () => new Promise<net.Server>((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => resolve(s));
  })));
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

const last = (frames: string[]) => JSON.parse(frames[frames.length - 1]) as Record<string, unknown>;
const withCode = (frame: Record<string, unknown>, code: string) => ({ ...frame, groupCode: code });

describe('restart with STATE_DIR', () => {
  it('resumes the match, its secret and the observer session; the final state equals an uninterrupted run', async () => {
    const stateDir = path.join(tempDir(), 'state');
    const [ingestPort, restPort, broadcastPort] = await freePorts(3);
    const env = {
      AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', STATE_DIR: stateDir, SNAPSHOT_INTERVAL_MS: '200',
      INGEST_PORT: String(ingestPort), REST_PORT: String(restPort), BROADCAST_PORT: String(broadcastPort),
    };
    const first = await startTestService(env);
    services.push(first);

    // The uninterrupted run, for comparison.
    const refOverlay = overlay(first.broadcast, REF);
    const ref = await playReplay(replay, { url: first.ingest, key: KEY, pace: 'instant', groupCode: REF });
    sockets.push(ref.socket);
    await expect.poll(() => refOverlay.frames.length > 0 && last(refOverlay.frames).roundPhase === 'game_end', { timeout: 20_000 }).toBe(true);
    const expected = last(refOverlay.frames);
    await expect.poll(() => first.service.shared.directory.get(REF)).toBeUndefined();
    // The shard reports its counter once a second: wait for the reference run's messages in it.
    await expect.poll(() => first.service.matches.totals.latest[0]?.applied ?? 0, { timeout: 15_000 }).toBe(replay.records.length);
    const appliedBefore = replay.records.length;

    // Half of the match, with an overlay watching.
    const watch = overlay(first.broadcast, CODE);
    const observer = connectObserver(first.ingest);
    sockets.push(observer);
    const acks: string[] = [];
    observer.on('obs_logon_ack', (a: string) => acks.push(a));
    await connected(observer);
    const ack = await logon(observer, replay, { key: KEY, groupCode: CODE });
    expect(ack.value).toBe(true);
    const secret = ack.reason;
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, to: HALF });
    // Every record of the first half applied (the shard's counter), and its frame out.
    await expect.poll(() => (first.service.matches.totals.latest[0]?.applied ?? 0) - appliedBefore, { timeout: 15_000 }).toBe(HALF);
    await expect.poll(() => first.service.shared.frames.latest(CODE)?.frameNo === watch.frames.length && watch.frames.length > 0, { timeout: 15_000 }).toBe(true);
    const beforeRestart = watch.frames[watch.frames.length - 1];
    const pid = (observer as unknown as { _pid: string })._pid;
    expect(pid).toBeTruthy();

    // Graceful shutdown: persisted, not completed.
    const disconnected = new Promise<string>((resolve) => observer.once('disconnect', resolve));
    await first.service.shutdown();
    expect(await disconnected).toBe('transport close'); // so the client reconnects on its own

    // Owner-only files; no secret and no session id in clear.
    expect(fs.statSync(stateDir).mode & 0o777).toBe(0o700);
    const files = fs.readdirSync(stateDir);
    expect(files).toContain('sessions.json');
    expect(files.filter((f) => f.startsWith('match-'))).toHaveLength(1);
    for (const f of files) {
      expect(fs.statSync(path.join(stateDir, f)).mode & 0o777).toBe(0o600);
      const text = fs.readFileSync(path.join(stateDir, f), 'utf8');
      expect(text).not.toContain(secret);
      expect(text).not.toContain(pid);
      expect(text).not.toContain(KEY);
    }

    // A new service on the same ports and the same STATE_DIR.
    const second = await startTestService(env);
    expect({ ...second.service.ports, metrics: 0 }).toEqual({ ...first.service.ports, metrics: 0 });
    services.push(second);
    expect(second.service.shared.directory.get(CODE)).toBeDefined();

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
    const a = connectObserver(first.ingest);
    sockets.push(a);
    await connected(a);
    const ack = await logon(a, replay, { key: KEY, groupCode: 'RSTRT2' });
    await first.service.shutdown();
    a.close();
    const second = await startTestService(env);
    services.push(second);
    const wrong = connectObserver(second.ingest);
    sockets.push(wrong);
    await connected(wrong);
    const refused = await logon(wrong, replay, { key: KEY, groupCode: 'RSTRT2', groupSecret: 'WRONGSECRET00000' });
    expect(refused).toMatchObject({ value: false });
    const right = connectObserver(second.ingest);
    sockets.push(right);
    await connected(right);
    expect(await logon(right, replay, { key: KEY, groupCode: 'RSTRT2', groupSecret: ack.reason })).toMatchObject({ value: true, reason: 'reconnected' });
    void nextEvent;
  }, 30_000);
});
