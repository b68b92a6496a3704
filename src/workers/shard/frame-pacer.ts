// When frames go out (docs/match-rules.md 13; docs/architecture.md, "The broadcast cycle"): a changed
// match is due once the clock is in a later interval than its last frame's (intervals of the wall
// clock, `intervalMs` long: the same grid as the main thread's quiet batches, main/shards/batches.ts)
// and that frame is at least four fifths of an interval old (`jitterSlackMs`); due after a batch, it goes out at
// once (leading edge), otherwise one timer fires when the earliest pending match is due. At most
// one frame per match per interval. The pacer says which matches are due (`due`); the shard sends
// their frames.
// With FRAME_EDGE=cycle the batches send none: at the shard's cycle every pending match is due
// (`allPending`), one frame per match per cycle, with no timer of its own.
import type { Slot } from './slot.js';

/**
 * A fifth of the interval: how much sooner than a whole interval after the last frame a match may
 * go out again, in a later interval. Without it, "a whole interval after the last frame" drifts: a
 * frame sent by the timer is stamped when the timer fired, a little late, so each one moves the next
 * due time later, until the frames trail the quiet batches that made them by up to an interval (at
 * 50 matches and 20 messages a second each, p50 latency 57 → 110 ms: docs/perf/message-path.md).
 */
export const jitterSlackMs = (intervalMs: number): number => intervalMs / 5;

/** When a match whose last frame went out at `sentAt` may have its next (epoch ms). */
export function nextFrameAt(sentAt: number, intervalMs: number): number {
  return Math.max(sentAt + intervalMs - jitterSlackMs(intervalMs), (Math.floor(sentAt / intervalMs) + 1) * intervalMs);
}

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
      const at = nextFrameAt(slot.sent.at, this.intervalMs);
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
