// Graceful shutdown on SIGTERM, on the built service as its own process (node dist/main/index.js).
// Both branches: with STATE_DIR the live matches are persisted and not completed (a new process
// resumes them); without it the registered matches are completed with the backend. Either way the
// overlays get each match's latest frame, the observers see a transport close (so they reconnect),
// and the process exits within SHUTDOWN_TIMEOUT_MS, also when the backend hangs.
import fs from 'node:fs';
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { startBackend, type Answer, type FakeBackend, type RecordedRequest } from '../helpers/backends.js';
import { closeAll, connect, connected, overlay, nextEvent } from '../helpers/clients.js';
import { scrapeMetrics } from '../helpers/metrics.js';
import { recordedMatch, recordIndex, replayObserver, sendRecords } from '../helpers/recorded.js';
import { spawnService as spawnEntry, tempDir, type ServiceProcess } from '../helpers/service-process.js';

const replay = recordedMatch();
const MATCH_START = recordIndex(replay, 'match_start');
const KEY = 'sigterm-key-0123456789';

type Child = ServiceProcess;

const children: Child[] = [];
const sockets: Socket[] = [];
const backends: FakeBackend[] = [];
afterAll(async () => {
  for (const s of sockets) s.close();
  closeAll();
  for (const c of children) await c.stop('SIGKILL');
  for (const b of backends) await b.close();
});

/** `node dist/main/index.js` with this file's key and a budget above the replays' pace (logs at info: the shutdown's lines). */
async function spawnService(env: Record<string, string>): Promise<Child> {
  const c = await spawnEntry({ AUTH_KEY: KEY, LOG_LEVEL: 'info', INGEST_RATE_PER_SOCKET: '100000', INGEST_BURST_PER_SOCKET: '100000', ...env });
  children.push(c);
  return c;
}

/** A live match with an overlay watching: records up to `to`, the last one a change still pending when SIGTERM comes. */
async function liveMatch(c: Child, code: string, to: number): Promise<{ observer: Socket; frames: string[]; secret: string; sent: number }> {
  const fe = await overlay(c.urls.broadcast, code);
  const { socket: observer, ack } = await replayObserver(c.urls.ingest, replay, { key: KEY, groupCode: code });
  sockets.push(observer);
  expect(ack.value).toBe(true);
  const sent = await sendRecords(observer, replay, { pace: 'instant', groupCode: code, to });
  return { observer, frames: fe.raw, secret: ack.reason, sent };
}

/** The observer messages the service has received (its metrics). */
const received = async (c: Child) => (await scrapeMetrics(c.urls.metrics!)).value('ods_messages_received_total', { event: 'obs_data' });
/** The registration answer is in (isRegistered shows in the overlay's frames). */
const registeredShown = (frames: string[]) => frames.some((f) => (JSON.parse(f) as { isRegistered?: boolean }).isRegistered === true);

const mapOf = (frames: string[]) => (JSON.parse(frames[frames.length - 1]) as { map: string }).map;

function backendHandler(completeAnswer: () => Answer) {
  return (req: RecordedRequest): Answer => {
    if (/\/complete$/.test(req.path)) return completeAnswer();
    return { status: 200, json: {} };
  };
}

async function sigterm(c: Child, matches: { observer: Socket; frames: string[]; sent: number }[], code: string): Promise<{ ms: number; exitCode: number | null; reasons: string[] }> {
  // Two quick changes: the second is still waiting for its 100 ms frame slot when the signal comes.
  const m = matches[0];
  const sent = matches.reduce((n, x) => n + x.sent, 0);
  m.observer.emit('obs_data', JSON.stringify({ obsName: 'o', groupCode: code, type: 'map', data: 'Jam' }));
  // The first has reached the service before the second is sent (two changes, not one packet).
  await expect.poll(() => received(c), { interval: 5 }).toBe(sent + 1);
  m.observer.emit('obs_data', JSON.stringify({ obsName: 'o', groupCode: code, type: 'map', data: 'Foxtrot' }));
  // Both have reached the service (a signal must not overtake them; a fixed 30 ms did not ensure it).
  await expect.poll(() => received(c), { interval: 5 }).toBe(sent + 2);
  const reasons = matches.map((x) => new Promise<string>((resolve) => x.observer.once('disconnect', resolve)));
  const t0 = Date.now();
  c.proc.kill('SIGTERM');
  const exitCode = await c.exited;
  return { ms: Date.now() - t0, exitCode, reasons: await Promise.all(reasons) };
}

