// The built service as its own process (`node dist/main/index.js`), as an operator starts it: the
// entry reads the environment, prints its banner (the ports) and logs JSON lines on stdout. The one
// place that spawns it, for the tests (signals, connection floods, configuration errors) and the
// benchmarks (bench/lib/service.ts). A plain module: no vitest, so tsx runs it too.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pollUntil } from './waits.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
/** BENCH_ENTRY: another tree's built entry (A/B benchmarks run one script against both builds). */
export const ENTRY = process.env.BENCH_ENTRY || path.join(ROOT, 'dist/main/index.js');

export function tempDir(prefix = 'ods-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * What every service under test runs with, in-process or spawned: plain HTTP on ephemeral
 * loopback ports, one shard, its own DATA_DIR. Callers add or override.
 */
export function testEnv(): Record<string, string> {
  return {
    INSECURE: 'true',
    HOST: '127.0.0.1',
    INGEST_PORT: '0',
    REST_PORT: '0',
    BROADCAST_PORT: '0',
    METRICS_PORT: '0',
    SHARD_WORKERS: '1',
    // The suite starts hundreds of services: not ~1 s of each one's shard thread playing the recorded
    // match first (test/main/shards/shard-warm-up.test.ts runs the default).
    SHARD_WARMUP: 'false',
    DATA_DIR: tempDir(),
  };
}

export interface ServicePorts { ingest: number; rest: number; broadcast: number; metrics: number | null }

export interface ServiceProcess {
  proc: ChildProcess;
  ports: ServicePorts;
  /** http://127.0.0.1:<port> of each listener. */
  urls: { ingest: string; rest: string; broadcast: string; metrics: string | null };
  /** Every stdout line (the banner, JSON log lines) and every stderr line prefixed `stderr: `. */
  out: string[];
  /** Resolves with the exit code (null when ended by a signal). */
  exited: Promise<number | null>;
  /** Resident set size in bytes, from /proc/<pid>/status. */
  rssBytes(): number;
  /** CPU seconds used by the whole process (all threads), from /proc/<pid>/stat. */
  cpuSeconds(): number;
  /** Sends the signal and resolves with the exit code; SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

export interface SpawnOptions {
  /** Inherit this process's environment under the given one (the benchmarks); tests start from PATH only. */
  inheritEnv?: boolean;
  /** Extra node flags (e.g. --cpu-prof). */
  execArgv?: string[];
  /** Start deadline (banner printed). */
  timeoutMs?: number;
  /** Another build's entry (A/B benchmarks: the same script against a `before` tree); default ENTRY. */
  entry?: string;
  /** Start it under `ulimit -n <nofile>` (soft and hard descriptor limit), through /bin/sh. */
  nofile?: number;
  /** A command that runs it, e.g. `['ip', 'netns', 'exec', name]` (it must exec node: the pid stays node's). */
  wrap?: string[];
}

const spawned = new Set<ChildProcess>();
process.once('exit', () => { for (const p of spawned) if (p.exitCode === null) p.kill('SIGKILL'); });

/** Starts the entry with testEnv() plus `env`; resolves once its banner names every port. */
export async function spawnService(env: Record<string, string> = {}, options: SpawnOptions = {}): Promise<ServiceProcess> {
  const args = [...(options.execArgv ?? []), options.entry ?? ENTRY];
  // `exec` keeps the pid: signals and /proc/<pid> reach node itself.
  const [command, argv] = options.nofile === undefined
    ? [process.execPath, args]
    : ['/bin/sh', ['-c', `ulimit -n ${Math.floor(options.nofile)} && exec "$0" "$@"`, process.execPath, ...args]];
  const wrapped: [string, string[]] = options.wrap ? [options.wrap[0], [...options.wrap.slice(1), command, ...argv]] : [command, argv];
  const proc = spawn(wrapped[0], wrapped[1], {
    // Its own working directory: the entry reads a .env file from there when present.
    cwd: tempDir('ods-cwd-'),
    env: { ...(options.inheritEnv ? process.env : { PATH: process.env.PATH }), ...testEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.add(proc);
  const out: string[] = [];
  const lines = (prefix: string) => {
    let buffer = '';
    return (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      out.push(...parts.map((l) => prefix + l));
    };
  };
  proc.stdout!.on('data', lines(''));
  proc.stderr!.on('data', lines('stderr: '));
  const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => { spawned.delete(proc); resolve(code); }));
  // ODS_KEEP_LOGS=<dir>: every node's output is written there when it exits (a loop of the kill tests
  // keeps what a failed round's nodes said; a passing run writes nothing when it is unset).
  const keepIn = process.env.ODS_KEEP_LOGS;
  if (keepIn) void exited.then(() => fs.writeFileSync(path.join(keepIn, `${Date.now()}-${env.NODE_ID ?? 'node'}-${proc.pid}.log`), out.join('\n')));

  const wantMetrics = (env.METRICS_ENABLED ?? 'true') !== 'false';
  const portOf = (label: string): number | undefined => {
    for (const l of out) {
      const m = new RegExp(`${label.replace(/[()]/g, '\\$&')}\\s+https?://\\S+?:(\\d+)`).exec(l);
      if (m) return Number(m[1]);
    }
    return undefined;
  };
  const ports: ServicePorts = await pollUntil(() => {
    const ingest = portOf('ingestion (observer client)');
    const rest = portOf('REST API');
    const broadcast = portOf('broadcast (overlay frontend)');
    const metrics = wantMetrics ? portOf('metrics (Prometheus)') : null;
    if (ingest && rest && broadcast && metrics !== undefined) return { ingest, rest, broadcast, metrics };
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`the service exited (${proc.exitCode ?? proc.signalCode}) before it started:\n${out.join('\n')}`);
    return undefined;
  }, 'the service\'s banner', options.timeoutMs ?? 30_000).catch((err: Error) => {
    proc.kill('SIGKILL');
    throw new Error(`${err.message}:\n${out.join('\n')}`);
  });
  const host = env.HOST ?? '127.0.0.1';
  const url = (port: number) => `http://${host}:${port}`;
  const pid = proc.pid!;
  return {
    proc, ports, out, exited,
    urls: { ingest: url(ports.ingest), rest: url(ports.rest), broadcast: url(ports.broadcast), metrics: ports.metrics === null ? null : `http://127.0.0.1:${ports.metrics}` },
    rssBytes() {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : 0;
    },
    cpuSeconds() {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in CLK_TCK (100 on Linux)
    },
    async stop(signal = 'SIGTERM', graceMs = 15_000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
      proc.kill(signal);
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Runs the entry to its end (a start that must fail): exit code and output. */
export async function runEntry(env: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [ENTRY], { cwd: tempDir('ods-cwd-'), env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  spawned.add(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (c: Buffer) => { stdout += c.toString(); });
  proc.stderr!.on('data', (c: Buffer) => { stderr += c.toString(); });
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => proc.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  spawned.delete(proc);
  return { code, stdout, stderr };
}
