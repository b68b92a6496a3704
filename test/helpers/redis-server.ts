// A real redis-server (Debian's package; `.ci/run` installs it) for the tests and benchmarks:
// started on a unix socket in a temporary directory, persistence off, stopped with the caller.
// `restart()` stops it and starts a new, empty one on the same socket (a Redis restart without
// persistence: every key is gone). A plain module: no vitest, so tsx runs it too.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rawCommand } from './redis-raw.js';
import { pollUntil } from './waits.js';

export const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? 'redis-server';

/** Whether redis-server can be run here. */
export function redisServerAvailable(): boolean {
  return spawnSync(REDIS_SERVER, ['--version'], { stdio: 'ignore' }).status === 0;
}

export interface RedisServer {
  /** unix:///…/redis.sock, for REDIS_URL. */
  readonly url: string;
  readonly socketPath: string;
  /** Process id of the running server (its CPU time: /proc/<pid>/stat). */
  pid(): number;
  /** Stops the server (SIGKILL: what a crash looks like to the clients). */
  stop(): Promise<void>;
  /** Starts a new, empty server on the same socket (after stop()); nothing when one is running. */
  start(): Promise<void>;
  /** stop() then start(). */
  restart(): Promise<void>;
  /** Runs one command with a throwaway connection (RESP inline), returns the raw reply text. */
  command(...args: string[]): Promise<string>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => { for (const p of running) p.kill('SIGKILL'); });

export async function startRedisServer(): Promise<RedisServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ods-redis-'));
  const socketPath = path.join(dir, 'redis.sock');
  let proc: ChildProcess | null = null;

  const start = async () => {
    if (proc && proc.exitCode === null) return; // running already: a second one on the same socket would orphan it
    try { fs.unlinkSync(socketPath); } catch { /* not there */ }
    const p = spawn(REDIS_SERVER, [
      '--port', '0', '--unixsocket', socketPath, '--unixsocketperm', '700',
      '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(p);
    p.once('exit', () => running.delete(p));
    let output = '';
    p.stdout!.on('data', (c: Buffer) => { output += c.toString(); });
    p.stderr!.on('data', (c: Buffer) => { output += c.toString(); });
    proc = p;
    await pollUntil(async () => {
      if (p.exitCode !== null) throw new Error(`redis-server exited (${p.exitCode}):\n${output}`);
      return fs.existsSync(socketPath) && (await ping(socketPath));
    }, 'redis-server answering PING', 20_000).catch((err: Error) => { throw new Error(`${err.message}:\n${output}`); });
  };
  const stop = async () => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    url: `unix://${socketPath}`,
    socketPath,
    pid: () => proc?.pid ?? 0,
    stop,
    start,
    async restart() { await stop(); await start(); },
    command: (...args) => rawCommand(socketPath, args),
  };
}

async function ping(socketPath: string): Promise<boolean> {
  try {
    return (await rawCommand(socketPath, ['PING'])).startsWith('+PONG');
  } catch {
    return false;
  }
}

