// The shard's cycle, every BROADCAST_INTERVAL_MS: the matches whose earliest deadline is due
// (deadlines.ts: an engine timer or a round's end to settle, live clock only, since with the recorded clock only messages move
// time; an inactivity check), the frames that are due, then the periodic outputs (snapshot round,
// stats, dashboard summaries), in one output. Nothing here visits a match that has nothing due.
import type { CycleContext } from './context.js';
import { timeReached } from './match-events.js';
import type { Slot } from './slot.js';

export function runCycle(shard: CycleContext): void {
  const started = performance.now();
  shard.stats.cycleStarted(started);
  const now = Date.now();
  const tickTime = shard.clock.tickTime(now);
  const deadlines = shard.deadlines;
  for (let slot = deadlines.due(now); slot !== undefined; slot = deadlines.due(now)) {
    if (tickTime !== null && slot.deadline.timerAt <= tickTime) {
      timeReached(slot, tickTime); // a round's end to settle (events/round-end.ts)
      slot.match.advance(tickTime);
      shard.changes.forwardEffects(slot);
      shard.changes.touched(slot); // moves timerAt past tickTime (advance ran every timer due)
    }
    if (slot.deadline.inactivityAt <= now) {
      if (inactive(shard, slot, now)) shard.endMatch(slot, now, 'inactive'); // out of the heap
      else deadlines.checkInactivityAt(slot, nextInactivityCheck(shard, slot, now));
    }
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
function inactive(shard: CycleContext, slot: Slot, now: number): boolean {
  return now - slot.sent.activityAt > shard.settings.inactivityMs && !shard.pacer.isPending(slot);
}

/** An active match is checked again once its last frame is INACTIVITY_TIMEOUT_MS old (pending: at the next cycle). */
function nextInactivityCheck(shard: CycleContext, slot: Slot, now: number): number {
  return Math.max(now + 1, slot.sent.activityAt + shard.settings.inactivityMs + 1);
}
