// The live stream's resume window (journal.ts; docs/events.md, "The live stream"): the latest events
// of every match in the order they were handed on, for Last-Event-ID, at most resumeWindowMs old and
// MAX_WINDOW_EVENTS events (memory bound).
import type { StoredEvent } from './types.js';

/** The most events the stream's resume window holds, whatever their age (memory bound). */
const MAX_WINDOW_EVENTS = 100_000;

export class ResumeWindow {
  private recent: StoredEvent[] = [];

  constructor(private readonly resumeWindowMs: number) {}

  /** An event handed on now. */
  remember(stored: StoredEvent): void {
    stored.storedAt = Date.now();
    this.recent.push(stored);
    if (this.recent.length % 256 === 0) this.trim(Date.now());
    if (this.recent.length > MAX_WINDOW_EVENTS) this.recent = this.recent.slice(-MAX_WINDOW_EVENTS / 2);
  }

  /** After a restart: the stored events, in time order (their storedAt set to now). */
  reload(all: StoredEvent[]): void {
    this.recent = all.slice(-MAX_WINDOW_EVENTS / 2);
  }

  /** The events after the one with this id, within the window; null when it is not in it. */
  after(id: string): StoredEvent[] | null {
    for (let i = this.recent.length - 1; i >= 0; i--) if (this.recent[i].id === id) return this.recent.slice(i + 1);
    return null;
  }

  /** Every event in the window, oldest first. */
  all(): readonly StoredEvent[] {
    this.trim(Date.now());
    return this.recent;
  }

  private trim(now: number): void {
    const from = now - this.resumeWindowMs;
    let i = 0;
    while (i < this.recent.length && (this.recent[i].storedAt ?? 0) < from) i++;
    if (i > 0) this.recent = this.recent.slice(i);
  }
}
