// Graceful shutdown on SIGTERM, on the built service as its own process (node dist/main/index.js).
// Both branches: with STATE_DIR the live matches are persisted and not completed (a new process
// resumes them); without it the registered matches are completed with the backend. Either way the
// frontends get each match's latest frame, the observers see a transport close (so they reconnect),
// and the process exits within SHUTDOWN_TIMEOUT_MS, also when the backend hangs.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import type * as ReplayClient from '../src/tools/replay-client.js';
import type * as RecordedMatch from '../src/tools/recorded-match.js';
import { startBackend, type Answer, type FakeBackend, type RecordedRequest } from './helpers/backends.js';
import { connected, nextEvent } from './helpers/clients.js';
import { tempDir } from './helpers/service.js';

const { connectObserver, logon, sendRecords } = (await import('../dist/tools/replay-client.js')) as unknown as typeof ReplayClient;
const { recordedMatch } = (await import('../dist/tools/recorded-match.js')) as unknown as typeof RecordedMatch;
const replay = recordedMatch();
const MATCH_START = replay.records.findIndex((r) => r.type === 'match_start');
const ENTRY = path.resolve(import.meta.dirname, '../dist/main/index.js');
const KEY = 'sigterm-key-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Child { proc: ChildProcess; ports: { ingest: number; rest: number; broadcast: number; metrics: number }; out: string[]; exited: Promise<number | null> }

const children: ChildProcess[] = [];
const sockets: Socket[] = [];
const backends: FakeBackend[] = [];
afterAll(async () => {
  for (const s of sockets) s.close();
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const b of backends) await b.close();
});

async function spawnService(env: Record<string, string>): Promise<Child> {
  const proc = spawn(process.execPath, [ENTRY], {
    cwd: tempDir(),
    env: {
      PATH: process.env.PATH, INSECURE: 'true', HOST: '127.0.0.1', INGEST_PORT: '0', REST_PORT: '0', BROADCAST_PORT: '0', METRICS_PORT: '0',
      DATA_DIR: tempDir(), AUTH_KEY: KEY, LOG_LEVEL: 'info', SHARD_WORKERS: '1', INGEST_RATE_PER_SOCKET: '100000', INGEST_BURST_PER_SOCKET: '100000', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  const out: string[] = [];
  let buffer = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    out.push(...lines);
  });
  proc.stderr!.on('data', (chunk: Buffer) => out.push(`stderr: ${chunk.toString()}`));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const port = (label: string) => new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const line = out.find((l) => l.includes(label));
      if (line) { clearInterval(timer); resolve(Number(/:(\d+)(\/metrics)?\s*$/.exec(line.trim())![1])); }
      if (proc.exitCode !== null) { clearInterval(timer); reject(new Error(`service exited: ${out.join('\n')}`)); }
    }, 20);
  });
  const [ingest, rest, broadcast, metrics] = await Promise.all([port('ingestion (observer client)'), port('REST API'), port('broadcast (overlay frontend)'), port('metrics (Prometheus)')]);
  return { proc, ports: { ingest, rest, broadcast, metrics }, out, exited };
}

/** A live match with an overlay watching: records up to `to`, the last one a change still pending when SIGTERM comes. */
async function liveMatch(c: Child, code: string, to: number): Promise<{ observer: Socket; frames: string[]; secret: string; sent: number }> {
  const fe = io(`http://127.0.0.1:${c.ports.broadcast}`, { forceNew: true, reconnection: false });
  sockets.push(fe);
  const frames: string[] = [];
  fe.on('match_data', (f: string) => frames.push(f));
  await connected(fe);
  const ok = nextEvent(fe, 'logon_success');
  fe.emit('logon', JSON.stringify({ groupCode: code }));
  await ok;
  const observer = connectObserver(`http://127.0.0.1:${c.ports.ingest}`);
  sockets.push(observer);
  await connected(observer);
  const ack = await logon(observer, replay, { key: KEY, groupCode: code });
  expect(ack.value).toBe(true);
  const sent = await sendRecords(observer, replay, { pace: 'instant', groupCode: code, to });
  return { observer, frames, secret: ack.reason, sent };
}

/** The observer messages the service has received (its metrics). */
const received = async (c: Child) => Number(/^ods_messages_received_total\{event="obs_data"\} (\d+)$/m.exec(await (await fetch(`http://127.0.0.1:${c.ports.metrics}/metrics`)).text())?.[1] ?? NaN);
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
  m.observer.emit('obs_data', JSON.stringify({ obsName: 'o', groupCode: code, type: 'map', data: 'Jam' }));
  await sleep(5);
  m.observer.emit('obs_data', JSON.stringify({ obsName: 'o', groupCode: code, type: 'map', data: 'Foxtrot' }));
  // Both have reached the service (a signal must not overtake them; a fixed 30 ms did not ensure it).
  await expect.poll(() => received(c), { interval: 5 }).toBe(matches.reduce((n, x) => n + x.sent, 0) + 2);
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
    const files = fs.readdirSync(stateDir);
    expect(files.filter((f) => f.startsWith('match-'))).toHaveLength(2);
    for (const f of files) {
      expect(fs.statSync(path.join(stateDir, f)).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(path.join(stateDir, f), 'utf8')).not.toContain(registered.secret);
    }

    const again = await spawnService(env);
    const status = await (await fetch(`http://127.0.0.1:${again.ports.rest}/status`)).json() as { matchesRunning: number };
    expect(status.matchesRunning).toBe(2);
    const fe = io(`http://127.0.0.1:${again.ports.broadcast}`, { forceNew: true, reconnection: false });
    sockets.push(fe);
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
