// The per-match output delay (README, "Output delay"; docs/events.md, "Output delay"): group code →
// seconds that the match's events (webhooks, GET /events) and feeds (GET /feeds) are held back, for a
// production whose video runs behind a broadcast delay. 0 (no entry) is off, the default; the
// overlays (broadcast port) are never delayed. This is the process's synchronous view (read per
// event: a Map lookup, so a match without a delay costs nothing more) of the OutputDelayStore
// (output-delay/output-delay-store.ts): operator data like the schedule, kept in DATA_DIR/output-delays.json,
// or with REDIS_URL in Redis, shared by every node. A change made here is in the store before it
// applies; with a shared store each node reads it again every second when its revision moved, so a
// delay set through any node holds on the node that runs the match within a second. A code's
// setting outlives its match (set before the match, it applies from its first event).
import type { Logger } from '../base/log.js';
import type { OutputDelayStore } from './output-delay-store.js';

/** The longest delay, seconds: broadcast delays run from seconds to a few minutes; 10 min covers them and bounds what is held (README). */
export const MAX_OUTPUT_DELAY_S = 600;
/** The most codes with a delay at once (the store and the feeds' timelines stay small). */
export const MAX_DELAYED_CODES = 5000;
/** With a shared store: how often a node checks the store's revision. */
const REFRESH_MS = 1000;

export class OutputDelayError extends Error {}

/** The seconds of an admin request's body `{ seconds }`, or throws OutputDelayError with the reason. */
export function parseDelayBody(body: unknown): number {
  const seconds = typeof body === 'object' && body !== null ? (body as { seconds?: unknown }).seconds : undefined;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > MAX_OUTPUT_DELAY_S) {
    throw new OutputDelayError(`seconds: a whole number from 0 (off) to ${MAX_OUTPUT_DELAY_S}`);
  }
  return seconds;
}

export class OutputDelays {
  private readonly seconds = new Map<string, number>();
  private readonly listeners = new Set<(groupCode: string, seconds: number) => void>();
  private revision = -1;
  private readonly timer: NodeJS.Timeout | null;
  private refreshing = false;

  private constructor(private readonly store: OutputDelayStore, shared: boolean, private readonly log: Logger) {
    this.timer = shared ? setInterval(() => void this.refresh(), REFRESH_MS) : null;
    this.timer?.unref();
  }

  /** The view, read from the store once before the service starts (an unreadable store stops the start). */
  static async open(store: OutputDelayStore, options: { shared: boolean; log: Logger }): Promise<OutputDelays> {
    const view = new OutputDelays(store, options.shared, options.log.child({ module: 'events' }));
    await view.read();
    return view;
  }

  /** The code's delay in milliseconds (0: none). */
  delayMs(groupCode: string): number {
    return this.secondsOf(groupCode) * 1000;
  }

  /** The code's delay in seconds (0: none). */
  secondsOf(groupCode: string): number {
    return this.seconds.size === 0 ? 0 : (this.seconds.get(groupCode) ?? 0); // (most services delay nothing: no hash of the code per feed poll)
  }

  /** Every code with a delay. */
  all(): Array<{ groupCode: string; seconds: number }> {
    return [...this.seconds].map(([groupCode, seconds]) => ({ groupCode, seconds }));
  }

  /** Sets (0: removes) a code's delay: in the store first, then here; throws OutputDelayError past MAX_DELAYED_CODES. */
  async set(groupCode: string, seconds: number): Promise<void> {
    if (!(await this.store.set(groupCode, seconds, MAX_DELAYED_CODES))) {
      throw new OutputDelayError(`at most ${MAX_DELAYED_CODES} group codes can have a delay at once`);
    }
    this.apply(groupCode, seconds);
  }

  /** Told of every change, made here or read from the store (the journal hands on what is due; the feeds start or stop a timeline). */
  onChange(listener: (groupCode: string, seconds: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.listeners.clear();
  }

  private apply(groupCode: string, seconds: number): void {
    if ((this.seconds.get(groupCode) ?? 0) === seconds) return;
    if (seconds > 0) this.seconds.set(groupCode, Math.min(seconds, MAX_OUTPUT_DELAY_S));
    else this.seconds.delete(groupCode);
    for (const listener of this.listeners) listener(groupCode, seconds);
  }

  /** The whole map again, when the store's revision moved (read before the map: a write between them is read next time). */
  private async read(): Promise<void> {
    const revision = await this.store.revision();
    if (revision === this.revision) return;
    const all = await this.store.all();
    this.revision = revision;
    for (const code of [...this.seconds.keys()]) if (!(code in all)) this.apply(code, 0);
    for (const [code, s] of Object.entries(all)) this.apply(code, s);
  }

  private async refresh(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      await this.read();
    } catch (err) {
      this.log.warn({ error: (err as Error).message }, 'output delays not read from the store (the last ones read hold)');
    } finally {
      this.refreshing = false;
    }
  }
}