describe('SIGTERM', () => {
  it('without STATE_DIR: latest frames out, registered matches completed with the backend, exit 0 in time', async () => {
    const be = await startBackend(backendHandler(() => ({ status: 200, json: {} })));
    backends.push(be);
    const c = await spawnService({ USE_BACKEND: 'true', BACKEND_URL: be.url, SHUTDOWN_TIMEOUT_MS: '5000' });
    const registered = await liveMatch(c, 'SIGA01', MATCH_START + 1);
    const lobby = await liveMatch(c, 'SIGA02', 5);
    await expect.poll(() => be.requests.some((r) => r.path.endsWith('/register')), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => registeredShown(registered.frames)).toBe(true); // the registration answer is in

    const { ms, exitCode, reasons } = await sigterm(c, [registered, lobby], 'SIGA01');
    expect(exitCode).toBe(0);
    expect(ms).toBeLessThan(5000);
    expect(reasons).toEqual(['transport close', 'transport close']); // the clients reconnect on their own
    expect(mapOf(registered.frames)).toBe('Breeze'); // 'Foxtrot', the pending change, reached the overlay
    const completions = be.requests.filter((r) => r.path.endsWith('/complete'));
    expect(completions).toHaveLength(1); // the registered match only
    expect((JSON.parse(completions[0].body) as { match: { groupCode: string } }).match.groupCode).toBe('SIGA01');
    expect(c.out.some((l) => l.includes('"live matches completed"'))).toBe(true);
  }, 60_000);

  it('with STATE_DIR: matches persisted (not completed), owner-only files; a new process resumes them', async () => {
    const be = await startBackend(backendHandler(() => ({ status: 200, json: {} })));
    backends.push(be);
    const stateDir = path.join(tempDir(), 'state');
    const env = { USE_BACKEND: 'true', BACKEND_URL: be.url, STATE_DIR: stateDir, SHUTDOWN_TIMEOUT_MS: '5000' };
    const c = await spawnService(env);
    const registered = await liveMatch(c, 'SIGB01', MATCH_START + 1);
    const lobby = await liveMatch(c, 'SIGB02', 5);
    await expect.poll(() => be.requests.some((r) => r.path.endsWith('/register')), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => registeredShown(registered.frames)).toBe(true);

    const { ms, exitCode, reasons } = await sigterm(c, [registered, lobby], 'SIGB01');
    expect(exitCode).toBe(0);
    expect(ms).toBeLessThan(5000);
    expect(reasons).toEqual(['transport close', 'transport close']);
    expect(mapOf(registered.frames)).toBe('Breeze');
    expect(be.requests.filter((r) => r.path.endsWith('/complete'))).toHaveLength(0); // to be resumed, not completed
    const files = fs.readdirSync(stateDir, { recursive: true, encoding: 'utf8' });
    expect(files.filter((f) => f.startsWith('match-'))).toHaveLength(2);
    for (const f of files) {
      // Folders (the match events' events/) are the owner's only too; every file is read for the secret.
      const stat = fs.statSync(path.join(stateDir, f));
      expect(stat.mode & 0o777).toBe(stat.isDirectory() ? 0o700 : 0o600);
      if (!stat.isDirectory()) expect(fs.readFileSync(path.join(stateDir, f), 'utf8')).not.toContain(registered.secret);
    }

    const again = await spawnService(env);
    const status = await (await fetch(`${again.urls.rest}/status`)).json() as { matchesRunning: number };
    expect(status.matchesRunning).toBe(2);
    const fe = connect(again.urls.broadcast);
    await connected(fe);
    const frame = nextEvent<string>(fe, 'match_data');
    fe.emit('logon', JSON.stringify({ groupCode: 'SIGB01' }));
    expect(JSON.parse(await frame)).toMatchObject({ map: 'Breeze', isRegistered: true });
    again.proc.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 60_000);

  it('exits within SHUTDOWN_TIMEOUT_MS when the backend never answers the completion', async () => {
    const be = await startBackend(backendHandler(() => ({ hang: true })));
    backends.push(be);
    const c = await spawnService({ USE_BACKEND: 'true', BACKEND_URL: be.url, SHUTDOWN_TIMEOUT_MS: '1500', OUTBOUND_TIMEOUT_MS: '20000' });
    const registered = await liveMatch(c, 'SIGC01', MATCH_START + 1);
    await expect.poll(() => be.requests.some((r) => r.path.endsWith('/register')), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => registeredShown(registered.frames)).toBe(true);
    const { ms, exitCode } = await sigterm(c, [registered], 'SIGC01');
    expect(be.requests.some((r) => r.path.endsWith('/complete'))).toBe(true);
    expect(exitCode).toBe(0);
    expect(ms).toBeLessThan(1500 + 700);
  }, 60_000);
});
