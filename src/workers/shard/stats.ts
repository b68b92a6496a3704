// The shard's stats for the metrics (ShardStats), taken every STATS_INTERVAL_MS: applied messages
// (by envelope type, bounded), frames serialized, cycle durations, the thread's event-loop delay.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { LOOP_DELAY_RESOLUTION_MS, MAX_CYCLE_SAMPLES, MAX_TYPE_NAMES, STATS_INTERVAL_MS, TYPE_NAME } from '../../protocol/limits.js';
import type { ShardStats } from '../../protocol/shard-messages.js';

export class StatsCounter {
  applied = 0;
  framesSerialized = 0;
  private readonly appliedByType: Record<string, number> = {};
  private typeNames = 0;
  private cycleMicros = 0;
  private cycles: number[] = [];
  private lastTakenAt = 0;
  private readonly loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });

  constructor() {
    this.loopDelay.enable();
  }

  /** One accepted message of this envelope type. */
  accepted(type: string): void {
    this.applied++;
    let name = type;
    if (this.appliedByType[name] === undefined) {
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
    this.loopDelay.disable();
  }
}

/** A histogram value in ns as ms (0 when there was no sample). */
const finiteMs = (ns: number): number => (Number.isFinite(ns) ? ns / 1e6 : 0);
