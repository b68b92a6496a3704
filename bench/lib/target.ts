// A server the benchmark did not start (`--target http://host:5100 [--target-pid N]`): the ingestion,
// broadcast (and REST) ports of a running service, e.g. the server we replace (Spectra-Server on its
// fixed ports 5100/5101/5200). Its CPU and RSS come from /proc/<pid> when the pid is given (NaN
// otherwise); it has no /metrics, so what the benchmark reads there (event-loop delay, cycles,
// delivery counters) is NaN. Stopping it is the operator's business: stop() leaves it running.
import fs from 'node:fs';
import type { HostStats } from './service.js';

export interface TargetServer {
  /** The process to pin and read /proc of, when known. */
  pid: number | null;
  urls: { ingest: string; broadcast: string; rest?: string };
  cpuSeconds(): number;
  rssBytes(): number;
  /** The service's own figures, or null when it reports none (a target). */
  stats(): Promise<HostStats | null>;
  stop(): Promise<void>;
}

/** `--target http://127.0.0.1:5100` with optional `--target-ports ingest,rest,broadcast` (default 5100,5101,5200). */
export function targetServer(base: string, ports: string, pid: number | null): TargetServer {
  const host = new URL(base).hostname;
  const [ingest, rest, broadcast] = ports.split(',').map(Number);
  if (!ingest || !broadcast) throw new Error(`--target-ports wants ingest,rest,broadcast (got ${ports})`);
  if (pid !== null && !fs.existsSync(`/proc/${pid}`)) throw new Error(`--target-pid ${pid}: no such process`);
  return {
    pid,
    urls: { ingest: `http://${host}:${ingest}`, broadcast: `http://${host}:${broadcast}`, ...(rest ? { rest: `http://${host}:${rest}` } : {}) },
    cpuSeconds() {
      if (pid === null) return NaN;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, CLK_TCK 100
    },
    rssBytes() {
      if (pid === null) return NaN;
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : NaN;
    },
    stats: async () => null,
    stop: async () => undefined,
  };
}
