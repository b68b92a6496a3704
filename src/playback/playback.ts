// The one playback engine: plays a recording's records to a transport at a pace (instant, or the
// recorded gaps divided by a speed), with pause, resume, seek (fast-forward), stop, loop and progress.
// Two transports use it: the replay tool (src/tools/replay-client.ts: socket.io-client, as a real
// observer) and the service's rehearsals (src/main/rehearsal: injection into the match's path on the
// owning node). It lives in its own folder because both sides import it: src/main must not import
// src/tools (a command-line tool), and src/protocol is for what crosses between threads only. It
// knows nothing of sockets, shards or the service: records are indexes and times.

/** 'instant': as fast as the transport takes them; a number: the recorded gaps divided by it. */
export type Pace = 'instant' | number;

export interface PlaybackTransport {
  /** Records [from, to) now, in order. `fast`: part of a seek's fast-forward (or the instant pace). */
  deliver(from: number, to: number, fast: boolean): void;
  /**
   * Back to an empty match before a backward seek or a loop; resolves false when it cannot (the
   * playback stops). Without it, backward seeks and loops are refused.
   */
  reset?(): Promise<boolean>;
}

export type PlaybackState = 'playing' | 'paused' | 'resetting' | 'ended' | 'stopped';

export interface PlaybackOptions {
  /** Each record's recorded time (ms); records without one take their predecessor's. */
  times: readonly number[];
  pace: Pace;
  transport: PlaybackTransport;
  /** At the end, reset and play again from `loopFrom` (default 0). */
  loop?: boolean;
  loopFrom?: number;
  /** The last record was delivered (not looping), or the playback stopped because a reset failed. */
  onEnd?(reason: 'end' | 'reset_failed'): void;
  /** Instant pace: records per turn before yielding to the event loop (default 200). */
  instantChunk?: number;
}

export interface PlaybackProgress {
  state: PlaybackState;
  /** Index of the next record to deliver. */
  position: number;
  total: number;
  pace: Pace;
  loop: boolean;
  /** Completed loops. */
  loops: number;
}

export class Playback {
  private state: PlaybackState = 'paused';
  private position = 0;
  private loops = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Wall time and recorded time of the anchor record: record i is due at wall + (times[i] - time) / speed. */
  private anchor = { wall: 0, time: 0 };
  /** A seek or resume asked for while a reset runs: applied once it is done. */
  private afterReset: { index: number; play: boolean } | undefined;
  private readonly times: number[];

  constructor(private readonly options: PlaybackOptions) {
    let last = 0;
    this.times = options.times.map((t) => (last = Number.isFinite(t) ? t : last));
  }

  get total(): number {
    return this.times.length;
  }

  progress(): PlaybackProgress {
    const { pace, loop } = this.options;
    return { state: this.state, position: this.position, total: this.total, pace, loop: loop === true, loops: this.loops };
  }

  /** Fast-forwards to `from` and plays from there. */
  start(from = 0): void {
    this.state = 'paused';
    this.seek(from);
    this.resume();
  }

  pause(): void {
    if (this.state === 'resetting' && this.afterReset) this.afterReset.play = false;
    if (this.state !== 'playing') return;
    this.clear();
    this.state = 'paused';
  }

  resume(): void {
    if (this.state === 'resetting' && this.afterReset) this.afterReset.play = true;
    if (this.state !== 'paused') return;
    this.state = 'playing';
    this.anchorAt(this.position);
    this.schedule();
  }

  /**
   * Record `index` is next: forward, the records in between are delivered at once (fast-forward);
   * backward, the transport resets first and the records before `index` are delivered at once.
   * A paused playback stays paused. False when refused (backward without reset; stopped).
   */
  seek(index: number): boolean {
    const target = Math.max(0, Math.min(this.total, Math.floor(index)));
    if (this.state === 'stopped' || this.state === 'ended') return false;
    if (this.state === 'resetting') {
      if (!this.afterReset) return false;
      this.afterReset.index = target;
      return true;
    }
    const play = this.state === 'playing';
    if (target < this.position) {
      if (!this.options.transport.reset) return false;
      this.reset(target, play);
      return true;
    }
    this.clear();
    if (target > this.position) this.options.transport.deliver(this.position, target, true);
    this.position = target;
    if (play) {
      this.anchorAt(target);
      this.schedule();
    }
    return true;
  }

  stop(): void {
    this.clear();
    this.state = 'stopped';
    this.afterReset = undefined;
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private anchorAt(index: number): void {
    this.anchor = { wall: Date.now(), time: this.times[Math.min(index, this.total - 1)] ?? 0 };
  }

  private reset(index: number, play: boolean): void {
    this.clear();
    this.state = 'resetting';
    this.afterReset = { index, play };
    const reset = this.options.transport.reset!;
    reset().then((ok) => {
      if (this.state !== 'resetting') return; // stopped meanwhile
      const next = this.afterReset ?? { index, play };
      this.afterReset = undefined;
      if (!ok) {
        this.state = 'stopped';
        this.options.onEnd?.('reset_failed');
        return;
      }
      this.position = 0;
      this.state = 'paused';
      this.seek(next.index);
      if (next.play) this.resume();
    }, () => {
      if (this.state !== 'resetting') return;
      this.state = 'stopped';
      this.options.onEnd?.('reset_failed');
    });
  }

  private schedule(): void {
    if (this.state !== 'playing') return;
    if (this.position >= this.total) return this.finish();
    const pace = this.options.pace;
    const delay = pace === 'instant' ? 0 : Math.max(0, this.anchor.wall + (this.times[this.position] - this.anchor.time) / pace - Date.now());
    this.timer = setTimeout(() => this.tick(), delay);
  }

  /** Every record that is due now (instant: the next chunk), then the next timer. */
  private tick(): void {
    this.timer = undefined;
    if (this.state !== 'playing') return;
    const pace = this.options.pace;
    let end = this.position;
    if (pace === 'instant') end = Math.min(this.total, this.position + (this.options.instantChunk ?? 200));
    else {
      const now = Date.now();
      while (end < this.total && this.anchor.wall + (this.times[end] - this.anchor.time) / pace <= now) end++;
      if (end === this.position) end++; // the timer fired a little early
    }
    const from = this.position;
    this.position = end;
    this.options.transport.deliver(from, end, pace === 'instant');
    if (this.state === 'playing') this.schedule();
  }

  private finish(): void {
    if (this.options.loop && this.options.transport.reset) {
      this.loops++;
      this.reset(this.options.loopFrom ?? 0, true);
      return;
    }
    this.state = 'ended';
    this.options.onEnd?.('end');
  }
}

/**
 * Index of the first record of each round: the first `round_info` record with that `roundNumber`
 * (the rounds a rehearsal can start from or seek to). Round 0 is not listed.
 */
export function roundStarts(records: readonly { type?: unknown; data?: unknown }[]): Map<number, number> {
  const starts = new Map<number, number>();
  records.forEach((r, i) => {
    if (r.type !== 'round_info' || typeof r.data !== 'object' || r.data === null) return;
    const n = (r.data as { roundNumber?: unknown }).roundNumber;
    if (typeof n === 'number' && Number.isInteger(n) && n > 0 && !starts.has(n)) starts.set(n, i);
  });
  return starts;
}
