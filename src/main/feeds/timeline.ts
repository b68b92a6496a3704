// The feeds of a match with an output delay (README, "Output delay"; output-delay/output-delays.ts):
// GET /feeds answers with the tables as they were `delay` seconds ago. For each delayed code only, a
// timeline: once a second its current tables are sampled (the same path a poll takes: feeds/rest.ts)
// and kept when they changed, stamped with the time they were answered (a sample is never newer than
// its stamp). A poll gets the newest sample stamped at least `delay` ago; ETag/304 work as live (the
// cache's texts per sample). Memory: at most delay + 2 samples per delayed code (one a second, only
// when the frame changed), each the frame's tables (~5 kB, mostly the players' JSON): about 3 MB for a
// live match at the 600 s bound, nothing for a code without a delay.
//
// What is sampled: a delayed match this process runs (its shard makes the tables); a code with no
// live match anywhere (a directory lookup: "no match then", nothing read); another node's match
// (REDIS_URL) only while its feeds are polled here (within IDLE_MS), since reading its frame costs
// a Redis read: its first poll here starts the timeline, like after a restart.
//
// Never ahead: a code whose timeline has no sample old enough answers 503 with Retry-After, except
// right after an operator set or raised the delay, when the oldest sample kept (what the feeds showed
// a moment before) is answered until the delay catches up: the feeds stand still, nothing new leaks.
// After a restart that is not known, so the timeline starts empty (503 for up to `delay` seconds).
import type { OutputDelays } from '../output-delay/index.js';

const SAMPLE_EVERY_MS = 1000;
/** Another node's match is sampled here until this long after its feeds' last poll here. */
const IDLE_MS = 10 * 60_000;

/** Where a code's match is: run by this process, by another node, or nowhere. */
export type MatchWhere = 'here' | 'elsewhere' | 'none';

interface Sample {
  /** When its tables were answered (epoch ms). */
  at: number;
  /** The tables' key in the feed cache, or null: no live match then (404). */
  key: object | null;
}

interface Line {
  samples: Sample[];
  /** The frame (or null) of the newest sample: an unchanged one is not kept again. */
  last: WeakRef<object> | null | undefined;
  busy: boolean;
  /** Started by an operator's change (not a restart): the oldest sample may stand in until the delay catches up. */
  mayHold: boolean;
  /** When its feeds were last polled here (epoch ms; 0: never). */
  polledAt: number;
}

export type Delayed = { key: object | null } | { retryAfterS: number };

export class FeedTimelines {
  private readonly lines = new Map<string, Line>();
  private readonly timer: NodeJS.Timeout;
  private readonly stopChanges: () => void;

  /**
   * `sample`: the match's current tables as a fresh key loaded into the feed cache (null: no match),
   * and the frame they come from (an unchanged frame is not sampled again).
   */
  constructor(
    private readonly delays: OutputDelays,
    private readonly sample: (groupCode: string) => Promise<{ frame: object; key: () => object } | null>,
    private readonly where: (groupCode: string) => MatchWhere,
  ) {
    for (const { groupCode } of delays.all()) this.lines.set(groupCode, newLine(false));
    this.stopChanges = delays.onChange((groupCode, seconds) => {
      if (seconds === 0) this.lines.delete(groupCode);
      else if (!this.lines.has(groupCode)) this.lines.set(groupCode, newLine(true));
      else this.lines.get(groupCode)!.mayHold = true;
      if (seconds > 0) void this.take(groupCode);
    });
    this.timer = setInterval(() => this.tick(), SAMPLE_EVERY_MS);
    this.timer.unref();
  }

  /** The code's delay in ms (0: live, no timeline). */
  delayMs(groupCode: string): number {
    return this.delays.delayMs(groupCode);
  }

  /** A delayed code's tables as of `delayMs` ago: the sample's key (null: no match then), or how long until one is known. */
  at(groupCode: string, delayMs: number, now = Date.now()): Delayed {
    const line = this.lines.get(groupCode);
    if (line && line.polledAt < now - IDLE_MS) void this.take(groupCode); // another node's match: sampled from now on
    if (line) line.polledAt = now;
    if (!line || line.samples.length === 0) return { retryAfterS: Math.max(1, Math.ceil(delayMs / 1000)) };
    const cutoff = now - delayMs;
    const { samples } = line;
    for (let i = samples.length - 1; i >= 0; i--) if (samples[i].at <= cutoff) return { key: samples[i].key };
    if (line.mayHold) return { key: samples[0].key };
    return { retryAfterS: Math.max(1, Math.ceil((samples[0].at - cutoff) / 1000)) };
  }

  close(): void {
    clearInterval(this.timer);
    this.stopChanges();
    this.lines.clear();
  }

  private tick(): void {
    for (const groupCode of this.lines.keys()) void this.take(groupCode);
  }

  private async take(groupCode: string): Promise<void> {
    const line = this.lines.get(groupCode);
    if (!line || line.busy) return;
    const where = this.where(groupCode);
    if (where === 'elsewhere' && line.polledAt < Date.now() - IDLE_MS) {
      // Not polled here: not sampled, and what was kept is gone (a gap: nothing stands in for it).
      line.samples = [];
      line.last = undefined;
      line.mayHold = false;
      return;
    }
    line.busy = true;
    let found: Awaited<ReturnType<typeof this.sample>> = null;
    try {
      found = where === 'none' ? null : await this.sample(groupCode);
    } catch {
      found = null;
    } finally {
      line.busy = false;
    }
    if (this.lines.get(groupCode) !== line) return; // the delay was removed meanwhile
    const now = Date.now();
    const lastFrame = line.last === null ? null : line.last?.deref();
    const unchanged = line.last !== undefined && (found === null ? line.last === null : lastFrame === found.frame);
    if (!unchanged) {
      line.samples.push({ at: now, key: found ? found.key() : null });
      line.last = found ? new WeakRef(found.frame) : null;
    }
    // Keep the newest sample at least the delay old (what polls get now) and everything after it.
    const cutoff = now - this.delays.delayMs(groupCode);
    let answering = -1;
    for (let i = line.samples.length - 1; i >= 0; i--) if (line.samples[i].at <= cutoff) { answering = i; break; }
    if (answering > 0) line.samples.splice(0, answering);
    if (answering >= 0) line.mayHold = false;
  }
}

function newLine(mayHold: boolean): Line {
  return { samples: [], last: undefined, busy: false, mayHold, polledAt: 0 };
}
