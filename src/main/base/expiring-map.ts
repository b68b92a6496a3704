// An in-memory map whose entries expire a fixed TTL after they were last written.
//
// Because the TTL is the same for every entry and the clock is monotonic, re-inserting an entry
// on every write keeps the Map's insertion order sorted by expiry: the oldest entry is always
// first. A sweep therefore stops at the first live entry (cost proportional to what it removes),
// and one timer, armed for the head's expiry, is all the bookkeeping there is: no timer per entry.
// Reads check expiry themselves, so an entry is never served late even between sweeps.
// Entries leave only by expiring (each through `onExpire`, which the stores' byte counts rely on):
// there is no delete.
import { performance } from 'node:perf_hooks';

export interface ExpiringMapOptions<V> {
  ttlMs: number;
  /** Monotonic milliseconds; injectable for tests. */
  now?: () => number;
  /**
   * Timer mode. 'head': one timer armed for the earliest expiry (precise; right for short TTLs).
   * A number: a periodic sweep at that interval (the spec's team-info cleanup every 5 minutes).
   */
  sweep: 'head' | number;
  /** Called for every entry removed because it expired (on read or by a sweep). */
  onExpire?: (key: string, value: V) => void;
}

interface Entry<V> { value: V; expiresAt: number }

export class ExpiringMap<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: ExpiringMapOptions<V>) {
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? (() => performance.now());
    if (typeof options.sweep === 'number') {
      this.timer = setInterval(() => this.sweep(), options.sweep);
      this.timer.unref();
    }
  }

  /** The live value, or undefined (an expired entry is dropped on the spot). */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() >= entry.expiresAt) {
      this.entries.delete(key);
      this.options.onExpire?.(key, entry.value);
      return undefined;
    }
    return entry.value;
  }

  /** Writes the value with a fresh TTL (the entry moves to the tail: the order stays sorted). */
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    this.armHeadTimer();
  }

  /** Entries held, expired ones not yet swept included; call sweep() first for an exact count. */
  get size(): number {
    return this.entries.size;
  }

  /** Removes every expired entry; returns how many. */
  sweep(): number {
    const now = this.now();
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now) break;
      this.entries.delete(key);
      removed++;
      this.options.onExpire?.(key, entry.value);
    }
    return removed;
  }

  close(): void {
    this.closed = true;
    if (this.timer) {
      clearTimeout(this.timer);
      clearInterval(this.timer);
    }
    this.timer = undefined;
  }

  private armHeadTimer(): void {
    if (this.options.sweep !== 'head' || this.timer || this.closed) return;
    const head = this.entries.values().next();
    if (head.done) return;
    // If the head is later replaced, the timer fires early, finds nothing and re-arms: harmless.
    const delay = Math.max(0, Math.ceil(head.value.expiresAt - this.now()));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sweep();
      this.armHeadTimer();
    }, delay);
    this.timer.unref();
  }
}
