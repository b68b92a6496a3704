// The shard's deadlines: one binary min-heap of its matches keyed by each one's earliest deadline,
// the engine's next timer (Match.nextTimerAt: timeout tick/end, toast auto-off; live clock only) or
// its inactivity check (docs/match-rules.md 14.1). The cycle pops only the matches that are due, so
// a cycle costs nothing per match while nothing happens (instead of advance + inactivity for every
// match every cycle). At most one entry per match: its key moves in place (heapIndex).
//
// The inactivity check is lazy: its key is set from lastActivityAt when it is scheduled and is not
// moved by each frame; when it comes due, the match is checked and, if still active, scheduled again
// from its newer activity time. This file owns each slot's `deadline` entry (slot.ts).
import type { Slot } from './slot.js';

export class Deadlines {
  private readonly heap: Slot[] = [];

  /**
   * `timers`: the engine timers are tracked (live clock; with the recorded clock only messages move
   * time, so they are not). `inactivityMs`: INACTIVITY_TIMEOUT_MS.
   */
  constructor(private readonly timers: boolean, private readonly inactivityMs: number) {}

  get size(): number {
    return this.heap.length;
  }

  /** A new match (created or restored) and its engine's next timer (Match.nextTimerAt): its inactivity check and timer are scheduled. */
  add(slot: Slot, nextTimerAt: number | null): void {
    slot.deadline.inactivityAt = slot.sent.activityAt + this.inactivityMs + 1;
    slot.deadline.timerAt = this.timers ? (nextTimerAt ?? Infinity) : Infinity;
    slot.deadline.heapIndex = this.heap.length;
    this.heap.push(slot);
    this.up(slot.deadline.heapIndex);
  }

  /** The match may have changed: its engine's next timer (Match.nextTimerAt) again, a compare when it did not move. */
  timerMoved(slot: Slot, nextTimerAt: number | null): void {
    if (!this.timers || slot.deadline.heapIndex < 0) return;
    const at = nextTimerAt ?? Infinity;
    if (at === slot.deadline.timerAt) return;
    slot.deadline.timerAt = at;
    this.rekey(slot);
  }

  /** The inactivity check comes due at `at` (wall ms). */
  checkInactivityAt(slot: Slot, at: number): void {
    if (slot.deadline.heapIndex < 0 || at === slot.deadline.inactivityAt) return;
    slot.deadline.inactivityAt = at;
    this.rekey(slot);
  }

  /** The match whose earliest deadline is due by `now`, without removing it (its keys must then move), or undefined. */
  due(now: number): Slot | undefined {
    const top = this.heap[0];
    return top !== undefined && key(top) <= now ? top : undefined;
  }

  remove(slot: Slot): void {
    const i = slot.deadline.heapIndex;
    if (i < 0) return;
    slot.deadline.heapIndex = -1;
    const last = this.heap.pop()!;
    if (last === slot) return;
    this.heap[i] = last;
    last.deadline.heapIndex = i;
    this.rekey(last);
  }

  private rekey(slot: Slot): void {
    this.up(slot.deadline.heapIndex);
    this.down(slot.deadline.heapIndex);
  }

  private up(i: number): void {
    const heap = this.heap;
    const slot = heap[i];
    const k = key(slot);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p];
      if (key(parent) <= k) break;
      heap[i] = parent;
      parent.deadline.heapIndex = i;
      i = p;
    }
    heap[i] = slot;
    slot.deadline.heapIndex = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const slot = heap[i];
    const k = key(slot);
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && key(heap[r]) < key(heap[l]) ? r : l;
      const child = heap[c];
      if (key(child) >= k) break;
      heap[i] = child;
      child.deadline.heapIndex = i;
      i = c;
    }
    heap[i] = slot;
    slot.deadline.heapIndex = i;
  }
}

const key = (slot: Slot): number => {
  const d = slot.deadline;
  return d.timerAt < d.inactivityAt ? d.timerAt : d.inactivityAt;
};
