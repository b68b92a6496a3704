// The main thread's heartbeat, every STALL_BEAT_MS: how late each beat fired is the thread's
// event-loop delay (the ods_nodejs_eventloop_lag_* figures of /metrics, metrics/metrics.ts), and a
// beat late by more than one interval was a stall of the thread itself: for STALL_CREDIT_MS after it
// a socket's budget may also hold what its rate gave over the stall (ingest/backlog.ts), so a client
// within its rate is not shed because the service itself was slow.
//
// One timer for both. prom-client's own event-loop sampler (monitorEventLoopDelay at its default
// 10 ms) woke the thread 100 times a second beside this beat: ~25–40 µs of CPU per message at 50
// matches and 3 msg/s, where the thread is otherwise asleep between messages (docs/perf/message-path.md,
// "Wake-ups"). Its histogram also counted the 10 ms itself (an idle loop read 0.010 s); a beat's
// lateness is the delay alone (0 when on time).
import { createHistogram } from 'node:perf_hooks';
import { STALL_BEAT_MS, STALL_CREDIT_MS } from './limits.js';

/** The loop's delay since the last take, in seconds (all 0 when every beat was on time or none fired). */
export interface LoopDelays { min: number; max: number; mean: number; stddev: number; p50: number; p90: number; p99: number }

export class LoopBeat {
  private stallMs = 0;
  private stallEndedAt = 0;
  private lastBeat = performance.now();
  /** Each beat's lateness in ns (a histogram records integers ≥ 1: 1 is on time). */
  private delays = createHistogram();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly beatMs = STALL_BEAT_MS) {
    this.timer = setInterval(() => this.beat(performance.now(), Date.now()), beatMs);
    this.timer.unref();
  }

  /** A beat at `at` (performance.now()); `now` is the wall clock the budgets count in. */
  beat(at: number, now: number): void {
    const lag = at - this.lastBeat - this.beatMs;
    this.lastBeat = at;
    this.delays.record(Math.max(1, Math.round(lag * 1e6)));
    if (lag > this.beatMs) {
      this.stallMs = lag;
      this.stallEndedAt = now;
    }
  }

  /** Tokens a budget of `rate` per second may hold above its size now. */
  credit(now: number, rate: number): number {
    return now - this.stallEndedAt < STALL_CREDIT_MS ? (this.stallMs * rate) / 1000 : 0;
  }

  /** The delays since the last take (a scrape), then a new count. */
  takeDelays(): LoopDelays {
    const h = this.delays;
    const s = (ns: number) => (Number.isFinite(ns) && ns > 1 ? ns / 1e9 : 0);
    const taken = h.count === 0
      ? { min: 0, max: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p99: 0 }
      : { min: s(h.min), max: s(h.max), mean: s(h.mean), stddev: s(h.stddev), p50: s(h.percentile(50)), p90: s(h.percentile(90)), p99: s(h.percentile(99)) };
    this.delays = createHistogram();
    return taken;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
