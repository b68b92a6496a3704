// The main thread's event-loop delay in /metrics, under prom-client's default names
// (ods_nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds), from the thread's own heartbeat
// (base/loop-beat.ts): how late each 50 ms beat fired, since the last scrape.
//
// prom-client's default collector measures them with monitorEventLoopDelay at a 10 ms resolution: a
// timer of its own, 100 wake-ups a second of a thread that a quiet service leaves asleep between
// messages (~25–40 µs of CPU per message at 50 matches and 3 msg/s; docs/perf/message-path.md,
// "Wake-ups"), whose histogram also counts the 10 ms itself (an idle loop read 0.010 s). The
// collector has no switch for one metric: it is given a one-minute resolution (one wake-up a minute)
// and its seven histogram gauges are replaced by these, through the registry's public API.
// `ods_nodejs_eventloop_lag_seconds` (a setImmediate's wait at the scrape, no timer) stays its own.
import client from 'prom-client';
import type { LoopBeat, LoopDelays } from '../base/loop-beat.js';

/** The resolution left to prom-client's own sampler, whose figures are not exposed. */
export const DEFAULT_COLLECTOR_RESOLUTION_MS = 60_000;

const STATS: Array<{ stat: keyof LoopDelays; help: string }> = [
  { stat: 'min', help: 'The least delay of the main thread\'s heartbeat since the last scrape (0: on time)' },
  { stat: 'max', help: 'The longest delay of the main thread\'s heartbeat since the last scrape' },
  { stat: 'mean', help: 'The mean delay of the main thread\'s heartbeat since the last scrape' },
  { stat: 'stddev', help: 'The standard deviation of the main thread\'s heartbeat delays since the last scrape' },
  { stat: 'p50', help: 'The 50th percentile of the main thread\'s heartbeat delays since the last scrape' },
  { stat: 'p90', help: 'The 90th percentile of the main thread\'s heartbeat delays since the last scrape' },
  { stat: 'p99', help: 'The 99th percentile of the main thread\'s heartbeat delays since the last scrape' },
];

/** Replaces prom-client's event-loop delay gauges (collectDefaultMetrics ran first) with the heartbeat's. */
export function registerLoopDelay(registry: client.Registry, prefix: string, beat: Pick<LoopBeat, 'takeDelays'>): void {
  const gauges: Array<{ stat: keyof LoopDelays; gauge: client.Gauge }> = [];
  // The first gauge's collect (the registry collects in order) sets all seven from one take.
  const collect = () => {
    const d = beat.takeDelays();
    for (const { stat, gauge } of gauges) gauge.set(d[stat]);
  };
  STATS.forEach(({ stat, help }, i) => {
    const name = `${prefix}nodejs_eventloop_lag_${stat}_seconds`;
    registry.removeSingleMetric(name);
    gauges.push({ stat, gauge: new client.Gauge({ name, help, registers: [registry], ...(i === 0 ? { collect } : {}) }) });
  });
}
