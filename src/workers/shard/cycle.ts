// The shard's cycle, every BROADCAST_INTERVAL_MS: the engine timers (live clock only: with the
// recorded clock only messages move time), inactivity removal, the frames that are due, then the
// periodic outputs (snapshot round, stats, dashboard summaries), in one output.
import type { Shard } from './shard.js';
import type { Slot } from './slot.js';

export function runCycle(shard: Shard): void {
  const started = performance.now();
  const now = Date.now();
  const tickTime = shard.clock.tickTime(now);
  for (const slot of shard.slots.values()) {
    if (tickTime !== null) {
      slot.match.advance(tickTime);
      shard.forwardEffects(slot);
      shard.touched(slot);
    }
    if (inactive(shard, slot, now)) shard.endMatch(slot, now, 'inactive');
  }
  shard.sendDueFrames(now);
  if (shard.snapshots.due(now)) shard.takeSnapshots(false);
  shard.stats.cycleTook(Math.round((performance.now() - started) * 1000));
  const stats = shard.stats.take(now, shard.settings.shard, shard.slots.size, shard.drops.counts);
  if (stats) shard.out.stats(stats);
  const summaries = shard.summaries.take(shard.slots.values(), now);
  if (summaries) shard.out.summaries(summaries);
  shard.out.flush();
}

/**
 * docs/match-rules.md 14.1: no frame for INACTIVITY_TIMEOUT_MS (a running timeout's frames keep a match
 * alive). A match with a change pending is not inactive: its frame is about to go out.
 */
function inactive(shard: Shard, slot: Slot, now: number): boolean {
  return now - slot.lastActivityAt > shard.settings.inactivityMs && !shard.frames.isPending(slot);
}
