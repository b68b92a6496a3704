// The shard's stats for the metrics (ShardStats), taken every STATS_INTERVAL_MS: applied messages
// (by envelope type, bounded), frames serialized, cycle durations, the thread's event-loop delay.
//
// The loop delay is how late the thread's own cycle timer fired (BROADCAST_INTERVAL_MS after the
// cycle before it started), not a monitorEventLoopDelay histogram: that one runs a timer of its own
// every 10 ms, 100 wake-ups a second of a thread that is otherwise asleep between its cycles and
// batches, which cost a quiet service ~40 µs of CPU per message at 50 matches and 3 msg/s
// (docs/perf/message-path.md, "Wake-ups"). A stall of the thread delays its next cycle by as much,
// so the cycle's lateness sees what the histogram saw, ten times a second, at no cost.
import { createHistogram } from 'node:perf_hooks';
import { MAX_CYCLE_SAMPLES, MAX_TYPE_NAMES, STATS_INTERVAL_MS, TYPE_NAME } from '../../protocol/limits.js';
import type { ShardStats } from '../../protocol/shard-messages.js';

export class StatsCounter {
  applied = 0;
  framesSerialized = 0;
  /** Keyed by the client's type names: no prototype, so `constructor` or `toString` is a name like any other. */
  private readonly appliedByType: Record<string, number> = Object.create(null) as Record<string, number>;
  private typeNames = 0;
  private cycleMicros = 0;
  private cycles: number[] = [];
  private lastTakenAt = 0;
  /** Lateness of each cycle in ns (a histogram records integers ≥ 1: 1 is on time). */
  private readonly loopDelay = createHistogram();
  private lastCycleAt = -1;

  constructor(private readonly intervalMs: number) {}

  /** A cycle started at `at` (performance.now()): its timer's lateness is the loop's delay. */
  cycleStarted(at: number): void {
    if (this.lastCycleAt >= 0) this.loopDelay.record(Math.max(1, Math.round((at - this.lastCycleAt - this.intervalMs) * 1e6)));
    this.lastCycleAt = at;
  }

  /** One accepted message of this envelope type. */
  accepted(type: string): void {
    this.applied++;
    let name = type;
    if (!Object.hasOwn(this.appliedByType, name)) {
      if (this.typeNames >= MAX_TYPE_NAMES || !TYPE_NAME.test(name)) name = 'other';
      else this.typeNames++;
    }
    this.appliedByType[name] = (this.appliedByType[name] ?? 0) + 1;
  }

  cycleTook(micros: number): void {
    this.cycleMicros = micros;
    if (this.cycles.length < MAX_CYCLE_SAMPLES) this.cycles.push(micros);
  }

  /** The stats when STATS_INTERVAL_MS passed since the last ones, else undefined. */
  take(now: number, shard: number, matches: number, dropped: Record<string, number>): ShardStats | undefined {
    if (now - this.lastTakenAt < STATS_INTERVAL_MS) return undefined;
    this.lastTakenAt = now;
    const stats: ShardStats = {
      shard, matches, applied: this.applied, dropped: { ...dropped },
      framesSerialized: this.framesSerialized, cycleMicros: this.cycleMicros,
      appliedByType: { ...this.appliedByType }, cycles: this.cycles,
      loopDelayP99Ms: finiteMs(this.loopDelay.percentile(99)), loopDelayMaxMs: finiteMs(this.loopDelay.max),
    };
    this.cycles = [];
    this.loopDelay.reset();
    return stats;
  }

  stop(): void {
    this.lastCycleAt = -1;
  }
}

/** A histogram value in ns as ms (0 when there was no sample, or only on-time ones). */
const finiteMs = (ns: number): number => (Number.isFinite(ns) && ns > 1 ? ns / 1e6 : 0);
