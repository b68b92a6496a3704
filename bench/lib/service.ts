// Starts the built service as a child process (bench/lib/service-host.ts) on ephemeral loopback
// ports, and reads its CPU and memory from /proc the way an operator would.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface HostStats {
  loop: { p50: number; p99: number; max: number };
  rss: number;
  cpu: { user: number; system: number };
  matches: number;
  broadcast: { deliveries: number; deltas: number; keyframes: number; plain: number; polling: number; skipped: number };
  framesPublished: number;
}

export interface ServiceProcess {
  child: ChildProcess;
  ports: { ingest: number; rest: number; broadcast: number };
  /** CPU seconds used by the whole process (all threads), from /proc/<pid>/stat. */
  cpuSeconds(): number;
  /** Resident set size in bytes, from /proc/<pid>/status. */
  rssBytes(): number;
  stats(): Promise<HostStats>;
  stop(): Promise<void>;
}

const TICKS = 100; // getconf CLK_TCK on Linux

export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const host = path.resolve(import.meta.dirname, 'service-host.ts');
  const child = fork(host, [], {
    // BENCH_PROFILE=<dir>: CPU profiles of the service's threads (node --cpu-prof), for the docs.
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [])],
    env: {
      ...process.env,
      INSECURE: 'true', HOST: '127.0.0.1', INGEST_PORT: '0', REST_PORT: '0', BROADCAST_PORT: '0',
      LOG_LEVEL: 'warn', DATA_DIR: fs.mkdtempSync('/tmp/ods-bench-'), AUTH_KEY: 'bench-key', METRICS_PORT: '0',
      // One key and one address drive every match and socket here: lift the per-key and
      // per-address caps, which protect a public service from one client.
      MAX_LIVE_MATCHES: '100000', MAX_MATCHES_PER_KEY: '100000', MAX_SOCKETS_PER_ADDRESS: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ports = await new Promise<ServiceProcess['ports']>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
    child.on('message', (m: { t: string; ports?: ServiceProcess['ports'] }) => { if (m.t === 'ready') resolve(m.ports!); });
  });
  const pid = child.pid!;
  return {
    child,
    ports,
    cpuSeconds() {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / TICKS; // utime + stime
    },
    rssBytes() {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : 0;
    },
    stats() {
      return new Promise((resolve) => {
        const on = (m: { t: string } & HostStats) => { if (m.t === 'stats') { child.off('message', on); resolve(m); } };
        child.on('message', on);
        child.send({ t: 'stats' });
      });
    },
    stop() {
      return new Promise((resolve) => {
        const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(); }, 5000);
        child.once('exit', () => { clearTimeout(timer); resolve(); });
        child.send({ t: 'stop' });
      });
    },
  };
}
