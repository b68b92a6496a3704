// Starts the built service for a benchmark as an operator would, `node dist/main/index.js` on
// ephemeral loopback ports, through the same helper the tests use to spawn it
// (test/helpers/service-process.ts), and reads what it reports: CPU and memory from /proc, the
// rest from its /metrics (test/helpers/metrics.ts).
import { writeFileSync } from 'node:fs';
import { scrapeMetrics } from '../../test/helpers/metrics.js';
import { spawnService, tempDir, type ServiceProcess as EntryProcess } from '../../test/helpers/service-process.js';

export interface HostStats {
  /** The main thread's event-loop delay (ms) since the previous stats() (ods_nodejs_eventloop_lag_*: reset at each scrape). */
  loop: { p50: number; p99: number; max: number };
  rss: number;
  /** The main thread's V8 heap used, bytes (ods_nodejs_heap_size_used_bytes; with SHARD_WORKERS=0 the shard's too). */
  heapUsed: number;
  matches: number;
  /** Observer messages the shards applied (ods_messages_applied_total). */
  applied: number;
  broadcast: { deliveries: number; deltas: number; keyframes: number; plain: number; polling: number; skipped: number };
  framesPublished: number;
  /** The shards' periodic cycles (timers, due frames, snapshot rounds, stats): seconds in all, and how many. */
  cycleSeconds: number;
  cycles: number;
}

export interface ServiceProcess {
  child: EntryProcess['proc'];
  ports: { ingest: number; rest: number; broadcast: number; metrics: number };
  /** CPU seconds used by the whole process (all threads), from /proc/<pid>/stat. */
  cpuSeconds(): number;
  /** Resident set size in bytes, from /proc/<pid>/status. */
  rssBytes(): number;
  /** The service's output lines so far (its banner and JSON log lines). */
  out: string[];
  stats(): Promise<HostStats>;
  stop(): Promise<void>;
}

export async function startServiceProcess(env: Record<string, string>, entry?: string): Promise<ServiceProcess> {
  const svc = await spawnService({
    DATA_DIR: tempDir('ods-bench-'), AUTH_KEY: 'bench-key', LOG_LEVEL: 'warn',
    // One key and one address drive every match and socket here: lift the per-key and
    // per-address caps, which protect a public service from one client.
    MAX_LIVE_MATCHES: '100000', MAX_MATCHES_PER_KEY: '100000', MAX_SOCKETS_PER_ADDRESS: '0', MAX_CONNECTIONS_PER_ADDRESS: '0',
    // The machine's default shard count unless the benchmark sets SHARD_WORKERS (the tests' default is 1).
    SHARD_WORKERS: process.env.SHARD_WORKERS ?? '',
    // The service's default (the tests' helper turns it off); SHARD_WARMUP=false to compare.
    SHARD_WARMUP: process.env.SHARD_WARMUP ?? 'true',
    ...env,
  }, {
    inheritEnv: true,
    // BENCH_PROFILE=<dir>: CPU profiles of the service's threads (node --cpu-prof), for the docs.
    // BENCH_NODE_ARGS: more node flags (e.g. --perf-basic-prof, for `perf record` of the service: docs/benchmarks.md).
    execArgv: [...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []), ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [])],
    ...(entry ? { entry } : {}),
  });
  if (svc.urls.metrics === null) throw new Error('the benchmarks read /metrics: METRICS_ENABLED must stay on');
  const metricsUrl = svc.urls.metrics;
  return {
    child: svc.proc,
    ports: { ingest: svc.ports.ingest, rest: svc.ports.rest, broadcast: svc.ports.broadcast, metrics: svc.ports.metrics! },
    cpuSeconds: () => svc.cpuSeconds(),
    out: svc.out,
    rssBytes: () => svc.rssBytes(),
    async stats() {
      const m = await scrapeMetrics(metricsUrl);
      const form = (f: string) => m.value('ods_frames_sent_total', { form: f });
      return {
        loop: { p50: m.value('ods_nodejs_eventloop_lag_p50_seconds') * 1000, p99: m.value('ods_nodejs_eventloop_lag_p99_seconds') * 1000, max: m.value('ods_nodejs_eventloop_lag_max_seconds') * 1000 },
        rss: svc.rssBytes(),
        heapUsed: m.value('ods_nodejs_heap_size_used_bytes'),
        matches: m.value('ods_live_matches'),
        applied: m.value('ods_messages_applied_total'),
        broadcast: {
          deliveries: m.value('ods_messages_sent_total', { event: 'match_data' }),
          deltas: form('delta'), keyframes: form('keyframe'), plain: form('plain'), polling: form('polling'),
          skipped: m.value('ods_frames_skipped_total'),
        },
        framesPublished: m.value('ods_frames_published_total'),
        cycleSeconds: m.value('ods_shard_cycle_duration_seconds_sum'),
        cycles: m.value('ods_shard_cycle_duration_seconds_count'),
      };
    },
    async stop() {
      // SIGTERM: the service's own shutdown, which ends with process.exit (a --cpu-prof profile is written then).
      await svc.stop('SIGTERM', 15_000);
      // BENCH_SERVICE_OUT=<file>: every line the service printed (with BENCH_NODE_ARGS=--trace-opt, V8's own).
      if (process.env.BENCH_SERVICE_OUT) writeFileSync(process.env.BENCH_SERVICE_OUT, svc.out.join('\n') + '\n');
    },
  };
}
