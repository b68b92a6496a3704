// When frames go out (docs/match-rules.md 13; docs/architecture.md, "The broadcast cycle"): a changed
// match whose last frame is at least one interval old goes out at once after the batch (leading
// edge); otherwise one timer fires when the earliest pending match is due. At most one frame per
// match per interval. The pacer says which matches are due (`due`); the shard sends their frames.
// With FRAME_EDGE=cycle the batches send none: at the shard's cycle every pending match is due
// (`allPending`), one frame per match per cycle, with no timer of its own.
import type { Slot } from './slot.js';

export class FramePacer {
  /** Matches changed since their last frame. */
  private readonly pending = new Set<Slot>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private stopped = false;

  /** `onTimer`: the due timer fired (the shard sends what is due, then flushes). */
  constructor(private readonly intervalMs: number, private readonly onTimer: () => void) {}

  /** A match that may have changed: pending when its stateVersion is above its last frame's. */
  touched(slot: Slot): void {
    if (slot.match.stateVersion > slot.sent.event) this.pending.add(slot);
  }

  isPending(slot: Slot): boolean {
    return this.pending.has(slot);
  }

  /** The slot's frame is out, or it is gone. */
  forget(slot: Slot): void {
    this.pending.delete(slot);
  }

  /** The pending matches, as a copy (sending a frame changes the set): the drain's, and FRAME_EDGE=cycle's at the cycle. */
  allPending(): Slot[] {
    return [...this.pending];
  }

  /**
   * The pending matches whose frame is due by `now`, in the order they became pending (the caller
   * sends each and forget()s it); the timer is set for the earliest other.
   */
  due(now: number): Slot[] {
    const due: Slot[] = [];
    let nextDue = Infinity;
    for (const slot of this.pending) {
      const at = slot.sent.at + this.intervalMs;
      if (at <= now) due.push(slot);
      else if (at < nextDue) nextDue = at;
    }
    if (nextDue < Infinity && nextDue < this.timerAt && !this.stopped) {
      if (this.timer) clearTimeout(this.timer);
      this.timerAt = nextDue;
      this.timer = setTimeout(() => {
        this.timer = null;
        this.timerAt = Infinity;
        this.onTimer();
      }, Math.max(0, nextDue - now));
    }
    return due;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
