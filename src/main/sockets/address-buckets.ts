// A token bucket per address key (address-key.ts), for the uWS ports' MAX_CONNECTIONS_PER_ADDRESS
// (connection-guard.ts). Each key may open `burst` connections at once and regains them at
// `burst` per `windowMs`, continuously (a sliding window, not a fixed one that resets for everyone).
// A refused attempt takes nothing, so retries never extend a lockout. A connection that proved to
// be a client gives its token back (`giveBack`), from a second allowance of the same size and
// refill, so that no number of requests can buy an address more than twice its share of silent
// connections: at most 2 x burst per window from the bucket and 2 x burst from give-backs.
//
// Memory is bounded by `maxKeys`, and no number of keys can reset another key's count: a bucket
// that has refilled is dropped first (it holds no information: a new bucket is full too); only if
// that frees too little are the buckets nearest to full dropped next, i.e. the keys that behaved
// best lose at most their small deficit, while a drained (locked-out) key is the last ever dropped.
// There is never a clear-all.

/** Share of `maxKeys` an eviction pass frees, so passes are rare (amortised) once the table is full. */
const EVICT_TO = 0.9;

interface Bucket { tokens: number; credits: number; at: number }

export class AddressBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  /** Eviction passes so far, and keys they dropped that had not refilled (metrics; tests). */
  readonly evictions = { passes: 0, unrefilled: 0 };

  constructor(readonly burst: number, windowMs: number, readonly maxKeys = 100_000, private readonly now: () => number = Date.now) {
    this.perMs = burst / windowMs;
  }

  get size(): number { return this.buckets.size; }

  /** Takes one token for `key`: true when it had one (the connection is accepted). */
  take(key: string): boolean {
    const t = this.now();
    let b = this.buckets.get(key);
    if (b) this.refill(b, t);
    else {
      if (this.buckets.size >= this.maxKeys) this.evict(t);
      b = { tokens: this.burst, credits: this.burst, at: t };
      this.buckets.set(key, b);
    }
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Gives `key` a token back (a connection of it proved to be a client), up to the burst, while its allowance lasts. */
  giveBack(key: string): void {
    const b = this.buckets.get(key);
    if (!b) return;
    this.refill(b, this.now());
    if (b.credits < 1 || b.tokens >= this.burst) return;
    b.credits -= 1;
    b.tokens = Math.min(this.burst, b.tokens + 1);
  }

  /** Tokens `key` has now (the burst for a key not tracked). */
  tokens(key: string): number {
    const b = this.buckets.get(key);
    if (!b) return this.burst;
    this.refill(b, this.now());
    return b.tokens;
  }

  private refill(b: Bucket, t: number): void {
    if (t > b.at) {
      const gained = (t - b.at) * this.perMs;
      b.tokens = Math.min(this.burst, b.tokens + gained);
      b.credits = Math.min(this.burst, b.credits + gained);
    }
    b.at = t;
  }

  private evict(t: number): void {
    this.evictions.passes++;
    const target = Math.floor(this.maxKeys * EVICT_TO);
    const partial: [string, number][] = [];
    for (const [key, b] of this.buckets) {
      this.refill(b, t);
      if (b.tokens >= this.burst && b.credits >= this.burst) this.buckets.delete(key);
      else partial.push([key, b.tokens]);
    }
    if (this.buckets.size <= target) return;
    partial.sort((x, y) => y[1] - x[1]); // nearest to full first
    for (let i = 0; i < partial.length && this.buckets.size > target; i++) {
      this.buckets.delete(partial[i][0]);
      this.evictions.unrefilled++;
    }
  }
}
