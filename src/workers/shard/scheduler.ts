// When frames go out (docs/match-rules.md 13; docs/architecture.md, "The broadcast cycle"): a changed
// match whose last frame is at least one interval old goes out at once after the batch (leading
// edge); otherwise one timer fires when the earliest pending match is due. At most one frame per
// match per interval. With FRAME_EDGE=cycle the batches send none: the shard's cycle sends every
// pending match (`sendAll`), one frame per match per cycle, with no timer of its own.
import type { Slot } from './slot.js';

export class FrameScheduler {
  /** Matches changed since their last frame. */
  private readonly pending = new Set<Slot>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private stopped = false;

  /** `onTimer`: the due timer fired (the shard sends what is due, then flushes). */
  constructor(private readonly intervalMs: number, private readonly onTimer: () => void) {}

  /** A match that may have changed: pending when its eventNumber is above its last frame's. */
  touched(slot: Slot): void {
    if (slot.match.eventNumber > slot.lastSentEvent) this.pending.add(slot);
  }

  isPending(slot: Slot): boolean {
    return this.pending.has(slot);
  }

  /** The slot's frame is out, or it is gone. */
  forget(slot: Slot): void {
    this.pending.delete(slot);
  }

  /** The pending matches, as a copy (sending a frame changes the set). */
  allPending(): Slot[] {
    return [...this.pending];
  }

  /** FRAME_EDGE=cycle, at the cycle: `send` every pending match (it must forget() the slot). */
  sendAll(now: number, send: (slot: Slot, now: number) => void): void {
    for (const slot of this.pending) send(slot, now);
  }

  /** `send` each pending match that is due (it must forget() the slot); the timer for the earliest other. */
  sendDue(now: number, send: (slot: Slot, now: number) => void): void {
    let nextDue = Infinity;
    for (const slot of this.pending) {
      const due = slot.lastSentAt + this.intervalMs;
      if (due <= now) send(slot, now);
      else if (due < nextDue) nextDue = due;
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
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
