// The shards' figures as the service's totals, in one place (the dashboard and /metrics read the
// same ones). Each shard reports running totals since its thread started (once a second); a
// restarted shard starts again from zero, so each report adds what grew since the same thread's
// last report, and a dead thread's totals stay counted.
import type { ShardStats } from '../../protocol/shard-messages.js';
import type { MainEventBus } from '../base/events.js';

export class ShardTotals {
  /** Messages applied by envelope type, across restarts. Keyed by the clients' type names: no prototype (a type named `constructor` is a name like any other). */
  readonly applied: Record<string, number> = Object.create(null) as Record<string, number>;
  /** Messages dropped by the shards by reason, across restarts. */
  readonly dropped: Record<string, number> = {};
  /** Each shard thread's latest report as it sent it (gauges: matches per shard). */
  readonly latest: (ShardStats | undefined)[] = [];
  /** The report each total was last advanced from, per shard; none after a restart. */
  private readonly base = new Map<number, ShardStats>();

  constructor(events: MainEventBus) {
    events.on('shardStats', ({ shard, stats }) => this.add(shard, stats));
    events.on('shardRestarted', ({ shard }) => this.base.delete(shard));
  }

  private add(shard: number, stats: ShardStats): void {
    const before = this.base.get(shard);
    const grow = (into: Record<string, number>, now: Record<string, number> | undefined, last: Record<string, number> | undefined) => {
      for (const [k, v] of Object.entries(now ?? {})) {
        const prev = last && Object.hasOwn(last, k) ? last[k] : 0;
        into[k] = (Object.hasOwn(into, k) ? into[k] : 0) + (v >= prev ? v - prev : v);
      }
    };
    grow(this.applied, stats.appliedByType, before?.appliedByType);
    grow(this.dropped, stats.dropped, before?.dropped);
    this.base.set(shard, stats);
    this.latest[shard] = stats;
  }
}
