// The output delay's gate (docs/events.md, "Output delay"): between the journal storing an event and
// handing it on to its listeners (the webhook delivery, GET /events and its resume window), which it
// tells itself: an event's way to a webhook does not go back through the journal. An event is stored at once
// (journal files, shared outbox) and handed on once its match's delay (output-delay/output-delays.ts)
// has passed since it was first stored (StoredEvent.keptAt), in seq order: a match's events wait
// behind its first one not yet due. A delayed match with events waiting has one timer (for the first
// of them), never one per event; a match without a delay hands each event on as it becomes durable,
// with no timer. A change of the delay hands on at once what is due under the new one (0: all).

import { keptEvent } from './match-log.js';
import type { StoredEvent } from './types.js';

/** What the gate reads and moves of a match's log (journal.ts, MatchLog). */
export interface GatedMatch {
  readonly matchKey: string;
  readonly groupCode: string;
  readonly events: ReadonlyArray<StoredEvent | undefined>;
  /** Events up to this seq are durable (may be handed on once due). */
  durable: number;
  /** Events up to this seq were handed on. */
  handed: number;
}

/** A timer that fires a little early still finds its event not due; this much later it is. */
const TIMER_SLACK_MS = 5;

export class DelayGate {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  /** Told of each event as it is handed on, in the order they subscribed (the journal's resume window first). */
  private readonly listeners = new Set<(stored: StoredEvent) => void>();

  constructor(
    private readonly delayMs: (groupCode: string) => number,
    private readonly matchOf: (matchKey: string) => GatedMatch | undefined,
  ) {}

  subscribe(listener: (stored: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hands on the match's durable events that are due, in order; a timer for the first one that is not. */
  run(match: GatedMatch): void {
    const delay = this.delayMs(match.groupCode);
    const now = Date.now();
    while (match.handed < match.durable) {
      const stored = keptEvent(match, match.handed);
      const due = delay > 0 ? (stored.keptAt ?? 0) + delay : 0;
      if (due > now) {
        this.wake(match.matchKey, due - now + TIMER_SLACK_MS);
        return;
      }
      match.handed++;
      for (const listener of this.listeners) listener(stored);
    }
    this.clear(match.matchKey);
  }

  /** How many of a match's first events are due now (a match read from disk or the shared outbox): handed on without telling. */
  duePrefix(match: GatedMatch): number {
    const delay = this.delayMs(match.groupCode);
    if (delay <= 0) return match.durable;
    const now = Date.now();
    let n = 0;
    while (n < match.durable && (keptEvent(match, n).keptAt ?? 0) + delay <= now) n++;
    return n;
  }

  /** A code's delay changed: what is due under the new one is handed on now, the rest waits for its new time. */
  changed(matches: Iterable<GatedMatch>, groupCode: string): void {
    for (const match of matches) {
      if (match.groupCode !== groupCode) continue;
      this.clear(match.matchKey);
      this.run(match);
    }
  }

  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** The timer of the match's first waiting event (kept while it waits: a newer event waits behind it). */
  private wake(matchKey: string, ms: number): void {
    if (this.timers.has(matchKey)) return;
    const timer = setTimeout(() => {
      this.timers.delete(matchKey);
      const match = this.matchOf(matchKey);
      if (match) this.run(match);
    }, ms);
    timer.unref();
    this.timers.set(matchKey, timer);
  }

  private clear(matchKey: string): void {
    const timer = this.timers.get(matchKey);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(matchKey);
  }
}
